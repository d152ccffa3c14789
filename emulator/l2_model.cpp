#include "emulator/l2_model.h"

#include <algorithm>
#include <cmath>

namespace cubekit {

L2Model::L2Model(const ChipConfig& chip)
    : t_(chip.timing), capacity_(size_t(chip.timing.l2_bytes / chip.timing.l2_line_bytes)) {}

void L2Model::lines_of(const Footprint& fp, bool writes, std::vector<uint64_t>& out) const {
  const int64_t size = t_.l2_line_bytes;
  out.clear();
  for (int k = 0; k < fp.count; ++k) {
    const Region& r = fp.regions[k];
    if (r.space != Space::GM || r.write != writes) continue;
    uint64_t tensor = uint64_t(r.tensor + 1) << 40;
    for (int64_t j = 0; j < r.n2; ++j)
      for (int64_t i = 0; i < r.n1; ++i) {
        int64_t start = r.base + i * r.s1 + j * r.s2;
        for (int64_t l = start / size; l <= (start + r.bytes - 1) / size; ++l)
          if (out.empty() || out.back() != (tensor | uint64_t(l))) out.push_back(tensor | uint64_t(l));
      }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

void L2Model::use(uint64_t line, Line& l, uint64_t time) {
  if (time <= l.last_use) return;
  lru_.erase({l.last_use, line});
  l.last_use = time;
  lru_.insert({time, line});
}

void L2Model::evict_if_full() {
  while (lines_.size() > capacity_) {
    auto victim = *lru_.begin();
    lru_.erase(lru_.begin());
    lines_.erase(victim.second);
  }
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
    auto it = lines_.find(line);
    if (it == lines_.end()) {
      missed.push_back(line);
      continue;
    }
    ++hits;  // present, or merged with a fill in flight
    data_ready = std::max(data_ready, it->second.ready);
    use(line, it->second, time);
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
  for (int64_t i = 0; i < misses; ++i) {
    uint64_t ready = time + uint64_t(latency) + uint64_t(std::ceil(occupancy * double(i + 1) / double(misses)));
    lines_[missed[size_t(i)]] = {ready, time};
    lru_.insert({time, missed[size_t(i)]});
  }
  evict_if_full();
  return {latency, std::max<int64_t>(1, int64_t(std::ceil(occupancy)))};
}

L2Model::Cost L2Model::write(const Footprint& fp, uint64_t time, int64_t bytes, L2Counts& counts) {
  thread_local std::vector<uint64_t> lines;
  lines_of(fp, true, lines);
  for (uint64_t line : lines) {
    auto [it, fresh] = lines_.try_emplace(line, Line{time, time});
    if (fresh) lru_.insert({time, line});
    else use(line, it->second, time);
  }
  evict_if_full();
  counts.hbm_write_bytes += bytes;
  reserve_hbm(time, bytes);  // the write-back competes with everyone's misses
  return {t_.gm_write_latency, std::max<int64_t>(1, int64_t(std::ceil(double(bytes) / t_.gm_write_rate)))};
}

}  // namespace cubekit
