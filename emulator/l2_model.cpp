#include "emulator/l2_model.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace cubekit {

L2Model::L2Model(const ChipConfig& chip, const std::vector<TensorDecl>& tensors)
    : t_(chip.timing), capacity_(size_t(chip.timing.l2_bytes / chip.timing.l2_line_bytes)) {
  uint64_t lines = 0;
  for (const TensorDecl& t : tensors) {
    first_line_.push_back(lines);
    lines += uint64_t((t.bytes() + t_.l2_line_bytes - 1) / t_.l2_line_bytes);
  }
  index_.assign(size_t(lines), -1);
}

L2Model::Line* L2Model::find(uint64_t key) {
  int32_t i = index_[key];
  if (i < 0) return nullptr;
  touch(i);
  return &lines_[size_t(i)];
}

void L2Model::unlink(int32_t i) {
  Line& l = lines_[size_t(i)];
  (l.prev >= 0 ? lines_[size_t(l.prev)].next : first_) = l.next;
  (l.next >= 0 ? lines_[size_t(l.next)].prev : last_) = l.prev;
}

void L2Model::link_last(int32_t i) {
  Line& l = lines_[size_t(i)];
  l.prev = last_, l.next = -1;
  (last_ >= 0 ? lines_[size_t(last_)].next : first_) = i;
  last_ = i;
}

void L2Model::touch(int32_t i) {
  if (i == last_) return;
  unlink(i);
  link_last(i);
}

void L2Model::insert(uint64_t key, uint64_t ready) {
  int32_t i;
  if (lines_.size() < capacity_) {
    i = int32_t(lines_.size());
    lines_.push_back({});
  } else {  // reuse the least recently used line's slot
    i = first_;
    unlink(i);
    index_[lines_[size_t(i)].key] = -1;
  }
  lines_[size_t(i)] = {key, ready, -1, -1};
  link_last(i);
  index_[key] = i;
}

void L2Model::lines_of(const Footprint& fp, bool writes, std::vector<uint64_t>& out) const {
  const int shift = std::countr_zero(uint64_t(t_.l2_line_bytes));  // a power of two (chip_config checks)
  out.clear();
  for (int k = 0; k < fp.count; ++k) {
    const Region& r = fp.regions[k];
    if (r.space != Space::GM || r.write != writes) continue;
    uint64_t first = first_line_[r.tensor];
    for (int64_t j = 0; j < r.n2; ++j)
      for (int64_t i = 0; i < r.n1; ++i) {
        int64_t start = r.base + i * r.s1 + j * r.s2;
        for (int64_t l = start >> shift; l <= (start + r.bytes - 1) >> shift; ++l)
          if (out.empty() || out.back() != first + uint64_t(l)) out.push_back(first + uint64_t(l));
      }
  }
  if (!std::is_sorted(out.begin(), out.end())) std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

uint64_t L2Model::reserve_hbm(uint64_t time, int64_t bytes) {
  double start = std::max(double(time), hbm_free_);
  hbm_free_ = start + double(bytes) / t_.hbm_rate;
  return uint64_t(std::ceil(hbm_free_));
}

L2Model::Cost L2Model::read(const Footprint& fp, uint64_t time, int64_t requested_bytes, L2Counts& counts) {
  thread_local std::vector<uint64_t> lines, missed;
  lines_of(fp, false, lines);
  missed.clear();
  int64_t hits = 0;
  uint64_t data_ready = time;  // when the last line this read shares with an earlier fill arrives
  for (uint64_t line : lines) {
    Line* l = find(line);
    if (!l) {
      missed.push_back(line);
      continue;
    }
    ++hits;  // present, or merged with a fill in flight
    data_ready = std::max(data_ready, l->ready);
  }
  const int64_t misses = int64_t(missed.size()), miss_bytes = misses * t_.l2_line_bytes;
  counts.hit_lines += hits;
  counts.miss_lines += misses;
  counts.hbm_read_bytes += miss_bytes;
  // This core moves the hit share at the L2 rate and the missed lines at its own HBM rate; the
  // missed lines also queue for HBM behind every other core's.
  double total = double(std::max<int64_t>(1, hits + misses));
  double hit_bytes = double(requested_bytes) * double(hits) / total;
  double occupancy = hit_bytes / t_.gm_read_l2_rate + double(miss_bytes) / t_.gm_read_hbm_rate;
  if (misses) occupancy = std::max(occupancy, double(reserve_hbm(time, miss_bytes) - time));
  int64_t latency = misses ? t_.l2_miss_latency : t_.l2_hit_latency;
  // Shared lines cannot arrive before the fill that brings them.
  occupancy = std::max(occupancy, double(data_ready) - double(time + uint64_t(latency)));
  // The lines this read fetches arrive one after another over its transfer.
  for (int64_t i = 0; i < misses; ++i)
    insert(missed[size_t(i)], time + uint64_t(latency) + uint64_t(std::ceil(occupancy * double(i + 1) / double(misses))));
  return {latency, std::max<int64_t>(1, int64_t(std::ceil(occupancy)))};
}

L2Model::Cost L2Model::write(const Footprint& fp, uint64_t time, int64_t bytes, L2Counts& counts) {
  thread_local std::vector<uint64_t> lines;
  lines_of(fp, true, lines);
  for (uint64_t line : lines)
    if (!find(line)) insert(line, time);
  counts.hbm_write_bytes += bytes;
  reserve_hbm(time, bytes);  // the write-back competes with everyone's misses
  return {t_.gm_write_latency, std::max<int64_t>(1, int64_t(std::ceil(double(bytes) / t_.gm_write_rate)))};
}

}  // namespace cubekit
