#include "kernels/pool.h"

#include "emulator/error.h"
#include "kernels/conv.h"
#include "schedules/pool.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace cubekit::kernels {

namespace {

const char* kind_name(const Pool2dOptions& o) {
  return o.global ? "global_avg_pool2d" : o.kind == Pool2dOptions::Kind::Max ? "max_pool2d" : "avg_pool2d";
}

void check_options(const Pool2dOptions& o) {
  const char* what = kind_name(o);
  // Indices are 32-bit: a larger value would wrap inside the lowering (as conv2d's, kernels/conv.cpp).
  for (auto [name, v] : {std::pair<const char*, int64_t>{"n", o.n}, {"c", o.c}, {"h", o.h}, {"w", o.w}, {"kernel", o.kh},
                         {"kernel_w", o.kw}, {"stride", o.stride}, {"stride_w", o.stride_w}, {"dilation", o.dilation},
                         {"dilation_w", o.dilation_w}, {"pad", o.pad}, {"pad_w", o.pad_w}, {"rows", o.rows}})
    if (v > INT32_MAX) user_error("{}: {} {} is past 2^31 - 1, the largest index the compiler takes", what, name, v);
  for (auto [name, v] : {std::pair<const char*, int64_t>{"n", o.n}, {"c", o.c}, {"h", o.h}, {"w", o.w}})
    if (v < 1) user_error("{}: {} must be at least 1, got {}", what, name, v);
  if (o.dtype != DType::f16 && o.dtype != DType::f32)
    user_error("{}: the vector unit pools f16 and f32, got {}", what, dtype_name(o.dtype));
  if (o.rows < 0) user_error("{}: rows must be at least 1 (or 0 to let the schedule choose), got {}", what, o.rows);
  if (o.global && o.rows > 1)
    user_error("{}: rows {} per tile, but the global average has one output row; leave rows out", what, o.rows);
  if (o.global) return;
  if (o.kh < 1 || o.kw < 0) user_error("{}: the window must be at least 1 x 1, got {} x {}", what, o.kh, o.win_w());
  if (o.stride < 0 || o.stride_w < 0) user_error("{}: the stride must be at least 1 (0: the window), got {}", what, std::min(o.stride, o.stride_w));
  if (o.dilation < 1 || o.dilation_w < 0) user_error("{}: the dilation must be at least 1, got {}", what, std::min(o.dilation, o.dilation_w));
  if (o.kind == Pool2dOptions::Kind::Avg && (o.dilation != 1 || o.dw() != 1))
    user_error("avg_pool2d: average pooling has no dilation (torch's avg_pool2d takes none)");
  if (o.pad < 0 || o.pw() < 0) user_error("{}: padding must be 0 or more, got {}", what, std::min(o.pad, o.pw()));
  check_window_fits(what, o.h, o.kh, o.pad, o.dilation);
  check_window_fits(what, o.w, o.win_w(), o.pw(), o.dw());
  const int64_t oh = conv_output_extent(o.h, o.kh, o.sh(), o.pad, o.dilation),
                ow = conv_output_extent(o.w, o.win_w(), o.sw(), o.pw(), o.dw());
  const int64_t eh = (o.kh - 1) * o.dilation + 1, ew = (o.win_w() - 1) * o.dw() + 1;
  if (2 * o.pad > eh || 2 * o.pw() > ew)
    user_error("{}: padding {} x {} is more than half the {} x {} window (as torch, pad at most half the window)", what,
               o.pad, o.pw(), eh, ew);
  if (oh < 1 || ow < 1)
    user_error("{}: the {} x {} window is larger than the {} x {} input padded by {} x {}", what, eh, ew, o.h, o.w, o.pad,
               o.pw());
}

}  // namespace

dsl::Schedule pool_schedule(const dsl::Func& f, const Pool2dOptions& o) {
  const bool naive = o.schedule == Pool2dOptions::Schedule::Naive;
  dsl::Schedule s;
  if (o.use_cores.value_or(!naive)) s.cores({dsl::Var(f.impl->args.front())});
  if (o.double_buffer.value_or(!naive)) s.double_buffer();
  if (o.rows) s.tile_rows(o.rows);
  return s;
}

Pool2d pool2d(const Pool2dOptions& opt, const ChipConfig& chip) {
  check_chip(chip);  // a config changed in C++: its figures divide the schedule's sizes
  check_options(opt);
  Pool2dOptions o = opt;
  if (o.global) o.kind = Pool2dOptions::Kind::Avg, o.kh = o.h, o.kw = o.w, o.stride = o.stride_w = 1, o.pad = o.pad_w = 0,
                o.dilation = o.dilation_w = 1;
  const bool max = o.kind == Pool2dOptions::Kind::Max;
  Pool2d p{dsl::Input("X", o.dtype, {o.n, o.c, o.h, o.w}), dsl::Func("Y")};
  p.oh = conv_output_extent(o.h, o.kh, o.sh(), o.pad, o.dilation);
  p.ow = conv_output_extent(o.w, o.win_w(), o.sw(), o.pw(), o.dw());
  dsl::Var n("n"), c("c"), y("y"), x("x");
  dsl::RDom r({{0, o.win_w()}, {0, o.kh}}, "r");  // r.x along the row (innermost), r.y down the window
  dsl::Expr iy = y * int(o.sh()) + r.y * int(o.dilation) - int(o.pad);
  dsl::Expr ix = x * int(o.sw()) + r.x * int(o.dw()) - int(o.pw());
  const double outside = max ? -std::numeric_limits<double>::infinity() : 0.0;
  dsl::Expr read = o.pad || o.pw() ? dsl::BoundaryConditions::constant_exterior(p.x, outside)(n, c, iy, ix) : p.x(n, c, iy, ix);
  dsl::Expr value;
  if (max) {
    value = dsl::maximum(read);
  } else {
    const double scale = 1.0 / double(o.kh * o.win_w());
    value = dsl::sum(dsl::cast(DType::f32, read)) * scale;
    if (o.dtype != DType::f32) value = dsl::cast(o.dtype, value);
  }
  p.out(n, c, y, x) = value;
  p.out.bound(y, 0, p.oh).bound(x, 0, p.ow);
  p.out.schedule() = pool_schedule(p.out, o);
  // The default double-buffers where a row's tile fits twice: a wide map (global_avg_pool2d of 48 x
  // 48 f16 on the 910) then runs single-buffered rather than being refused.
  if (!o.double_buffer && o.schedule != Pool2dOptions::Schedule::Naive && !sched::pool_row_fits(p.out, chip)) {
    Pool2dOptions single = o;
    single.double_buffer = false;
    p.out.schedule() = pool_schedule(p.out, single);
  }
  return p;
}

}  // namespace cubekit::kernels
