#include "schedules/conv.h"

#include "emulator/error.h"
#include "schedules/affine_index.h"
#include "schedules/loops.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace cubekit::sched {

using dsl::Directive;
using dsl::Expr;
using dsl::ExprNode;
using dsl::Op;
using dsl::VarImpl;

namespace {

const char* kConvShape =
    "the cube's convolution is O(n, k, y, x) = sum(cast(T, P(n, r.x, y*sh + r.y*dh - ph, x*sw + r.z*dw - pw)) * "
    "cast(T, W(k, r.x, r.y, r.z))), P the input or BoundaryConditions::constant_exterior(input, 0)";

const VarImpl* plain_var(const Expr& e) { return e.node().op == Op::Var ? e.node().var.get() : nullptr; }

const Expr& uncast(const Expr& e) { return e.node().op == Op::Cast && !is_float(e.node().type.dtype) ? uncast(e.node().args[0]) : e; }

// A grouped convolution's channel index `k / kg * cg + rc` (either order): kg and cg, or 0, 0.
std::pair<int64_t, int64_t> group_index(const Expr& index, const VarImpl* k, const VarImpl* rc) {
  const ExprNode& n = uncast(index).node();
  if (n.op != Op::Add) return {0, 0};
  for (int side : {0, 1}) {
    if (plain_var(uncast(n.args[size_t(side)])) != rc) continue;
    const ExprNode& m = uncast(n.args[size_t(1 - side)]).node();
    if (m.op != Op::Mul) return {0, 0};
    for (int f : {0, 1}) {
      const ExprNode& d = uncast(m.args[size_t(f)]).node();
      const ExprNode& cg = uncast(m.args[size_t(1 - f)]).node();
      // k / 1 is k (dsl::arith): groups of one output channel, k * cg.
      if (cg.op == Op::Const && cg.value >= 1 && plain_var(uncast(m.args[size_t(f)])) == k) return {1, int64_t(cg.value)};
      if (d.op != Op::Div || cg.op != Op::Const || plain_var(uncast(d.args[0])) != k) continue;
      const ExprNode& kg = uncast(d.args[1]).node();
      if (kg.op == Op::Const && kg.value >= 1 && cg.value >= 1) return {int64_t(kg.value), int64_t(cg.value)};
    }
  }
  return {0, 0};
}

// The spatial index along one axis, within load3d's and set_fmatrix's fields.
Axis spatial(const std::string& fname, const Expr& index, const VarImpl* out, const VarImpl* r, const char* axis) {
  Axis a = window_axis(fname, index, out, r, axis, kConvShape);
  if (a.dilation > 255) user_error("{}: dilation {} along {} is more than load3d's 255", fname, a.dilation, axis);
  if (a.pad > 255) user_error("{}: padding {} along {} is more than set_fmatrix's 255", fname, a.pad, axis);
  return a;
}

}  // namespace

bool is_conv(const dsl::Func& f) {
  if (!f.defined() || f.impl->args.size() != 4) return false;
  const ExprNode* v = strip_cast(f.impl->value.get());
  if (v->op != Op::Sum || v->args[0].node().op != Op::Mul) return false;
  const ExprNode* p = v->args[0].get();
  return affine_read(strip_cast(p->args[0].get())) || affine_read(strip_cast(p->args[1].get()));
}

int64_t conv_input_rows(const ConvGeometry& g, int64_t rows) {
  if (g.skips_rows()) return std::min(g.oh, rows);
  // Stacked images are copied whole, one image's rows after the other's (row_classes.h): a strided
  // 1x1 kernel's windows reach (oh - 1) * sh + 1 of its h rows, but the next image starts h on.
  if (g.images > 1) return g.h;
  return std::min(g.h, (rows - 1) * g.sh + (g.kh - 1) * g.dh + 1);
}

int64_t conv_l1a_bytes(const ConvGeometry& g, int64_t rows, int64_t c1) {
  return c1 * g.images * conv_input_rows(g, rows) * g.w * 32;
}

Contraction recognise_conv(const dsl::Func& f, const ChipConfig& chip) {
  const std::string& fname = f.name();
  Contraction c;
  c.conv = true;
  const ExprNode* v = f.impl->value.get();
  c.out = v->type.dtype;
  v = strip_cast(v);
  c.acc = v->type.dtype;
  const ExprNode* prod = v->args[0].get();
  const Expr *fe = &prod->args[0], *we = &prod->args[1];
  if (!affine_read(strip_cast(fe->get()))) std::swap(fe, we);
  const ExprNode *fm = strip_cast(fe->get()), *wt = strip_cast(we->get());
  if (wt->op != Op::Input || affine_read(wt))
    user_error("{}: the weights `{}` must be an input indexed by plain variables; {}", fname, we->str(), kConvShape);
  if (fm->args.size() != 4 || wt->args.size() != 4)
    user_error("{}: the feature map and the weights are read with 4 indices (NCHW and KCHW); {}", fname, kConvShape);
  if (fm->op == Op::Exterior && fm->value != 0)
    user_error("{}: {} is read through constant_exterior({}, {}); the cube pads a convolution's input with zeros only "
               "(set_fmatrix): use constant_exterior({}, 0)", fname, fm->input->name, fm->input->name, fm->value,
               fm->input->name);
  const auto& out = f.impl->args;
  const VarImpl *n = out[0].get(), *k = out[1].get(), *y = out[2].get(), *x = out[3].get();
  const VarImpl *rc = plain_var(wt->args[1]), *ry = plain_var(wt->args[2]), *rx = plain_var(wt->args[3]);
  if (plain_var(wt->args[0]) != k || !rc || !ry || !rx || !rc->reduction || !ry->reduction || !rx->reduction)
    user_error("{}: index the weights {} as ({}, r.x, r.y, r.z): the output channel, then the reduction's channel, row "
               "and column; {}", fname, wt->input->name, k->name, kConvShape);
  if (plain_var(fm->args[0]) != n)
    user_error("{}: the input's first index must be the output's batch variable {}; {}", fname, n->name, kConvShape);
  auto [kg, cg] = group_index(fm->args[1], k, rc);
  if (plain_var(uncast(fm->args[1])) != rc && !kg)
    user_error("{}: the input's channel index `{}` must be the weights' channel variable {}, or {} / kg * cg + {} for "
               "groups of kg output and cg input channels; {}", fname, fm->args[1].str(), rc->name, k->name, rc->name,
               kConvShape);
  auto rvars = dsl::rvars_of(v->args[0]);
  if (rvars.size() != 3 || rc == ry || ry == rx || rc == rx)
    user_error("{}: a convolution reduces over three variables (channel, kernel row, kernel column), `{}` uses {}", fname,
               v->args[0].str(), rvars.size());
  for (const auto& r : rvars)
    if (r->min != 0) user_error("{}: the reduction {} must start at 0 for the cube", fname, r->name);
  Axis ah = spatial(fname, fm->args[2], y, ry, "row"), aw = spatial(fname, fm->args[3], x, rx, "column");

  ConvGeometry& g = c.g;
  const auto &ishape = fm->input->shape, &wshape = wt->input->shape;
  std::vector<int64_t> shape = f.shape();
  g.n = shape[0], g.c = ishape[1], g.h = ishape[2], g.w = ishape[3];
  g.k = shape[1], g.kh = wshape[2], g.kw = wshape[3], g.oh = shape[2], g.ow = shape[3];
  // The program declares the input in the output's images: fewer (a bound() on the batch) shrank
  // the input's declared shape, and the run then refused the bytes it was given.
  if (ishape[0] != g.n)
    user_error("{}: the output has {} images but the input {} has {}; a convolution keeps the batch: bound nothing on {}, "
               "or give {} the images you want", fname, g.n, fm->input->name, ishape[0], n->name, fm->input->name);
  if (kg) {
    if (g.k % kg || g.c % cg || g.k / kg != g.c / cg)
      user_error("{}: `{}` makes groups of {} output and {} input channels, but the output has {} and the input {} "
                 "channels: the group counts ({} and {}) must be equal", fname, fm->args[1].str(), kg, cg, g.k, g.c,
                 g.k / kg, g.c / cg);
    g.groups = g.k / kg, g.k = kg, g.c = cg;
  }
  g.sh = ah.stride, g.sw = aw.stride, g.dh = ah.dilation, g.dw = aw.dilation, g.pad_top = ah.pad, g.pad_left = aw.pad;
  // One output position along an axis never steps: its stride, past load3d's, is no limit then. It
  // becomes the smallest that still makes one position (load3d writes every position of a row).
  auto one_step = [](int64_t stride, int64_t extent, int64_t pad, int64_t kernel, int64_t dilation) {
    const int64_t window = (kernel - 1) * dilation + 1, span = extent + pad + std::max<int64_t>(0, window - 1 - pad - (extent - 1));
    return std::min(stride, std::max<int64_t>(1, span - window + 1));
  };
  if (g.oh == 1) g.sh = one_step(g.sh, g.h, g.pad_top, g.kh, g.dh);
  if (g.ow == 1) g.sw = one_step(g.sw, g.w, g.pad_left, g.kw, g.dw);
  for (auto [stride, axis] : {std::pair{g.sh, "row"}, std::pair{g.sw, "column"}})
    if (stride > 63) user_error("{}: stride {} along {} is more than load3d's 63", fname, stride, axis);
  if (rc->extent != g.c || wshape[1] != g.c)
    user_error("{}: the reduction {} has {} iterations and {} has {} channels, but the input {} has {}; a convolution "
               "sums over every input channel", fname, rc->name, rc->extent, wt->input->name, wshape[1],
               fm->input->name, g.c);
  if (ry->extent != g.kh || rx->extent != g.kw)
    user_error("{}: the reductions {} and {} have {} and {} iterations but the kernel {} is {} x {}", fname, ry->name,
               rx->name, ry->extent, rx->extent, wt->input->name, g.kh, g.kw);
  if (wshape[0] != g.k * g.groups)
    user_error("{}: the output has {} channels but the weights {} have {} filters", fname, g.k * g.groups,
               wt->input->name, wshape[0]);
  if (g.kh > 255 || g.kw > 255) user_error("{}: a {} x {} kernel is more than load3d's 255", fname, g.kh, g.kw);
  if (g.h > 65535 || g.w > 65535) user_error("{}: a {} x {} feature map is more than set_fmatrix's 65535", fname, g.h, g.w);
  g.pad_bottom = std::max<int64_t>(0, (g.oh - 1) * g.sh + (g.kh - 1) * g.dh - g.pad_top - (g.h - 1));
  g.pad_right = std::max<int64_t>(0, (g.ow - 1) * g.sw + (g.kw - 1) * g.dw - g.pad_left - (g.w - 1));
  if ((g.pad_bottom || g.pad_right || g.pad_top || g.pad_left) && fm->op != Op::Exterior)
    user_error("{}: the convolution reads {} outside its shape (padding); read it through "
               "BoundaryConditions::constant_exterior({}, 0) (Python: ck.constant_exterior({}, 0))", fname, fm->input->name,
               fm->input->name, fm->input->name);
  if (g.pad_bottom > 255 || g.pad_right > 255)
    user_error("{}: the output reads {} rows and {} columns of padding past the input, more than set_fmatrix's 255",
               fname, g.pad_bottom, g.pad_right);
  int64_t full_w = (g.w + g.pad_left + g.pad_right - (g.kw - 1) * g.dw - 1) / g.sw + 1;
  if (full_w != g.ow)
    user_error("{}: the output is {} columns wide but the convolution makes {}; load3d writes whole rows: bound {} to "
               "0..{}", fname, g.ow, full_w, x->name, full_w);
  for (int64_t r = 0; r < g.oh; ++r)
    if (r * g.sh + (g.kh - 1) * g.dh - g.pad_top < 0 || r * g.sh - g.pad_top > g.h - 1)
      user_error("{}: output row {} reads only padding (the window rows {}..{} miss the input's 0..{}); the kernel "
                 "takes padding of at most (kernel - 1) x dilation = {} rows, which every output row overlaps the input "
                 "with (torch's rows of padding alone are the epilogue of 0: pad the input with zeros instead)",
                 fname, r, r * g.sh - g.pad_top, r * g.sh - g.pad_top + (g.kh - 1) * g.dh, g.h - 1, (g.kh - 1) * g.dh);

  c.a = fm->input, c.b = wt->input;
  c.in = c.a->dtype;
  if (c.b->dtype != c.in)
    user_error("{}: {} is {} and {} is {}; the cube multiplies two inputs of one type", fname, c.a->name,
               dtype_name(c.in), c.b->name, dtype_name(c.b->dtype));
  const CubeFractal* frac = chip.fractal(c.in);
  if (!frac) user_error("{}: the cube of {} does not multiply {} (the type of {})", fname, chip.name, dtype_name(c.in), c.a->name);
  DType cast_a = fe->node().type.dtype, cast_b = we->node().type.dtype;
  if (cast_a != frac->accumulator || cast_b != frac->accumulator || c.acc != frac->accumulator)
    user_error("{}: the cube accumulates {} products in {}: write sum(cast({}, {}(..)) * cast({}, {}(..)))", fname,
               dtype_name(c.in), dtype_name(frac->accumulator), dtype_name(frac->accumulator), c.a->name,
               dtype_name(frac->accumulator), c.b->name);
  check_cube_output(fname, c.acc, c.out, chip);
  g.c0 = 32 / dtype_size(c.in);
  c.batch = {g.n};
  c.batch_vars = {out[0]};
  if (g.groups > 1) c.batch.push_back(g.groups);  // a batch dimension with no variable of its own
  c.mv = out[2], c.nv = out[1];
  for (const auto& r : rvars)
    if (r.get() == rc) c.kv = r;
  c.m = g.oh * g.ow, c.n = g.k16(), c.k = g.c1() * g.window();
  return c;
}

namespace {

// The deepest L0 fill (a multiple of C0 dividing the L1 fill, so that no fill is partial) whose
// L0A and L0B copies fit.
int64_t l0_depth(const ContractionPlan& p, const ChipConfig& chip) {
  int64_t s = dtype_size(p.c.in), copies = p.double_buffer ? 2 : 1;
  int64_t m16 = round_up(p.tm, 16), n16 = round_up(p.tn, 16);
  for (int64_t d = p.tk_l1 / p.c0; d >= 1; --d) {
    int64_t k0 = d * p.c0;
    if (p.tk_l1 % k0) continue;
    if (m16 * k0 * s * copies <= chip.buffer_size(Space::L0A) && k0 * n16 * s * copies <= chip.buffer_size(Space::L0B))
      return k0;
  }
  user_error("{}: one {}-column fill of L0A for {} output positions ({} x {} bytes{}) or of L0B for {} channels does not "
             "fit {} (L0A {}, L0B {} bytes): use fewer output rows or channels per tile{}",
             p.func_name, p.c0, p.tm, m16 * p.c0 * s, copies, copies > 1 ? ", two copies" : "", p.tn, chip.name,
             chip.buffer_size(Space::L0A), chip.buffer_size(Space::L0B), copies > 1 ? ", or drop double_buffer()" : "");
}

}  // namespace

ContractionPlan plan_conv(const dsl::Func& f, const ChipConfig& chip) {
  const std::string& fname = f.name();
  ContractionPlan p;
  p.func_name = fname;
  p.c = recognise_conv(f, chip);
  const ConvGeometry& g = p.c.g;
  p.c0 = g.c0;
  p.split = chip.split();
  p.bf16 = writes_bf16(chip);
  LoopNest nest = build_loop_nest(f);
  const Directive* multi = nullptr;
  for (const Directive& d : f.impl->schedule) {
    switch (d.kind) {
      case Directive::Kind::Cube:
      case Directive::Kind::Stage:
        user_error("{}.{}: a convolution's stages are fixed (input rows and weights in L1, img2col into L0A by load3d, "
                   "weights into L0B); choose its tiles with split(y, ..), split(k, ..) and split(r.x, ..)", fname, d.text);
      case Directive::Kind::StoreIn:
        if (d.level != dsl::Level::L0C) user_error("{}.{}: the cube accumulates in L0C", fname, d.text);
        break;
      case Directive::Kind::TileRows: user_error("{}.{}: tile_rows is for the vector path", fname, d.text);
      case Directive::Kind::DoubleBuffer: p.double_buffer = true; break;
      case Directive::Kind::Stagger: p.stagger = true; break;
      case Directive::Kind::MultiBuffer: multi = &d; break;
      default: break;
    }
  }
  p.l1_copies = cube_l1_copies(fname, multi, p.double_buffer, chip);

  // Which loops are tiles: the batch, and the outer halves of the splits of y and k.
  const VarImpl *n = f.impl->args[0].get(), *k = f.impl->args[1].get(), *y = f.impl->args[2].get();
  int64_t rows = g.oh, tn = g.k16(), channels = g.c, images = 1;
  bool n_split = false;  // images per tile: the inner loop of n's split is inside the tile
  for (const Loop& l : nest.loops) n_split |= l.origin.get() == n && l.factor > 0;
  std::map<const VarImpl*, int> splits;
  std::vector<int> tile_at;
  for (size_t i = 0; i < nest.loops.size(); ++i) {
    const Loop& l = nest.loops[i];
    const VarImpl* o = l.origin.get();
    if (l.factor && ++splits[o] > 1)
      user_error("{}: {} is split twice; a convolution's tiles split y, k and the channel reduction once each", fname, o->name);
    if (l.factor && o != y && o != k && o != p.c.kv.get() && o != n)
      user_error("{}: {} cannot be split: a convolution's tiles split only {} (images per tile), {} (output rows per "
                 "tile), {} (output channels per tile) and {} (input channels per L1 fill)", fname, o->name, n->name,
                 y->name, k->name, p.c.kv->name);
    if (o == n && l.factor) images = std::min(l.factor, g.n);
    if (o == y && l.factor) rows = std::min(l.factor, g.oh);  // a factor past the rows: one tile of them all
    if (o == k && l.factor) tn = l.factor;
    if (o == p.c.kv.get() && l.factor) channels = l.factor;
    bool tile = (o == n && (l.factor || !n_split)) || (l.factor && (o == y || o == k));
    if (tile) tile_at.push_back(int(i));
  }
  if (images > 1 && !g.stackable())
    user_error("{}: split({}, .., {}) stacks {} images into one tile, which load3d reads as one map only when no window "
               "crosses from one image into the next: no padding along the height and output rows x stride = input "
               "rows; this one pads {} and {} rows and makes {} rows of stride {} from {}", fname, n->name, images, images,
               g.pad_top, g.pad_bottom, g.oh, g.sh, g.h);
  if (images > 1 && rows < g.oh)
    user_error("{}: split({}, .., {}) stacks whole images into a tile; do not split {} as well", fname, n->name, images,
               y->name);
  p.c.g.images = images;
  // A strided 1x1 kernel over a tile of one image's every row reads every sh-th row in one copy
  // (ConvGeometry::skips_rows): half (a third, ...) the bytes of its whole rows. A tile of part
  // of an image, or of several, would need a copy per row or per image and block instead. Measured
  // on ResNet-50's downsamples at batch 32 (timing-only): layer2's (tiles of 9 of 28 rows, a copy
  // per row) 12% faster on the 910 and 25% on the 950 but 7% slower on the 910B2, whose short HBM
  // runs move at hbm_scattered_efficiency; layer4's (5 images a tile) 1.7x slower on the 910 and
  // 910B2. So those read whole rows: a choice per chip and shape, for a tuner.
  p.c.g.row_skipping = g.kh == 1 && g.sh > 1 && g.pad_top == 0 && g.pad_bottom == 0 && images == 1 && rows >= g.oh &&
                       g.h == g.oh * g.sh;
  for (size_t t = 0; t < tile_at.size(); ++t)
    if (tile_at[t] != int(t)) {  // name the tile loops this schedule has (k's outer loop only if k is split)
      std::string tiles;
      for (int at : tile_at) tiles += (tiles.empty() ? "" : ", ") + nest.loops[size_t(at)].name();
      user_error("{}: the tile loops ({}) must be outermost, in any order (the loops are {}); reorder them out, or "
                 "split {} or {} to tile them", fname, tiles, nest.str(), y->name, k->name);
    }
  if (nest.cores > int(tile_at.size()))
    user_error("{}: cores take tile loops only ({}, and the outer loops of {} and {}); the loops are {}", fname, n->name,
               y->name, k->name, nest.str());
  if (tn % 16 && tn < g.k)
    user_error("{}: {} output channels per tile is not a multiple of 16 (the cube's fractal edge)", fname, tn);
  if (channels % g.c0 && channels < g.c)
    user_error("{}: {} input channels per L1 fill is not a multiple of {} (C0: the channels of one 32-byte block of {})",
               fname, channels, g.c0, dtype_name(p.c.in));
  if (tn >= g.k) tn = g.k16();  // one tile across (a factor past k is clamped to k)
  if (channels >= g.c) channels = g.c1() * g.c0;
  for (int at : tile_at) {
    const Loop& l = nest.loops[size_t(at)];
    ContractionPlan::TileLoop t{ContractionPlan::Dim::Batch, 0, l.extent, l.name()};
    if (l.origin.get() == y) t.dim = ContractionPlan::Dim::M;
    if (l.origin.get() == k) t.dim = ContractionPlan::Dim::N, t.extent = (g.k16() + tn - 1) / tn;
    p.tile_loops.push_back(t);
  }
  check_one_tile_loop_each(p, fname, y->name, k->name);
  p.core_loops = nest.cores;
  // The groups: a tile loop of their own, inside the images' (and on cores with them).
  if (g.groups > 1) {
    size_t at = 0;
    while (at < p.tile_loops.size() && p.tile_loops[at].dim != ContractionPlan::Dim::Batch) ++at;
    p.tile_loops.insert(p.tile_loops.begin() + int(at) + 1, {ContractionPlan::Dim::Batch, 1, g.groups, "group"});
    if (p.core_loops > int(at)) ++p.core_loops;
  }
  p.core_group = nest.core_group;
  p.tm = images * rows * g.ow;
  p.tn = tn;
  if (round_up(p.tm, 16) > 65535)
    user_error("{}: {} output rows of {} positions per tile are more than load3d's 65535: split {} finer", fname, rows,
               g.ow, y->name);
  p.tk_l1 = std::min(g.c1(), (channels + g.c0 - 1) / g.c0) * g.window();
  p.tk_l0 = l0_depth(p, chip);
  p.tk_mmad = p.tk_l0;
  int64_t per_column = round_up(p.tm, 16) * dtype_size(p.c.out) * (p.double_buffer ? 2 : 1);
  p.strip = std::clamp<int64_t>(chip.buffer_size(Space::UB) / per_column / 16 * 16, 16, round_up(p.tn, 16));

  int64_t s = dtype_size(p.c.in), c1n = p.tk_l1 / g.window();
  int64_t l1 = (conv_l1a_bytes(g, rows, c1n) + p.tk_l1 * round_up(p.tn, 16) * s) * p.l1_copies;
  if (l1 > chip.buffer_size(Space::L1))
    user_error("{}: staging {} input rows of {} channel blocks and their weights needs {} bytes of L1{} but {} has {}; "
               "fill L1 with fewer input channels (split {}), use fewer output rows or channels per tile, or fewer "
               "copies", fname, conv_input_rows(g, rows), c1n, l1,
               p.l1_copies > 1 ? fmt::format(" ({} copies)", p.l1_copies) : "", chip.name, chip.buffer_size(Space::L1),
               p.c.kv->name);
  int64_t l0c = round_up(p.tm, 16) * round_up(p.tn, 16) * 4;
  if (l0c > chip.buffer_size(Space::L0C))
    user_error("{}: the {} x {} accumulator tile needs {} bytes of L0C but {} has {}; use fewer output rows or channels "
               "per tile", fname, p.tm, p.tn, l0c, chip.name, chip.buffer_size(Space::L0C));
  if (!p.split && round_up(p.tm, 16) * p.strip * dtype_size(p.c.out) * (p.double_buffer ? 2 : 1) > chip.buffer_size(Space::UB))
    user_error("{}: the output strips of {} x 16 do not fit {}'s UB; use fewer output rows per tile", fname, p.tm, chip.name);
  return p;
}

}  // namespace cubekit::sched
