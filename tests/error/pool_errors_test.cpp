// User errors of the pooling path: recognising a pooling in the DSL (schedules/pool.cpp), its
// schedule and UB sizes, and kernels::pool2d's options: one test per error, checking its message.
#include "codegen/lower.h"
#include "error_test_util.h"
#include "kernels/pool.h"

#include <limits>

namespace cubekit::test {
namespace {

using dsl::BoundaryConditions::constant_exterior;
using dsl::Expr;
using kernels::Pool2dOptions;

const ChipConfig& chip() {
  static const ChipConfig c = load_chip("ascend910");
  return c;
}

const double kInf = std::numeric_limits<double>::infinity();

// A 3x3 stride-2 max pool of a 1 x 16 x 8 x 8 input, padding 1, written with `read` of the padded
// input P; `define` may change the value and the output's extent.
struct Pool {
  dsl::Input I{"I", DType::f16, {1, 16, 8, 8}};
  dsl::Var n{"n"}, c{"c"}, y{"y"}, x{"x"};
  dsl::RDom r{{{0, 3}, {0, 3}}, "r"};
  dsl::Func O{"O"};
  dsl::BoundaryConditions::Exterior P = constant_exterior(I, -kInf);

  Expr standard_read() { return P(n, c, y * 2 + r.y - 1, x * 2 + r.x - 1); }
  dsl::Func& define(const Expr& value, int64_t oh = 4, int64_t ow = 4) {
    O(n, c, y, x) = value;
    O.bound(y, 0, oh).bound(x, 0, ow);
    return O;
  }
  dsl::Func& standard() { return define(dsl::maximum(standard_read())); }
};

void expect_compile_error(const dsl::Func& f, const std::vector<std::string>& want, const ChipConfig& on = chip()) {
  expect_user_error([&] { codegen::compile(f, on); }, want);
}

// ---- recognising a pooling ----

TEST(PoolErrors, BatchOrChannelIndexNotTheOutputs) {
  Pool p;
  p.define(dsl::maximum(p.P(p.n, 0 * p.c, p.y * 2 + p.r.y - 1, p.x * 2 + p.r.x - 1)));
  expect_compile_error(p.O, {"O: the input's first two indices must be the output's n and c"});
}

TEST(PoolErrors, ReductionOverOneVariable) {
  Pool p;
  dsl::RDom r1(0, 3, "r1");
  p.define(dsl::maximum(p.P(p.n, p.c, p.y * 2 + r1 - 1, p.x * 2 - 1)));
  expect_compile_error(p.O, {"a pooling reduces over two variables (the window's row and column)", "uses 1"});
}

TEST(PoolErrors, ReductionDoesNotStartAtZero) {
  Pool p;
  dsl::RDom r({{1, 2}, {0, 3}}, "r");
  p.define(dsl::maximum(p.P(p.n, p.c, p.y * 2 + r.y - 1, p.x * 2 + r.x - 1)));
  expect_compile_error(p.O, {"O: the reduction r.x must start at 0"});
}

TEST(PoolErrors, SpatialIndexNotAffine) {
  Pool p;
  p.define(dsl::maximum(p.P(p.n, p.c, p.y * p.r.y, p.x * 2 + p.r.x - 1)));
  expect_compile_error(p.O, {"the input's row index `(y * r.y)` is not affine in the variables", "a pooling is O(n, c, y, x)"});
}

TEST(PoolErrors, SpatialIndexUsesAnotherVariable) {
  Pool p;
  p.define(dsl::maximum(p.P(p.n, p.c, p.y * 2 + p.r.y - 1 + p.x, p.x * 2 + p.r.x - 1)), 2, 4);
  expect_compile_error(p.O, {"the input's row index", "uses x, which is neither y nor r.y"});
}

TEST(PoolErrors, NegativeStride) {
  Pool p;
  p.define(dsl::maximum(p.P(p.n, p.c, 6 - p.y + p.r.y - 1, p.x * 2 + p.r.x - 1)));
  expect_compile_error(p.O, {"needs a positive stride on y"});
}

TEST(PoolErrors, OffsetPastTheFirstRow) {
  Pool p;
  p.define(dsl::maximum(p.P(p.n, p.c, p.y * 2 + p.r.y + 1, p.x * 2 + p.r.x - 1)), 3, 4);
  expect_compile_error(p.O, {"starts past the input's first row or column (an offset, not padding)"});
}

TEST(PoolErrors, BatchOrChannelsDiffer) {
  Pool p;
  p.standard();
  dsl::Func Q("Q");
  dsl::Var n("n"), c("c"), y("y"), x("x");
  dsl::RDom r({{0, 3}, {0, 3}}, "r");
  Q(n, c, y, x) = dsl::maximum(p.P(n, c, y * 2 + r.y - 1, x * 2 + r.x - 1));
  Q.bound(n, 0, 1).bound(c, 0, 8).bound(y, 0, 4).bound(x, 0, 4);
  expect_compile_error(Q, {"Q: the output is 1 x 8 (batch x channels) but the input I is 1 x 16; a pooling keeps both"});
}

TEST(PoolErrors, PaddingWithoutABoundaryCondition) {
  Pool p;
  p.define(dsl::maximum(p.I(p.n, p.c, p.y * 2 + p.r.y, p.x * 2 + p.r.x)), 4, 4);
  expect_compile_error(p.O, {"the windows read I outside its shape (padding)",
                             "read it through BoundaryConditions::constant_exterior(I, -inf)"});
}

TEST(PoolErrors, SumPaddedWithAnotherValue) {
  Pool p;
  auto P = constant_exterior(p.I, 1.0);
  p.define(dsl::sum(dsl::cast(DType::f32, P(p.n, p.c, p.y * 2 + p.r.y - 1, p.x * 2 + p.r.x - 1))) * (1.0 / 9));
  expect_compile_error(p.O, {"a sum (or average) pooling pads with 0 only", "use constant_exterior(I, 0)"});
}

// A max pooling padded with 0 (a ReLU'd map's trick) would start every output at 0, the windows
// that read no padding too: a map of negatives came out 0 (found by a C++ user probe).
TEST(PoolErrors, MaxPaddedWithAFiniteValue) {
  Pool p;
  auto P = constant_exterior(p.I, 0.0);
  p.define(dsl::maximum(P(p.n, p.c, p.y * 2 + p.r.y - 1, p.x * 2 + p.r.x - 1)), 4, 4);
  expect_compile_error(p.O, {"a max pooling pads with -inf only", "constant_exterior(I, 0)",
                             "use constant_exterior(I, -inf)"});
}

// The same for a max pooling padded with +inf, and a min pooling padded with anything but +inf.
TEST(PoolErrors, MaxOrMinPaddedWithTheOtherInfinity) {
  Pool p;
  auto P = constant_exterior(p.I, kInf);
  p.define(dsl::maximum(P(p.n, p.c, p.y * 2 + p.r.y - 1, p.x * 2 + p.r.x - 1)), 4, 4);
  expect_compile_error(p.O, {"a max pooling pads with -inf only", "constant_exterior(I, inf)"});
  Pool q;
  q.define(dsl::minimum(q.standard_read()), 4, 4);
  expect_compile_error(q.O, {"a min pooling pads with inf only", "constant_exterior(I, -inf)", "use constant_exterior(I, inf)"});
}

TEST(PoolErrors, WindowOfPaddingOnly) {
  Pool p;
  p.define(dsl::maximum(p.P(p.n, p.c, p.y * 2 + p.r.y - 1, p.x * 2 + p.r.x - 1)), 6, 4);
  // O's 6 output rows are its bound()'s: the bound is what to change (the message blamed the padding alone).
  expect_compile_error(p.O, {"O: output row 5 has a window of padding only (rows 9..11 of an input of 8); 5 outputs along "
                             "y have windows that reach the input: bound y to at most 5 (O.bound(y, 0, 5)), or use less "
                             "padding"});
}


TEST(PoolErrors, TypeTheVectorUnitDoesNotPool) {
  Pool p;
  dsl::Input S("S", DType::s16, {1, 16, 8, 8});
  p.define(dsl::maximum(constant_exterior(S, -100)(p.n, p.c, p.y * 2 + p.r.y - 1, p.x * 2 + p.r.x - 1)));
  expect_compile_error(p.O, {"the vector unit pools f16 and f32 (the input S is s16", "cast to one of them first"});
}

TEST(PoolErrors, NarrowerThanTheInput) {
  Pool p;
  dsl::Input F("F", DType::f32, {1, 16, 8, 8});
  p.define(dsl::maximum(dsl::cast(DType::f16, constant_exterior(F, -kInf)(p.n, p.c, p.y * 2 + p.r.y - 1, p.x * 2 + p.r.x - 1))));
  expect_compile_error(p.O, {"the maximum is f16 over f32 inputs; combine in f32 or wider"});
}

TEST(PoolErrors, ColumnStrideBeyondBlockStrides) {
  dsl::Input I("I", DType::f16, {1, 16, 4, 200});
  dsl::Var n("n"), c("c"), y("y"), x("x");
  dsl::RDom r({{0, 2}, {0, 2}}, "r");
  dsl::Func O("O");
  O(n, c, y, x) = dsl::maximum(I(n, c, y * 2 + r.y, x * 40 + r.x));
  O.bound(y, 0, 2).bound(x, 0, 5);
  expect_compile_error(O, {"a column stride of 40 is more than the vector unit's block strides reach (31 for f16 windows)"});
}

// An f16 average sums in f32, two blocks a position: f32 input reaches twice as far (a probe: no fix was said).
TEST(PoolErrors, ColumnStrideBeyondTheF32SumsOfF16Input) {
  Pool2dOptions o;
  o.kind = Pool2dOptions::Kind::Avg, o.c = 16, o.h = 16, o.w = 32, o.kh = 16;  // two columns of windows: the stride steps
  expect_user_error([&] { kernels::pool2d(o, chip()); },
                    {"a column stride of 16 is more than the vector unit's block strides reach (15 for f32 windows); "
                     "pool f32 input instead (x.astype(numpy.float32), --dtype f32): its windows reach 31"});
}

// ---- the schedule and UB ----

TEST(PoolErrors, CoresInGroups) {
  Pool p;
  p.standard().cores({p.n}, 2);
  expect_compile_error(p.O, {"O.cores(", "pooling hands tiles to the vector cores in turn; groups are for the cube path"});
}

// cores() was accepted naming any loop, or none of the Func's (a Python probe).
TEST(PoolErrors, CoresOnTheInnermostLoop) {
  Pool p;
  p.standard().cores({p.x});
  expect_compile_error(p.O, {"O.cores(x): x is O's innermost loop, along its rows, which every tile holds whole; give it "
                             "any of n, c and y"});
}

TEST(PoolErrors, CoresOnAVarNotTheFuncs) {
  Pool p;
  dsl::Var z("z");
  p.standard().cores({z});
  expect_compile_error(p.O, {"O.cores(z): z is not a loop of O (its loops: n, c, y, x)"});
}

TEST(PoolErrors, CoresNamingNothing) {
  Pool p;
  p.standard().cores(std::vector<dsl::LoopVar>{});
  expect_compile_error(p.O, {"O.cores(): name the loops whose iterations go to the cores"});
}

TEST(PoolErrors, CubeDirective) {
  Pool p;
  p.standard().store_in(dsl::Level::L0C);
  expect_compile_error(p.O, {"is a pooling on the vector unit, which takes cores(), double_buffer(), multi_buffer(UB, n) and tile_rows()"});
}

TEST(PoolErrors, TileRowsBelowOne) {
  Pool p;
  p.standard().tile_rows(0);
  expect_compile_error(p.O, {"O.tile_rows(0): give at least 1 output row"});
}

TEST(PoolErrors, TileRowsDoNotFitUB) {
  dsl::Input I("I", DType::f16, {1, 16, 400, 400});
  dsl::Var n("n"), c("c"), y("y"), x("x");
  dsl::RDom r({{0, 3}, {0, 3}}, "r");
  dsl::Func O("O");
  O(n, c, y, x) = dsl::maximum(I(n, c, y + r.y, x + r.x));
  O.bound(y, 0, 398).bound(x, 0, 398);
  O.tile_rows(100).double_buffer();
  expect_compile_error(O, {"O: tiles of 100 output rows need", "bytes of UB but ascend910 has 262144",
                           "use fewer rows per tile or drop double_buffer()"});
}

TEST(PoolErrors, OneRowDoesNotFitUB) {
  dsl::Input I("I", DType::f16, {1, 16, 4, 6000});
  dsl::Var n("n"), c("c"), y("y"), x("x");
  dsl::RDom r({{0, 3}, {0, 3}}, "r");
  dsl::Func O("O");
  O(n, c, y, x) = dsl::maximum(I(n, c, y + r.y, x + r.x));
  O.bound(y, 0, 2).bound(x, 0, 5998);
  expect_compile_error(O, {"O: one output row of 5998 positions needs", "a tile holds the 3 input rows of 6000 positions its "
                           "windows read, which UB cannot (with one copy, ", "pool in two steps"});
}

// With double_buffer(): dropping it is advised where one copy fits (48 x 48), and only there (a global
// average of 56 x 56 does not fit with one copy either: the advice was to drop it all the same; it is
// each channel's mean, which the mean kernel computes over rows of 3136).
TEST(PoolErrors, RowTooWideForUbDoubleBuffered) {
  for (int64_t side : {48, 56}) {
    dsl::Input I("I", DType::f16, {1, 16, side, side});
    dsl::Var n("n"), c("c"), y("y"), x("x");
    dsl::RDom r({{0, side}, {0, side}}, "r");
    dsl::Func O("O");
    O(n, c, y, x) = dsl::cast(DType::f16, dsl::sum(dsl::cast(DType::f32, I(n, c, y + r.y, x + r.x))) * (1.0 / double(side * side)));
    O.bound(y, 0, 1).bound(x, 0, 1).double_buffer();
    if (side == 48)
      expect_compile_error(O, {"O: one output row of 1 positions needs", "the map is too wide for the pooling's tiles (drop "
                               "double_buffer() (--double-buffer off; in Python double_buffer=False, or schedule=\"naive\" for the vector "
                               "kernels))"});
    else
      expect_compile_error(O, {"O: one output row of 1 positions needs", "a tile holds the 56 input rows of 56 positions",
                               "average each channel's 3136 elements as a mean over the last axis of the map seen as "
                               "(1, 16, 3136) (the mean kernel: cubekit kernel mean --shape 1,16,3136; Python "
                               "kernels.mean(x, axis=(2, 3), keepdims=True))"});
  }
}

// ---- kernels::pool2d's options ----

void expect_options_error(const Pool2dOptions& o, const std::vector<std::string>& want) {
  expect_user_error([&] { kernels::pool2d(o, chip()); }, want);
}

Pool2dOptions options() {
  Pool2dOptions o;
  o.c = 16, o.h = 8, o.w = 8, o.kh = 3, o.stride = 2, o.pad = 1;
  return o;
}

TEST(PoolErrors, RowsOfAGlobalAverage) {
  Pool2dOptions o = options();
  o.global = true, o.rows = 2;
  expect_options_error(o, {"global_avg_pool2d: rows 2 per tile, but the global average has one output row; leave rows out"});
}

// Padding of half the dilated window, which torch allows, can leave a small input's row out of
// every tap: the message names the taps' spacing and the dilation as a way out.
TEST(PoolErrors, DilatedWindowOfPaddingOnly) {
  Pool2dOptions o = options();
  o.h = 2, o.w = 8, o.kh = o.kw = 2, o.dilation = 3, o.pad = 2, o.stride = 1;
  // Refused as the kernel is made (its default schedule asks the planner whether a row fits twice).
  expect_options_error(o, {"output row 1 has a window of padding only (rows -1..2, taps 3 apart, of an input of 2); "
                           "use less padding or a smaller dilation"});
}

TEST(PoolErrors, OptionShapeBelowOne) {
  Pool2dOptions o = options();
  o.h = 0;
  expect_options_error(o, {"max_pool2d: h must be at least 1, got 0"});
}

TEST(PoolErrors, OptionDtype) {
  Pool2dOptions o = options();
  o.dtype = DType::s8;
  expect_options_error(o, {"max_pool2d: the vector unit pools f16 and f32, got s8"});
}

TEST(PoolErrors, OptionNegativeRows) {
  Pool2dOptions o = options();
  o.rows = -2;
  expect_options_error(o, {"max_pool2d: rows must be at least 1 (or 0 to let the schedule choose), got -2"});
}

TEST(PoolErrors, OptionWindowBelowOne) {
  Pool2dOptions o = options();
  o.kh = 0;
  expect_options_error(o, {"max_pool2d: the window must be at least 1 x 1, got 0 x 0"});
}

TEST(PoolErrors, OptionNegativeStride) {
  Pool2dOptions o = options();
  o.stride = -1;
  expect_options_error(o, {"max_pool2d: the stride must be at least 1 (0: the window), got -1"});
}

TEST(PoolErrors, OptionDilationBelowOne) {
  Pool2dOptions o = options();
  o.dilation = 0;
  expect_options_error(o, {"max_pool2d: the dilation must be at least 1, got 0"});
}

TEST(PoolErrors, OptionAverageWithDilation) {
  Pool2dOptions o = options();
  o.kind = Pool2dOptions::Kind::Avg, o.dilation = 2;
  expect_options_error(o, {"avg_pool2d: average pooling has no dilation"});
}

TEST(PoolErrors, OptionNegativePadding) {
  Pool2dOptions o = options();
  o.pad = -1;
  expect_options_error(o, {"max_pool2d: padding must be 0 or more, got -1"});
}

TEST(PoolErrors, OptionPaddingMoreThanHalfTheWindow) {
  Pool2dOptions o = options();
  o.pad = 2;
  expect_options_error(o, {"max_pool2d: padding 2 x 2 is more than half the 3 x 3 window", "pad at most half the window"});
}

// A window 2^63 - 1 taps apart once overflowed 64 bits; past 2^31 - 1 it is refused before.
TEST(PoolErrors, OptionDilatedWindowOverflows) {
  Pool2dOptions o = options();
  o.dilation = INT64_MAX;
  expect_options_error(o, {"max_pool2d: dilation 9223372036854775807 is past 2^31 - 1, the largest index the compiler takes"});
}

TEST(PoolErrors, OptionWindowLargerThanTheInput) {
  Pool2dOptions o = options();
  o.kh = 11, o.pad = 1;
  expect_options_error(o, {"max_pool2d: the 11 x 11 window is larger than the 8 x 8 input padded by 1 x 1"});
}

}  // namespace
}  // namespace cubekit::test
