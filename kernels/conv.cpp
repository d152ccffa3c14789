#include "kernels/conv.h"
#include "kernels/defaults.h"
#include "kernels/tuned.h"

#include "emulator/checked_math.h"
#include "emulator/error.h"
#include "schedules/conv.h"

#include <fmt/format.h>

#include <algorithm>

namespace cubekit::kernels {

using dsl::Level;
using dsl::LoopVar;
using sched::round_up;

namespace {
// in + 2 pad and dilation (kernel - 1), or nullopt where they or the window's extent (that + 1)
// overflow (sizes a user gives reach INT64_MAX; all are at least 0 once the options are checked).
std::optional<std::pair<int64_t, int64_t>> padded_and_reach(int64_t in, int64_t kernel, int64_t pad, int64_t dilation) {
  const std::optional<int64_t> twice = checked_mul(pad, 2), reach = checked_mul(dilation, kernel - 1);
  const std::optional<int64_t> padded = twice ? checked_add(in, *twice) : std::nullopt;
  if (!padded || !reach || !checked_add(*reach, 1)) return std::nullopt;
  return std::pair{*padded, *reach};
}
}  // namespace

void check_window_fits(const char* what, int64_t in, int64_t kernel, int64_t pad, int64_t dilation) {
  if (!padded_and_reach(in, kernel, pad, dilation))
    user_error("{}: a window of {} taps {} apart over {} elements padded by {} on each side overflows 64 bits; give sizes "
               "that fit", what, kernel, dilation, in, pad);
}

int64_t conv_output_extent(int64_t in, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation) {
  const auto fit = padded_and_reach(in, kernel, pad, dilation);
  CUBEKIT_ASSERT(fit, "conv_output_extent of sizes that overflow (check_window_fits first)");
  const int64_t span = fit->first - fit->second - 1;
  return span < 0 ? 0 : span / stride + 1;
}

namespace {

// K columns an L1 fill aims at (as matmul's 512, see kernels/matmul.cpp), and the most positions
// a tile takes (matmul's largest m tile).
constexpr int64_t kL1Columns = 512, kMaxPositions = 256;
// Matmul's chunks of K (kernels/matmul.cpp: 16 chunks of at least 64 columns, measured there).
constexpr int64_t kMinL1Chunks = 16, kMinL1Chunk = 64;

struct Tiles {
  int64_t rows = 1, tn = 16, images = 1;
};

// The fewest waves of tiles over the cores, then the biggest tiles (less traffic per MAC), as
// matmul's choose_tiles; a tile is whole output rows of one image, or (`stack`: a stackable conv)
// several whole images, whose positions then pad to the fractal's 16 rows once, not per image.
Tiles choose_tiles(const sched::ConvGeometry& g, const ChipConfig& chip, int cores, int64_t copies, int64_t s, bool stack,
                   int64_t row_multiple) {
  Tiles best{0, 0};
  double best_cost = 1e300;
  for (int64_t rows = 1, images = 1; rows <= g.oh && images <= g.n; rows < g.oh ? ++rows : ++images) {
    if (images > 1 && !stack) break;
    int64_t m16 = round_up(images * rows * g.ow, 16);
    if (m16 > kMaxPositions && (rows > 1 || images > 1)) break;
    if (m16 * g.c0 * s * copies > chip.buffer_size(Space::L0A)) break;
    if (rows < g.oh && rows % row_multiple) continue;  // a second output keeps every row_multiple-th row
    for (int64_t tn = 16; tn <= std::min<int64_t>(256, g.k16()); tn += 16) {
      if (m16 * tn * 4 > chip.buffer_size(Space::L0C)) continue;
      int64_t tiles = (g.n + images - 1) / images * g.groups * ((g.oh + rows - 1) / rows) * ((g.k16() + tn - 1) / tn);
      int64_t waves = (tiles + cores - 1) / cores;
      double cost = double(waves) * double(m16 * tn) * (1.0 + 32.0 * double(m16 + tn) / double(m16 * tn));
      if (cost < best_cost) best_cost = cost, best = {rows, tn, images};
    }
  }
  if (!best.rows && row_multiple > 1)
    user_error("conv2d: chip '{}' cannot hold {} output rows of {} positions (tiles of whole multiples of the second "
               "output's stride, subsampled={}) in its L0A/L0C", chip.name, row_multiple, g.ow, row_multiple);
  if (!best.rows) {
    // A tile is whole output rows: the widest row one L0A copy (its positions x C0) and L0C (x 16
    // f32 channels) hold.
    const int64_t widest = std::min(chip.buffer_size(Space::L0A) / (g.c0 * s * copies), chip.buffer_size(Space::L0C) / 64) / 16 * 16;
    user_error("conv2d: chip '{}' cannot hold one output row of {} positions in its L0A/L0C ({} copies); a tile is whole "
               "output rows, and the most it holds is {} positions: convolve the image in strips of at most {} output "
               "columns (each reading its kernel's halo){}", chip.name, g.ow, copies, widest, widest,
               copies > 1 ? ", or without double buffering" : "");
  }
  return best;
}

void check_options(const Conv2dOptions& o) {
  // Indices are 32-bit: a larger value wrapped inside the lowering (a stride of 2^32 + 1 read as 1).
  for (auto [name, v] : {std::pair<const char*, int64_t>{"n", o.n}, {"c", o.c}, {"h", o.h}, {"w", o.w}, {"k", o.k},
                         {"kh", o.kh}, {"kw", o.kw}, {"stride", o.stride}, {"stride_w", o.stride_w}, {"dilation", o.dilation},
                         {"dilation_w", o.dilation_w}, {"pad", o.pad}, {"pad_w", o.pad_w}, {"groups", o.groups},
                         {"subsampled", o.subsampled}, {"rows", o.rows}, {"tn", o.tn}, {"channels", o.channels},
                         {"l1_copies", o.l1_copies}, {"images", o.images}})
    if (v > INT32_MAX) user_error("conv2d: {} {} is past 2^31 - 1, the largest index the compiler takes", name, v);
  for (auto [name, v] : {std::pair<const char*, int64_t>{"n", o.n}, {"c", o.c}, {"h", o.h}, {"w", o.w}, {"k", o.k},
                         {"kh", o.kh}, {"kw", o.kw}, {"stride", o.stride}, {"dilation", o.dilation}, {"groups", o.groups}})
    if (v < 1) user_error("conv2d: {} must be at least 1, got {}", name, v);
  for (auto [name, v] : {std::pair<const char*, int64_t>{"stride_w", o.stride_w}, {"dilation_w", o.dilation_w}})
    if (v < 0) user_error("conv2d: {} must be at least 1 (or 0: as along the height), got {}", name, v);
  if (o.pad < 0) user_error("conv2d: padding must be 0 or more, got {}", o.pad);
  if (o.pad_w < -1) user_error("conv2d: pad_w must be 0 or more (or -1: as along the height), got {}", o.pad_w);
  for (auto [name, v] : {std::pair<const char*, int64_t>{"rows", o.rows}, {"tn", o.tn}, {"channels", o.channels},
                         {"l1_copies", o.l1_copies}, {"images", o.images}})
    if (v < 0) user_error("conv2d: {} must be at least 1 (or 0 to let the schedule choose), got {}", name, v);
  if (o.subsampled == 1)
    user_error("conv2d: subsampled=1 would copy the whole output; give the stride of the convolution that reads it "
               "(2 or more), or 0 for no second output");
  if (o.subsampled < 0)
    user_error("conv2d: subsampled must be 0 (no second output) or the stride of the convolution that reads it (2 or "
               "more), got {}", o.subsampled);
  if (o.subsampled > 1 && dtype_size(o.out) != 2)  // (store_with's message named its Funcs)
    user_error("conv2d: subsampled={} writes a second output gathered 16 channels (32 B) a position, so it needs a "
               "16-bit output: give out f16 or bf16 (--out; Python out=), not {}", o.subsampled, dtype_name(o.out));
  if (o.tn % 16 && o.tn < o.k / o.groups)  // (cube()'s message named its loops); a tile past K is one tile of K
    user_error("conv2d: tn {} is not a multiple of 16, the cube's fractal edge (--tn; Python tn=)", o.tn);
  if (o.c % o.groups || o.k % o.groups)
    user_error("conv2d: groups={} must divide the input channels ({}) and the output channels ({})", o.groups, o.c, o.k);
  for (const std::string& step : o.epilogue)
    if (step != "bn" && step != "relu" && step != "residual")
      user_error("conv2d: unknown epilogue step '{}'; the steps are bn, residual and relu", step);
  if (!o.epilogue.empty() && o.in == DType::s8)
    user_error("conv2d: epilogues run on f32 accumulators; an s8 convolution's s32 result has none (dequantise it in "
               "a vector kernel)");
  check_window_fits("conv2d", o.h, o.kh, o.pad, o.dilation);
  check_window_fits("conv2d", o.w, o.kw, o.pw(), o.dw());
  if (conv_output_extent(o.h, o.kh, o.stride, o.pad, o.dilation) < 1 || conv_output_extent(o.w, o.kw, o.sw(), o.pw(), o.dw()) < 1)
    user_error("conv2d: the {} x {} kernel (dilation {} x {}) is larger than the {} x {} input padded by {} x {}", o.kh,
               o.kw, o.dilation, o.dw(), o.h, o.w, o.pad, o.pw());
}

}  // namespace

namespace {
Conv2d defined(const Conv2dOptions& o, const ChipConfig& chip, const std::optional<tune::Tuned>& tuned);
}  // namespace

Conv2d conv2d(const Conv2dOptions& options, const ChipConfig& chip) {
  check_chip(chip);  // a config changed in C++: its figures divide the schedule's sizes
  Conv2dOptions o = options;
  const std::optional<tune::Tuned> tuned = take_tuned(o, chip);
  return with_tuned(tuned, [&] { return defined(o, chip, tuned); });
}

namespace {

Conv2d defined(const Conv2dOptions& o, const ChipConfig& chip, const std::optional<tune::Tuned>& tuned) {
  check_options(o);
  const CubeFractal* frac = chip.fractal(o.in);
  if (!frac) user_error("conv2d: the cube of {} does not multiply {}", chip.name, dtype_name(o.in));
  const bool vector_epilogue = std::any_of(o.epilogue.begin(), o.epilogue.end(),
                                           [](const std::string& s) { return s == "bn" || s == "residual"; });
  if (o.subsampled > 1 && chip.split() && !vector_epilogue)  // (store_with's message named its Funcs)
    user_error("conv2d: subsampled={} on {}: the second output is gathered by the vector cores, which a convolution "
               "computes on only with a bn or residual epilogue; add one (--epilogue; Python bn=, residual=), or give "
               "the strided convolution that follows the whole output", o.subsampled, chip.name);
  const DType acc = frac->accumulator;
  sched::check_cube_output("conv2d", acc, o.out, chip);
  int64_t oh = conv_output_extent(o.h, o.kh, o.stride, o.pad, o.dilation);
  int64_t ow = conv_output_extent(o.w, o.kw, o.sw(), o.pw(), o.dw());
  const int64_t cg = o.c / o.groups, kg = o.k / o.groups;
  Conv2d cv{dsl::Input("X", o.in, {o.n, o.c, o.h, o.w}), dsl::Input("W", o.in, {o.k, cg, o.kh, o.kw}), std::nullopt,
            std::nullopt, std::nullopt, dsl::Func(o.epilogue.empty() ? "Y" : "conv"), dsl::Func("Y")};
  dsl::Var n("n"), k("k"), y("y"), x("x");
  dsl::RDom r({{0, cg}, {0, o.kh}, {0, o.kw}}, "r");
  dsl::Expr channel = o.groups > 1 ? k / int(kg) * int(cg) + r.x : dsl::Expr(r.x);
  dsl::Expr iy = y * int(o.stride) + r.y * int(o.dilation) - int(o.pad);
  dsl::Expr ix = x * int(o.sw()) + r.z * int(o.dw()) - int(o.pw());
  dsl::Expr read = o.pad || o.pw() ? dsl::BoundaryConditions::constant_exterior(cv.x, 0)(n, channel, iy, ix) : cv.x(n, channel, iy, ix);
  dsl::Expr value = dsl::sum(dsl::cast(acc, read) * dsl::cast(acc, cv.w(k, r.x, r.y, r.z)));
  if (o.out != acc && o.epilogue.empty()) value = dsl::cast(o.out, value);
  cv.conv(n, k, y, x) = value;
  cv.conv.bound(y, 0, oh).bound(x, 0, ow);
  cv.conv.schedule() = conv_schedule(cv.conv, chip, o, &cv.tiling);
  cv.out = cv.conv;
  auto subsample = [&] {
    if (o.subsampled < 2) return;
    const int64_t s = o.subsampled;
    cv.sub = dsl::Func("Ys");
    (*cv.sub)(n, k, y, x) = cv.out(n, k, y * int(s), x * int(s));
    cv.sub->bound(y, 0, (oh + s - 1) / s).bound(x, 0, (ow + s - 1) / s);
    cv.sub->store_with(cv.out);
  };
  if (o.epilogue.empty()) {
    subsample();
    cv.tuned = tuned;
    return cv;
  }
  dsl::Expr e = cv.conv(n, k, y, x);
  for (const std::string& step : o.epilogue) {
    if (step == "bn") {
      if (!cv.scale) cv.scale = dsl::Input("scale", DType::f32, {o.k}), cv.shift = dsl::Input("shift", DType::f32, {o.k});
      e = e * (*cv.scale)(k) + (*cv.shift)(k);
    } else if (step == "residual") {
      if (!cv.residual) cv.residual = dsl::Input("R", o.out, {o.n, o.k, oh, ow});
      e = e + dsl::cast(DType::f32, (*cv.residual)(n, k, y, x));
    } else {
      e = dsl::max(e, 0.0);
    }
  }
  if (o.out != DType::f32) e = dsl::cast(o.out, e);
  cv.out = dsl::Func("Y");
  cv.out(n, k, y, x) = e;
  cv.out.epilogue_of(cv.conv);
  subsample();
  cv.tuned = tuned;
  return cv;
}

}  // namespace

dsl::Schedule conv_schedule(const dsl::Func& f, const ChipConfig& chip, const Conv2dOptions& o, ConvTiling* chosen) {
  sched::Contraction c = sched::recognise_conv(f, chip);
  sched::ConvGeometry& g = c.g;
  const bool naive = o.schedule == Conv2dOptions::Schedule::Naive;
  const bool cores = o.use_cores.value_or(!naive), db = double_buffer_or_default(o.double_buffer, naive, chip);
  const int64_t copies = db ? 2 : 1, s = dtype_size(c.in);
  // Whole images stacked per tile where load3d can read them as one map (o.images 1: never).
  const bool stack = g.stackable() && o.images != 1 && !o.rows;
  Tiles t = naive ? Tiles{std::max<int64_t>(1, std::min(g.oh, 64 / g.ow)), std::min<int64_t>(64, g.k16())}
                  : choose_tiles(g, chip, cores ? chip.cores : 1, copies, s, stack, std::max<int64_t>(1, o.subsampled));
  if (naive && o.subsampled > 1 && t.rows < g.oh) t.rows = std::max(o.subsampled, t.rows / o.subsampled * o.subsampled);
  if (o.rows) t.rows = std::min(o.rows, g.oh);
  if (o.tn) t.tn = o.tn;
  if (o.images > 1 && !g.stackable()) {  // said by what fails: the padding, or the rows the windows leave
    const std::string why = g.pad_top || g.pad_bottom
                                ? fmt::format("this one pads the height ({} rows above, {} below)", g.pad_top, g.pad_bottom)
                                : fmt::format("output rows x stride is {} x {}, not the {} input rows", g.oh, g.sh, g.h);
    user_error("conv2d: images={} stacks images per tile, which needs windows that tile the rows (no padding along the "
               "height, output rows x stride = input rows): {}; give images=1", o.images, why);
  }
  if (o.images > 1 && o.rows && o.rows < g.oh)
    user_error("conv2d: images={} stacks whole images per tile; rows={} splits them: give one of the two", o.images, o.rows);
  if (o.images > 1) t.images = std::min(o.images, g.n), t.rows = g.oh;
  g.images = t.images;
  // Channel blocks per L1 fill: about kL1Columns of K, as many copies as hide a fill (matmul's
  // choice), fewer of both while they do not fit.
  sched::check_l1_copies_option("conv2d", o.l1_copies, chip);
  int l1_copies = o.l1_copies ? o.l1_copies : (db ? std::min(4, chip.event_ids) : 1);
  auto l1_bytes = [&](int64_t c1n, int cps) {
    return (sched::conv_l1a_bytes(g, t.rows, c1n) + c1n * g.window() * round_up(std::min(t.tn, g.k16()), 16) * s) * cps;
  };
  int64_t c1n = naive ? 1 : std::clamp<int64_t>(kL1Columns / g.window(), 1, g.c1());
  // An unstrided 1x1 convolution with one image a tile fills L1 as a GEMM fills A: matmul's rule
  // (kMinL1Chunks chunks of at least kMinL1Chunk columns when K allows, kernels/matmul.cpp) holds
  // for it from 256 input channels on, on the coupled core. Fitted to ResNet-50's 1x1 layers
  // (bench/run.py resnet50): 1.0-1.2x faster there on the 910 (its network 2.4% faster); slower for
  // stacked images and strided convolutions (a copy per image or skipped row per chunk), and on the
  // split presets 1.1-1.2x slower for the same layers (their network 1.3% slower on the 910B2).
  if (!naive && !chip.split() && g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && t.images == 1 &&
      g.c1() * g.c0 >= 4 * kMinL1Chunk) {
    const int64_t columns = std::max(kMinL1Chunk, (g.c1() * g.c0 + kMinL1Chunks - 1) / kMinL1Chunks);
    c1n = std::min(c1n, std::max<int64_t>(1, (columns + g.c0 - 1) / g.c0));
  }
  while (c1n > 1 && l1_bytes(c1n, l1_copies) > chip.buffer_size(Space::L1)) --c1n;
  while (!o.l1_copies && l1_copies > int(copies) && l1_bytes(c1n, l1_copies) > chip.buffer_size(Space::L1)) --l1_copies;
  int64_t channels = o.channels ? o.channels : c1n * g.c0;

  dsl::Schedule sc;
  dsl::Var n(f.impl->args[0]), k(f.impl->args[1]), y(f.impl->args[2]), x(f.impl->args[3]);
  dsl::Var yo("yo"), yi("yi"), ko("ko"), ki("ki");
  dsl::RVar rc(c.kv), rco("rco"), rci("rci");
  dsl::Var no("no"), ni("ni");
  std::vector<LoopVar> order = {x}, tiles = {n};  // innermost first; tile loops outermost first
  if (t.images > 1) sc.split(n, no, ni, t.images), tiles = {no};
  if (t.rows < g.oh) {
    sc.split(y, yo, yi, t.rows);
    order.push_back(yi);
    tiles.push_back(yo);
  } else {
    order.push_back(y);
  }
  if (t.tn < g.k) {
    sc.split(k, ko, ki, t.tn);
    order.push_back(ki);
    tiles.push_back(ko);
  } else {
    order.push_back(k);
  }
  if (channels < g.c) sc.split(rc, rco, rci, channels);
  if (t.images > 1) order.push_back(ni);  // the tile's images, inside the tile loops
  // Pure loops innermost first: the tile's, then the tile loops (k's, y's, then n outermost).
  for (auto it = tiles.rbegin(); it != tiles.rend(); ++it) order.push_back(*it);
  sc.reorder(order);
  if (cores) sc.cores(tiles);
  if (db) sc.double_buffer();
  if (l1_copies != copies) sc.multi_buffer(Level::L1, l1_copies);
  if (chosen) *chosen = {std::min(t.rows, g.oh), t.tn, channels, t.images, l1_copies};
  return sc;
}

}  // namespace cubekit::kernels
