#include "schedules/pool.h"

#include "emulator/error.h"
#include "schedules/affine_index.h"
#include "schedules/vector.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace cubekit::sched {

using dsl::Directive;
using dsl::Expr;
using dsl::ExprNode;
using dsl::Op;
using dsl::VarImpl;

namespace {

const char* kPoolShape =
    "a pooling is O(n, c, y, x) = maximum(P(n, c, y*sh + r.y*dh - ph, x*sw + r.x*dw - pw)), minimum(P(..)) or "
    "sum(cast(f32, P(..))) * scale, P the input or BoundaryConditions::constant_exterior(input, v)";

bool window_read(const ExprNode* n) { return n->args.size() == 4 && affine_read(n); }

// The reduction of f's value (Maximum or Sum), its scale, and the expression it reduces.
struct Shape {
  const ExprNode* reduction = nullptr;
  double scale = 1;
};

Shape shape_of(const dsl::Func& f) {
  const ExprNode* v = strip_cast(f.impl->value.get());
  Shape s;
  if ((v->op == Op::Mul || v->op == Op::Div) && v->args[1].node().op == Op::Const) {
    double c = v->args[1].node().value;
    s.scale = v->op == Op::Mul ? c : 1 / c;
    v = v->args[0].get();
  } else if (v->op == Op::Mul && v->args[0].node().op == Op::Const) {
    s.scale = v->args[0].node().value;
    v = v->args[1].get();
  }
  if (v->op != Op::Maximum && v->op != Op::Minimum && v->op != Op::Sum) return s;
  if (v->op != Op::Sum && s.scale != 1) return s;
  s.reduction = v;
  return s;
}

Axis axis(const std::string& fname, const Expr& index, const VarImpl* out, const VarImpl* r, const char* which) {
  return window_axis(fname, index, out, r, which, kPoolShape);
}

bool vector_type(DType t) { return t == DType::f16 || t == DType::f32; }

}  // namespace

bool is_pool(const dsl::Func& f) {
  if (!f.defined() || f.impl->args.size() != 4 || !f.impl->value.defined()) return false;
  Shape s = shape_of(f);
  return s.reduction && window_read(strip_cast(s.reduction->args[0].get()));
}

std::string PoolPlan::str() const {
  return fmt::format("pool {}: {} {} -> {} (acc {}), {}x{}x{}x{} window {}x{} stride {}x{} dilation {}x{} pad {},{},{},{} "
                     "-> {}x{}; tiles of {} row{} x {} plane{}, {} tiles{}{}",
                     name, short_name(), dtype_name(in), dtype_name(out), dtype_name(acc), g.n, g.c,
                     g.h, g.w, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw, g.pad_top, g.pad_bottom, g.pad_left, g.pad_right, g.oh,
                     g.ow, rows, rows == 1 ? "" : "s", tile_planes, tile_planes == 1 ? "" : "s", tiles(),
                     cores ? ", cores" : "", copies > 1 ? fmt::format(", {} copies", copies) : "");
}

int64_t pool_ub_bytes(const PoolPlan& p, int64_t rows, int64_t planes) {
  const int64_t copies = p.copies, in_tile = planes * std::min(p.g.h, p.in_rows(rows)) * p.g.w * 32;
  const int64_t out_positions = planes * rows * p.g.ow * 32;
  int64_t bytes = copies * in_tile + copies * out_positions * p.blocks(p.out);
  if (p.acc != p.in) bytes += in_tile * p.blocks(p.acc);
  if (p.acc != p.out) bytes += out_positions * p.blocks(p.acc);
  return bytes;
}

namespace {

void recognise(const dsl::Func& f, PoolPlan& p) {
  const std::string& fname = f.name();
  Shape s = shape_of(f);
  const ExprNode* red = s.reduction;
  p.kind = red->op == Op::Maximum ? PoolPlan::Kind::Max : red->op == Op::Minimum ? PoolPlan::Kind::Min : PoolPlan::Kind::Sum;
  p.scale = s.scale;
  p.out = f.impl->value.type().dtype;
  p.acc = red->type.dtype;
  const ExprNode* rd = strip_cast(red->args[0].get());
  p.input = rd->input;
  p.in = rd->input->dtype;
  p.pad_value = rd->op == Op::Exterior ? rd->value : 0;
  const auto& out = f.impl->args;
  const VarImpl *n = out[0].get(), *c = out[1].get(), *y = out[2].get(), *x = out[3].get();
  if (rd->args[0].node().var.get() != n || rd->args[1].node().var.get() != c)
    user_error("{}: the input's first two indices must be the output's {} and {} (a pooling keeps the batch and the "
               "channels); {}", fname, n->name, c->name, kPoolShape);
  auto rvars = dsl::rvars_of(red->args[0]);
  if (rvars.size() != 2)
    user_error("{}: a pooling reduces over two variables (the window's row and column), `{}` uses {}", fname,
               red->args[0].str(), rvars.size());
  const VarImpl *ry = rvars[0].get(), *rx = rvars[1].get();
  if (linear(rd->args[2]).of(ry) == 0) std::swap(ry, rx);
  for (const VarImpl* r : {ry, rx})
    if (r->min != 0) user_error("{}: the reduction {} must start at 0", fname, r->name);
  Axis ah = axis(fname, rd->args[2], y, ry, "row"), aw = axis(fname, rd->args[3], x, rx, "column");

  ConvGeometry& g = p.g;
  const std::vector<dsl::Bound>& f_bounds = f.impl->bounds;
  std::vector<int64_t> shape = f.shape();
  const auto& ishape = p.input->shape;
  g.n = shape[0], g.c = shape[1], g.oh = shape[2], g.ow = shape[3];
  g.h = ishape[2], g.w = ishape[3], g.kh = ry->extent, g.kw = rx->extent;
  g.sh = ah.stride, g.sw = aw.stride, g.dh = ah.dilation, g.dw = aw.dilation, g.pad_top = ah.pad, g.pad_left = aw.pad;
  if (g.oh == 1) g.sh = 1;  // one output position along an axis never steps: its stride is no limit then
  if (g.ow == 1) g.sw = 1;
  if (ishape[0] != g.n || ishape[1] != g.c)
    user_error("{}: the output is {} x {} (batch x channels) but the input {} is {} x {}; a pooling keeps both", fname,
               g.n, g.c, p.input->name, ishape[0], ishape[1]);
  g.pad_bottom = std::max<int64_t>(0, (g.oh - 1) * g.sh + (g.kh - 1) * g.dh - g.pad_top - (g.h - 1));
  g.pad_right = std::max<int64_t>(0, (g.ow - 1) * g.sw + (g.kw - 1) * g.dw - g.pad_left - (g.w - 1));
  if ((g.pad_bottom || g.pad_right || g.pad_top || g.pad_left) && rd->op != Op::Exterior)
    user_error("{}: the windows read {} outside its shape (padding); read it through "
               "BoundaryConditions::constant_exterior({}, {})", fname, p.input->name, p.input->name,
               p.kind == PoolPlan::Kind::Max ? "-inf" : p.kind == PoolPlan::Kind::Min ? "inf" : "0");
  if (p.kind == PoolPlan::Kind::Sum && p.pad_value != 0 && (g.pad_bottom || g.pad_right || g.pad_top || g.pad_left))
    user_error("{}: a sum (or average) pooling pads with 0 only (its taps over padding are skipped), but {} is read "
               "through constant_exterior({}, {}); use constant_exterior({}, 0)", fname, p.input->name, p.input->name,
               p.pad_value, p.input->name);
  // As torch asks (padding at most half the window): every window holds an element of the input.
  auto empty_window = [](int64_t first, int64_t taps, int64_t dilation, int64_t extent) {
    for (int64_t i = 0; i < taps; ++i)
      if (first + i * dilation >= 0 && first + i * dilation < extent) return false;
    return true;
  };
  // A dilated window's taps can all miss a small input even with padding at most half the window.
  auto every = [](int64_t dilation) { return dilation > 1 ? fmt::format(", taps {} apart,", dilation) : std::string(); };
  // Where a bound() set the output's extent and the windows past output `first` miss the input, the
  // bound is what to change (it once blamed the padding alone).
  // `natural`: the outputs torch's formula gives with the padding on both sides; a bound past it is
  // the user's (the kernels bound the output to it).
  auto fix = [&](int64_t dilation, const VarImpl* v, int64_t first, int64_t extent, int64_t natural) {
    std::string f = dilation > 1 ? "use less padding or a smaller dilation" : "use less padding";
    const bool bounded = std::any_of(f_bounds.begin(), f_bounds.end(), [&](const dsl::Bound& b) { return b.var.get() == v; });
    if (!bounded || first == 0 || extent <= natural) return f;
    return fmt::format("{} outputs along {} have windows that reach the input: bound {} to at most {} ({}.bound({}, 0, "
                       "{})), or {}", first, v->name, v->name, first, fname, v->name, first, f);
  };
  for (int64_t r = 0; r < g.oh; ++r)
    if (empty_window(r * g.sh - g.pad_top, g.kh, g.dh, g.h))
      user_error("{}: output row {} has a window of padding only (rows {}..{}{} of an input of {}); {}", fname, r,
                 r * g.sh - g.pad_top, r * g.sh - g.pad_top + (g.kh - 1) * g.dh, every(g.dh), g.h,
                 fix(g.dh, y, r, g.oh, (g.h + 2 * g.pad_top - g.dh * (g.kh - 1) - 1) / g.sh + 1));
  for (int64_t q = 0; q < g.ow; ++q)
    if (empty_window(q * g.sw - g.pad_left, g.kw, g.dw, g.w))
      user_error("{}: output column {} has a window of padding only (columns {}..{}{} of an input of {}); {}", fname, q,
                 q * g.sw - g.pad_left, q * g.sw - g.pad_left + (g.kw - 1) * g.dw, every(g.dw), g.w,
                 fix(g.dw, x, q, g.ow, (g.w + 2 * g.pad_left - g.dw * (g.kw - 1) - 1) / g.sw + 1));

  if (!vector_type(p.in) || !vector_type(p.acc) || !vector_type(p.out))
    user_error("{}: the vector unit pools f16 and f32 (the input {} is {}, the {} is {} and the result {}): cast to one of "
               "them first", fname, p.input->name, dtype_name(p.in), p.reduction(),
               dtype_name(p.acc), dtype_name(p.out));
  if (p.acc != p.in && dtype_size(p.acc) < dtype_size(p.in))
    user_error("{}: the {} is {} over {} inputs; combine in {} or wider", fname,
               p.reduction(), dtype_name(p.acc), dtype_name(p.in), dtype_name(p.in));
  // A max (min) pooling's output starts at the padding's value (its taps over padding are skipped),
  // which only -inf (+inf) makes right for the windows that read no padding.
  const bool padded = g.pad_bottom || g.pad_right || g.pad_top || g.pad_left;
  if (p.kind != PoolPlan::Kind::Sum && padded) {
    const bool max = p.kind == PoolPlan::Kind::Max;
    if (p.pad_value != (max ? -INFINITY : INFINITY))
      user_error("{}: a {} pooling pads with {} only (as torch does; its taps over padding are skipped and every output "
                 "starts at the padding's value), but {} is read through constant_exterior({}, {}), which would put {} in "
                 "windows that read no padding; use constant_exterior({}, {}) (for a map of values {} {} the result is "
                 "the same)", fname, p.short_name(), max ? "-inf" : "inf", p.input->name, p.input->name, p.pad_value,
                 p.pad_value, p.input->name, max ? "-inf" : "inf", max ? ">=" : "<=", p.pad_value);
  }
  g.c0 = 32 / dtype_size(p.in);
  p.planes = g.n * g.c1();
  // The taps' strides are block strides (at most 255) of up to 8 output positions a repeat.
  const int64_t b = p.blocks(p.acc);
  if (8 * g.sw * b > 255)
    user_error("{}: a column stride of {} is more than the vector unit's block strides reach ({} for {} windows){}",
               fname, g.sw, 255 / (8 * b), dtype_name(p.acc),
               p.in != p.acc ? fmt::format("; pool {} input instead (x.astype(numpy.{}), --dtype {}): its windows reach {}",
                                           dtype_name(p.acc), p.acc == DType::f32 ? "float32" : dtype_name(p.acc),
                                           dtype_name(p.acc), 255 / 8)
                             : std::string());
  if (g.w > 65535 || p.planes * g.h > 4095 * 65535)
    user_error("{}: a {} x {} map is more than the copies' bursts reach", fname, g.h, g.w);
}

// A pooling's tiles are planes (n, c) by bands of output rows (y), all handed to the vector cores
// in turn whichever of those loops cores() names; x, along the rows, is in every tile.
void check_core_loops(const dsl::Func& f, const Directive& d) {
  const auto& args = f.impl->args;
  const std::string can = fmt::format("give it any of {}, {} and {} (the tiles are planes by bands of output rows, all "
                                      "handed to the vector cores in turn)", args[0]->name, args[1]->name, args[2]->name);
  for (const auto& v : d.vars) {
    const auto at = std::find(args.begin(), args.end(), v);
    if (at == args.end())
      user_error("{}.{}: {} is not a loop of {} (its loops: {}, {}, {}, {}); {}", f.name(), d.text, v->name, f.name(),
                 args[0]->name, args[1]->name, args[2]->name, args[3]->name, can);
    if (at + 1 == args.end())
      user_error("{}.{}: {} is {}'s innermost loop, along its rows, which every tile holds whole; {}", f.name(), d.text,
                 v->name, f.name(), can);
  }
}

void read_schedule(const dsl::Func& f, PoolPlan& p, int64_t& rows) {
  for (const Directive& d : f.impl->schedule) {
    switch (d.kind) {
      case Directive::Kind::Cores:
        if (d.factor > 1) user_error("{}.{}: pooling hands tiles to the vector cores in turn; groups are for the cube path", p.name, d.text);
        check_core_loops(f, d);
        p.cores = true;
        break;
      case Directive::Kind::DoubleBuffer:
      case Directive::Kind::MultiBuffer: break;  // vector_copies
      case Directive::Kind::TileRows:
        if (d.factor < 1) user_error("{}.{}: give at least 1 output row", p.name, d.text);
        rows = std::min(d.factor, p.g.oh);
        break;
      default:
        user_error("{}.{}: {} is a pooling on the vector unit, which takes cores(), double_buffer(), multi_buffer(UB, n) "
                   "and tile_rows() (output rows per tile)", p.name, d.text, p.name);
    }
  }
}


// The plan before its tiles: the pooling, the schedule's directives and copies; `rows` the rows a
// tile_rows() asks for (0: none).
PoolPlan untiled(const dsl::Func& f, const ChipConfig& chip, int64_t& rows) {
  PoolPlan p;
  p.name = f.name();
  recognise(f, p);
  read_schedule(f, p, rows);
  p.copies = vector_copies(f.impl->schedule, p.name, chip);
  return p;
}
}  // namespace

bool pool_row_fits(const dsl::Func& f, const ChipConfig& chip) {
  int64_t rows = 0;
  const PoolPlan p = untiled(f, chip, rows);
  return pool_ub_bytes(p, 1, 1) <= chip.buffer_size(Space::UB);
}

PoolPlan plan_pool(const dsl::Func& f, const ChipConfig& chip) {
  int64_t rows = 0;
  PoolPlan p = untiled(f, chip, rows);
  const std::string fewer = fewer_copies(f.impl->schedule);
  const int64_t ub = chip.buffer_size(Space::UB), spread = p.cores ? chip.vector_cores() : 1;
  auto fits = [&](int64_t r, int64_t t) { return pool_ub_bytes(p, r, t) <= ub; };
  if (rows) {
    if (!fits(rows, 1))
      user_error("{}: tiles of {} output rows need {} bytes of UB but {} has {}; use fewer rows per tile{}", p.name, rows,
                 pool_ub_bytes(p, rows, 1), chip.name, ub, fewer.empty() ? "" : " or " + fewer);
    p.rows = rows;
    return p;
  }
  if (!fits(1, 1)) {
    PoolPlan single = p;
    single.copies = 1;
    const bool fewer_fits = !fewer.empty() && pool_ub_bytes(single, 1, 1) <= ub;
    // A window over the whole map, averaged, is each channel's mean: a row reduction reads the map
    // as rows of h x w elements, where pooling holds its C0 channels' rows at once.
    const bool whole_mean = p.kind == PoolPlan::Kind::Sum && p.g.kh == p.g.h && p.g.kw == p.g.w && p.g.oh == 1 &&
                            p.g.ow == 1;
    const std::string two_steps =
        whole_mean ? fmt::format("average each channel's {} elements as a mean over the last axis of the map seen as "
                                 "({}, {}, {}) (the mean kernel: cubekit kernel mean --shape {},{},{}; Python "
                                 "kernels.mean(x, axis=(2, 3), keepdims=True))",
                                 p.g.h * p.g.w, p.g.n, p.g.c, p.g.h * p.g.w, p.g.n, p.g.c, p.g.h * p.g.w)
                   : "pool in two steps, over windows of part of the map and then over their results";
    user_error("{}: one output row of {} positions needs {} bytes of UB but {} has {}; {}", p.name, p.g.ow,
               pool_ub_bytes(p, 1, 1), chip.name, ub,
               fewer_fits ? "the map is too wide for the pooling's tiles (" + fewer + ")"
                          : fmt::format("a tile holds the {} input rows of {} positions its windows read, which UB cannot "
                                        "(with one copy, {} bytes); {}",
                                        std::min(p.g.h, p.in_rows(1)), p.g.w, pool_ub_bytes(single, 1, 1), two_steps));
  }
  if (fits(p.g.oh, 1)) {  // whole planes: as many as fit, and a tile for every core
    p.rows = p.g.oh;
    int64_t most = std::max<int64_t>(1, (p.planes + spread - 1) / spread), t = 1;
    while (t < most && fits(p.g.oh, t + 1)) ++t;
    p.tile_planes = t;
    return p;
  }
  int64_t r = 1;
  const int64_t per_plane = std::max<int64_t>(1, (spread + p.planes - 1) / p.planes);
  const int64_t most = std::max<int64_t>(1, (p.g.oh + per_plane - 1) / per_plane);
  while (r < most && fits(r + 1, 1)) ++r;
  p.rows = r;
  return p;
}

}  // namespace cubekit::sched
