#include "emulator/memory_system.h"

#include "emulator/error.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace cubekit {

SharedMemory::SharedMemory(const ChipConfig& chip, GlobalMemory& gm)
    : chip_(chip), gm_(gm), capacity_lines_(size_t(chip.timing.l2_bytes / chip.timing.l2_line_bytes)) {}

double SharedMemory::hbm_share() const {
  return std::min(chip_.timing.gm_read_hbm_rate, chip_.timing.hbm_rate / std::max(1, hbm_users_));
}

void SharedMemory::touch(uint64_t line, uint64_t time) {
  auto [it, inserted] = l2_.try_emplace(line, time);
  if (!inserted) {
    lru_.erase({it->second, line});
    it->second = std::max(it->second, time);
  }
  lru_.insert({it->second, line});
  while (l2_.size() > capacity_lines_) {
    auto victim = *lru_.begin();
    lru_.erase(lru_.begin());
    l2_.erase(victim.second);
  }
}

void SharedMemory::commit(std::vector<CoreWindow*>& windows) {
  std::vector<const GmWrite*> writes;
  std::vector<std::tuple<uint64_t, int, uint64_t>> touches;
  int users = 0;
  for (size_t c = 0; c < windows.size(); ++c) {
    for (const GmWrite& w : windows[c]->writes) writes.push_back(&w);
    for (auto [time, line] : windows[c]->touches) touches.emplace_back(time, int(c), line);
    users += windows[c]->used_hbm;
  }
  std::sort(writes.begin(), writes.end(), [](const GmWrite* a, const GmWrite* b) {
    return std::tie(a->time, a->core, a->seq) < std::tie(b->time, b->core, b->seq);
  });
  for (const GmWrite* w : writes) {
    std::vector<uint8_t>& t = gm_.data[w->region.tensor];
    apply_write(*w, t.data(), 0, 0, int64_t(t.size()));
  }
  std::sort(touches.begin(), touches.end());
  for (auto [time, core, line] : touches) touch(line, time);
  hbm_users_ = std::max(1, users);
}

void apply_write(const GmWrite& w, uint8_t* dst, int64_t base_offset, int64_t lo, int64_t hi) {
  const Region& r = w.region;
  int64_t k = 0;
  for (int64_t j = 0; j < r.n2; ++j)
    for (int64_t i = 0; i < r.n1; ++i, ++k) {
      int64_t start = r.base + i * r.s1 + j * r.s2;
      int64_t a = std::max(start, lo), b = std::min(start + r.bytes, hi);
      if (a >= b) continue;
      const uint8_t* src = w.data.data() + k * r.bytes + (a - start);
      uint8_t* d = dst + (a - base_offset);
      if (w.atomic) atomic_add(d, src, b - a, *w.atomic);
      else std::memcpy(d, src, size_t(b - a));
    }
}

uint64_t CoreMemoryView::line_of(int tensor, int64_t offset) const {
  return (uint64_t(tensor + 1) << 40) | uint64_t(offset / shared_.chip().timing.l2_line_bytes);
}

void CoreMemoryView::lines_of(const Region& r, std::vector<uint64_t>& out) const {
  int64_t line = shared_.chip().timing.l2_line_bytes;
  for (int64_t j = 0; j < r.n2; ++j)
    for (int64_t i = 0; i < r.n1; ++i) {
      int64_t start = r.base + i * r.s1 + j * r.s2;
      for (int64_t l = start / line; l <= (start + r.bytes - 1) / line; ++l)
        if (out.empty() || out.back() != line_of(r.tensor, l * line)) out.push_back(line_of(r.tensor, l * line));
    }
}

CoreMemoryView::GmCost CoreMemoryView::read_cost(const Footprint& fp, uint64_t time, int64_t requested_bytes,
                                                 L2Stats& stats) {
  const TimingConfig& t = shared_.chip().timing;
  thread_local std::vector<uint64_t> lines;
  lines.clear();
  for (int k = 0; k < fp.count; ++k)
    if (fp.regions[k].space == Space::GM && !fp.regions[k].write) lines_of(fp.regions[k], lines);
  std::sort(lines.begin(), lines.end());
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  int64_t hits = 0, misses = 0;
  for (uint64_t l : lines) {
    bool hit = shared_.in_l2(l) || local_lines_.count(l);
    (hit ? hits : misses) += 1;
    window_.touches.push_back({time, l});
    local_lines_.insert(l);
  }
  stats.hit_lines += hits;
  stats.miss_lines += misses;
  stats.hbm_read_bytes += misses * t.l2_line_bytes;
  if (misses) window_.used_hbm = true;
  double total = double(std::max<int64_t>(1, hits + misses));
  double hit_bytes = double(requested_bytes) * double(hits) / total;
  double cycles = hit_bytes / t.gm_read_l2_rate + double(misses * t.l2_line_bytes) / shared_.hbm_share();
  return {misses ? t.l2_miss_latency : t.l2_hit_latency, int64_t(std::ceil(cycles))};
}

CoreMemoryView::GmCost CoreMemoryView::write_cost(const Footprint& fp, uint64_t time, int64_t bytes, L2Stats& stats) {
  const TimingConfig& t = shared_.chip().timing;
  thread_local std::vector<uint64_t> lines;
  lines.clear();
  for (int k = 0; k < fp.count; ++k)
    if (fp.regions[k].space == Space::GM && fp.regions[k].write) lines_of(fp.regions[k], lines);
  for (uint64_t l : lines) {
    window_.touches.push_back({time, l});
    local_lines_.insert(l);
  }
  stats.hbm_write_bytes += bytes;
  window_.used_hbm = true;
  return {t.gm_write_latency, int64_t(std::ceil(double(bytes) / t.gm_write_rate))};
}

void CoreMemoryView::stage(int tensor, int64_t lo, int64_t hi, std::vector<uint8_t>& out) const {
  const std::vector<uint8_t>& committed = shared_.gm().data[tensor];
  out.assign(committed.begin() + lo, committed.begin() + hi);
  for (const GmWrite& w : window_.writes)
    if (w.region.tensor == tensor && w.region.lo() < hi && w.region.hi() > lo) apply_write(w, out.data(), lo, lo, hi);
}

void CoreMemoryView::log_write(const Region& r, const uint8_t* staged, int64_t lo, uint64_t time,
                               std::optional<DType> atomic) {
  GmWrite w{time, core_, seq_++, r, {}, atomic};
  w.data.resize(size_t(r.n1 * r.n2 * r.bytes));
  int64_t k = 0;
  for (int64_t j = 0; j < r.n2; ++j)
    for (int64_t i = 0; i < r.n1; ++i, ++k)
      std::memcpy(w.data.data() + k * r.bytes, staged + (r.base + i * r.s1 + j * r.s2 - lo), size_t(r.bytes));
  window_.writes.push_back(std::move(w));
}

}  // namespace cubekit
