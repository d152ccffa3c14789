#include "emulator/gm_window.h"

#include <algorithm>
#include <cstring>
#include <tuple>

namespace cubekit {

namespace {

// Applies one logged write to bytes holding the tensor from offset `base_offset`; only the part
// inside [lo, hi) is touched.
void apply_write(const GmWrite& w, const uint8_t* bytes, uint8_t* dst, int64_t base_offset, int64_t lo, int64_t hi) {
  const Region& r = w.region;
  int64_t k = 0;
  for (int64_t j = 0; j < r.n2; ++j)
    for (int64_t i = 0; i < r.n1; ++i, ++k) {
      int64_t start = r.base + i * r.s1 + j * r.s2;
      int64_t a = std::max(start, lo), b = std::min(start + r.bytes, hi);
      if (a >= b) continue;
      const uint8_t* src = bytes + k * r.bytes + (a - start);
      uint8_t* d = dst + (a - base_offset);
      if (w.atomic) atomic_add(d, src, b - a, *w.atomic);
      else std::memcpy(d, src, size_t(b - a));
    }
}

}  // namespace

bool GmWindow::pending(int tensor, int64_t lo, int64_t hi) const {
  for (const GmWrite& w : writes_)
    if (w.region.tensor == tensor && w.region.lo() < hi && w.region.hi() > lo) return true;
  return false;
}

void GmWindow::stage(int tensor, int64_t lo, int64_t hi, std::vector<uint8_t>& out) const {
  const std::vector<uint8_t>& committed = gm_.data[tensor];
  out.assign(committed.begin() + lo, committed.begin() + hi);
  for (const GmWrite& w : writes_)
    if (w.region.tensor == tensor && w.region.lo() < hi && w.region.hi() > lo) apply_write(w, bytes(w), out.data(), lo, lo, hi);
}

void GmWindow::log_write(const Region& r, const uint8_t* staged, int64_t lo, uint64_t time, std::optional<DType> atomic) {
  const int64_t at = int64_t(log_.size());
  log_.resize(size_t(at + r.n1 * r.n2 * r.bytes));
  uint8_t* to = log_.data() + at;
  int64_t k = 0;
  for (int64_t j = 0; j < r.n2; ++j)
    for (int64_t i = 0; i < r.n1; ++i, ++k)
      std::memcpy(to + k * r.bytes, staged + (r.base + i * r.s1 + j * r.s2 - lo), size_t(r.bytes));
  writes_.push_back({time, core_, seq_++, r, at, atomic});
}

void commit_gm(GlobalMemory& gm, std::vector<GmWindow*>& windows) {
  std::vector<std::pair<const GmWrite*, const GmWindow*>> all;
  for (GmWindow* w : windows)
    for (const GmWrite& x : w->writes()) all.push_back({&x, w});
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first->time, a.first->core, a.first->seq) < std::tie(b.first->time, b.first->core, b.first->seq);
  });
  for (auto [w, window] : all) {
    std::vector<uint8_t>& t = gm.data[w->region.tensor];
    apply_write(*w, window->bytes(*w), t.data(), 0, 0, int64_t(t.size()));
  }
  for (GmWindow* w : windows) w->clear();
}

}  // namespace cubekit
