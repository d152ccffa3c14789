#include "emulator/l2_model.h"

#include "emulator/error.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace cubekit {

L2Model::L2Model(const ChipConfig& chip, const std::vector<TensorDecl>& tensors)
    : t_(chip.timing), capacity_(size_t(chip.timing.l2_bytes / chip.timing.l2_line_bytes)) {
  CUBEKIT_ASSERT(capacity_ > 0, "an L2 of no lines (check_chip refuses l2_bytes below l2_line_bytes)");
  uint64_t lines = 0;
  for (const TensorDecl& t : tensors) {
    first_line_.push_back(lines);
    lines += uint64_t((t.bytes() + t_.l2_line_bytes - 1) / t_.l2_line_bytes);
  }
  index_.assign(size_t(lines), -1);
}

int32_t L2Model::insert(uint64_t key, uint64_t ready) {
  size_t i;
  if (lines_.size() < capacity_) {
    i = lines_.size();
    lines_.push_back({});
  } else {  // second chance: clear referenced bits until an unreferenced line comes round
    while (lines_[hand_].referenced) lines_[hand_].referenced = false, hand_ = (hand_ + 1) % lines_.size();
    i = hand_;
    hand_ = (hand_ + 1) % lines_.size();
    index_[lines_[i].key] = -1;
  }
  lines_[i] = {key, ready, request_, false};
  index_[key] = int32_t(i);
  return int32_t(i);
}

template <class F>
void L2Model::for_each_line(const Footprint& fp, bool writes, F f) const {
  const int shift = std::countr_zero(uint64_t(t_.l2_line_bytes));  // a power of two (chip_config checks)
  for (int k = 0; k < fp.count; ++k) {
    const Region& r = fp.regions[k];
    if (r.space != Space::GM || r.write != writes) continue;
    const uint64_t first = first_line_[r.tensor];
    for (int64_t j = 0; j < r.n2; ++j)
      for (int64_t i = 0; i < r.n1; ++i) {
        int64_t start = r.base + i * r.s1 + j * r.s2;
        for (int64_t l = start >> shift, last = (start + r.bytes - 1) >> shift; l <= last; ++l) f(first + uint64_t(l));
      }
  }
}

uint64_t L2Model::reserve_hbm(uint64_t time, int64_t bytes) {
  double start = std::max(double(time), hbm_free_);
  hbm_free_ = start + double(bytes) / t_.hbm_rate;
  return uint64_t(std::ceil(hbm_free_));
}

L2Model::Cost L2Model::read(const Footprint& fp, uint64_t time, int64_t requested_bytes, double l2_rate, L2Counts& counts) {
  ++request_;
  missed_.clear();
  int64_t hits = 0;
  uint64_t data_ready = time;  // when the last line this read shares with an earlier fill arrives
  for_each_line(fp, false, [&](uint64_t key) {
    int32_t i = index_[key];
    if (i < 0) {  // a miss: fetched by this request, its arrival time set below
      missed_.push_back(insert(key, UINT64_MAX));
      return;
    }
    Line& l = lines_[size_t(i)];
    if (l.request == request_) return;  // seen already in this request
    l.request = request_;
    l.referenced = true;
    ++hits;  // present, or merged with a fill in flight
    data_ready = std::max(data_ready, l.ready);
  });
  const int64_t misses = int64_t(missed_.size()), miss_bytes = misses * t_.l2_line_bytes;
  counts.hit_lines += hits;
  counts.miss_lines += misses;
  counts.hbm_read_bytes += miss_bytes;
  // This core moves the hit share at the L2 rate and the missed lines at its own HBM rate; the
  // missed lines also queue for HBM behind every other core's.
  double total = double(std::max<int64_t>(1, hits + misses));
  double hit_bytes = double(requested_bytes) * double(hits) / total;
  double occupancy = hit_bytes / l2_rate + double(miss_bytes) / t_.gm_read_hbm_rate;
  if (misses) occupancy = std::max(occupancy, double(reserve_hbm(time, miss_bytes) - time));
  int64_t latency = misses ? t_.l2_miss_latency : t_.l2_hit_latency;
  // Shared lines cannot arrive before the fill that brings them.
  occupancy = std::max(occupancy, double(data_ready) - double(time + uint64_t(latency)));
  // The lines this read fetches arrive one after another over its transfer.
  for (int64_t i = 0; i < misses; ++i)
    lines_[size_t(missed_[size_t(i)])].ready =
        time + uint64_t(latency) + uint64_t(std::ceil(occupancy * double(i + 1) / double(misses)));
  return {latency, std::max<int64_t>(1, int64_t(std::ceil(occupancy)))};
}

L2Model::Cost L2Model::write(const Footprint& fp, uint64_t time, int64_t bytes, double rate, L2Counts& counts) {
  ++request_;
  for_each_line(fp, true, [&](uint64_t key) {
    int32_t i = index_[key];
    if (i < 0) insert(key, time);
    else lines_[size_t(i)].referenced = true;
  });
  counts.hbm_write_bytes += bytes;
  reserve_hbm(time, bytes);  // the write-back competes with everyone's misses
  return {t_.gm_write_latency, std::max<int64_t>(1, int64_t(std::ceil(double(bytes) / rate)))};
}

}  // namespace cubekit
