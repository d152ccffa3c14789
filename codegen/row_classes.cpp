#include "codegen/row_classes.h"

#include "emulator/error.h"

#include <algorithm>

namespace cubekit::codegen {

std::vector<RowClass> row_classes(const sched::ConvGeometry& g, int64_t rows, int64_t tiles) {
  std::vector<RowClass> out;
  const int64_t step = rows * g.sh;
  for (int64_t t = 0; t < tiles; ++t) {
    int64_t oh0 = t * rows, oh1 = std::min(g.oh, oh0 + rows) - 1;
    int64_t top = oh0 * g.sh - g.pad_top, bottom = oh1 * g.sh - g.pad_top + (g.kh - 1) * g.dh;
    int64_t lo = std::max<int64_t>(0, top), hi = std::min(g.h - 1, bottom);
    // Rows skipped (a strided 1x1 kernel): L1 holds one input row per output row.
    const int64_t in_rows = g.skips_rows() ? oh1 - oh0 + 1 : hi - lo + 1;
    RowClass r{t, t, lo - top, bottom - hi, in_rows, (oh1 - oh0 + 1) * g.ow, lo - t * step, step};
    CUBEKIT_ASSERT(r.in_rows >= 1, "row tile {} reads no input row", t);
    if (!out.empty()) {
      RowClass& b = out.back();
      if (b.pad_top == r.pad_top && b.pad_bottom == r.pad_bottom && b.in_rows == r.in_rows && b.positions == r.positions &&
          b.in_row0 == r.in_row0) {
        b.last = t;
        continue;
      }
    }
    out.push_back(r);
  }
  return out;
}

std::vector<RowClass> stacked_classes(const sched::ConvGeometry& g) {
  CUBEKIT_ASSERT(!g.skips_rows(), "stacked images read their rows whole (plan_conv skips rows of one image only)");
  auto of = [&](int64_t images) { return RowClass{0, 0, 0, 0, images * g.h, images * g.oh * g.ow, 0, 0, images}; };
  std::vector<RowClass> out = {of(g.images)};
  if (g.n % g.images) out.push_back(of(g.n % g.images));
  return out;
}

}  // namespace cubekit::codegen
