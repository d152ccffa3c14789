// User errors of the conv path: recognising a convolution in the DSL (schedules/conv.cpp), its
// schedule and buffer sizes, its fused epilogue, and kernels::conv2d's options: one test per error,
// checking its message.
#include "codegen/lower.h"
#include "error_test_util.h"
#include "kernels/conv.h"

namespace cubekit::test {
namespace {

using dsl::BoundaryConditions::constant_exterior;
using dsl::Expr;

const ChipConfig& chip() {
  static const ChipConfig c = load_chip("ascend910");
  return c;
}

// A 3x3 convolution of a 1 x 4 x 6 x 6 input by 8 filters, padding 1, written with `read` (of the
// padded input P at the channel, row and column indices) and `weight`; `edit` may change it.
struct Conv {
  dsl::Input I{"I", DType::f16, {1, 4, 6, 6}}, W{"W", DType::f16, {8, 4, 3, 3}};
  dsl::Var n{"n"}, k{"k"}, y{"y"}, x{"x"};
  dsl::RDom r{{{0, 4}, {0, 3}, {0, 3}}, "r"};
  dsl::Func O{"O"};
  dsl::BoundaryConditions::Exterior P = constant_exterior(I, 0);

  Expr in(const Expr& c, const Expr& iy, const Expr& ix) { return dsl::cast(DType::f32, P(n, c, iy, ix)); }
  Expr wt() { return dsl::cast(DType::f32, W(k, r.x, r.y, r.z)); }
  Expr standard_read() { return in(r.x, y + r.y - 1, x + r.z - 1); }
  dsl::Func& define(const Expr& value, int64_t oh = 6, int64_t ow = 6) {
    O(n, k, y, x) = value;
    O.bound(y, 0, oh).bound(x, 0, ow);
    return O;
  }
  dsl::Func& standard() { return define(dsl::sum(standard_read() * wt())); }
};

void expect_compile_error(const dsl::Func& f, const std::vector<std::string>& want) {
  expect_user_error([&] { codegen::compile(f, chip()); }, want);
}

// ---- recognising a convolution ----

TEST(ConvErrors, WeightsNotPlainlyIndexed) {
  Conv c;
  c.define(dsl::sum(c.standard_read() * dsl::cast(DType::f32, c.W(c.k, c.r.x, c.r.y + 0 * c.y, c.r.z + 1 - 1 + c.x * 0))));
  expect_compile_error(c.O, {"O: the weights", "must be an input indexed by plain variables"});
}

TEST(ConvErrors, PaddingValueNotZero) {
  Conv c;
  auto P = constant_exterior(c.I, 1.5);
  c.define(dsl::sum(dsl::cast(DType::f32, P(c.n, c.r.x, c.y + c.r.y - 1, c.x + c.r.z - 1)) * c.wt()));
  expect_compile_error(c.O, {"constant_exterior(I, 1.5)", "pads a convolution's input with zeros only",
                             "use constant_exterior(I, 0)"});
}

TEST(ConvErrors, WeightsIndexedInTheWrongOrder) {
  Conv c;
  c.define(dsl::sum(c.standard_read() * dsl::cast(DType::f32, c.W(c.k, c.r.x, c.r.z, c.r.y))));
  // r.z, r.y swapped reads the input's row with r.y but the weights' row with r.z
  expect_compile_error(c.O, {"O: the input's row index", "uses r.y"});
}

TEST(ConvErrors, BatchIndexNotTheOutputsFirst) {
  Conv c;
  c.define(dsl::sum(dsl::cast(DType::f32, c.P(0 * c.n, c.r.x, c.y + c.r.y - 1, c.x + c.r.z - 1)) * c.wt()));
  expect_compile_error(c.O, {"the input's first index must be the output's batch variable n"});
}

TEST(ConvErrors, ChannelIndexNotTheWeightsChannel) {
  Conv c;
  c.define(dsl::sum(c.in(c.r.x * 1 + c.k * 0 + 0 * c.y, c.y + c.r.y - 1, c.x + c.r.z - 1) * c.wt()));
  expect_compile_error(c.O, {"the input's channel index", "must be the weights' channel variable r.x",
                             "k / kg * cg + r.x"});
}

TEST(ConvErrors, GroupCountsDiffer) {
  dsl::Input I("I", DType::f16, {1, 4, 6, 6}), W("W", DType::f16, {8, 2, 3, 3});
  dsl::Var n("n"), k("k"), y("y"), x("x");
  dsl::RDom r({{0, 2}, {0, 3}, {0, 3}}, "r");
  dsl::Func O("O");
  auto P = constant_exterior(I, 0);
  O(n, k, y, x) = dsl::sum(dsl::cast(DType::f32, P(n, k / 2 * 2 + r.x, y + r.y - 1, x + r.z - 1)) *
                           dsl::cast(DType::f32, W(k, r.x, r.y, r.z)));
  O.bound(y, 0, 6).bound(x, 0, 6);
  expect_compile_error(O, {"makes groups of 2 output and 2 input channels", "the group counts (4 and 2) must be equal"});
}

TEST(ConvErrors, ReductionDoesNotStartAtZero) {
  dsl::Input I("I", DType::f16, {1, 4, 6, 6}), W("W", DType::f16, {8, 4, 3, 3});
  dsl::Var n("n"), k("k"), y("y"), x("x");
  dsl::RDom r({{1, 3}, {0, 3}, {0, 3}}, "r");
  dsl::Func O("O");
  O(n, k, y, x) = dsl::sum(dsl::cast(DType::f32, constant_exterior(I, 0)(n, r.x, y + r.y - 1, x + r.z - 1)) *
                           dsl::cast(DType::f32, W(k, r.x, r.y, r.z)));
  O.bound(y, 0, 6).bound(x, 0, 6);
  expect_compile_error(O, {"must start at 0 for the cube"});
}

TEST(ConvErrors, SpatialIndexNotAffine) {
  Conv c;
  c.define(dsl::sum(c.in(c.r.x, c.y * c.r.y, c.x + c.r.z - 1) * c.wt()));
  expect_compile_error(c.O, {"the input's row index `(y * r.y)` is not affine in the variables"});
}

TEST(ConvErrors, SpatialIndexUsesAnotherVariable) {
  Conv c;
  c.define(dsl::sum(c.in(c.r.x, c.y + c.r.y - 1 + c.x * 0 + c.r.x, c.x + c.r.z - 1) * c.wt()));
  expect_compile_error(c.O, {"the input's row index", "uses r.x, which is neither y nor r.y"});
}

TEST(ConvErrors, NegativeStride) {
  Conv c;
  c.define(dsl::sum(c.in(c.r.x, 5 - c.y + c.r.y - 1, c.x + c.r.z - 1) * c.wt()));
  expect_compile_error(c.O, {"needs a positive stride on y"});
}

TEST(ConvErrors, OffsetPastTheFirstRow) {
  Conv c;
  c.define(dsl::sum(c.in(c.r.x, c.y + c.r.y + 1, c.x + c.r.z - 1) * c.wt()), 3, 6);
  expect_compile_error(c.O, {"starts past the input's first row or column"});
}

TEST(ConvErrors, StrideBeyondLoad3d) {
  dsl::Input I("I", DType::f16, {1, 4, 130, 6}), W("W", DType::f16, {8, 4, 3, 3});
  dsl::Var n("n"), k("k"), y("y"), x("x");
  dsl::RDom r({{0, 4}, {0, 3}, {0, 3}}, "r");
  dsl::Func O("O");
  O(n, k, y, x) = dsl::sum(dsl::cast(DType::f32, constant_exterior(I, 0)(n, r.x, y * 64 + r.y, x + r.z - 1)) *
                           dsl::cast(DType::f32, W(k, r.x, r.y, r.z)));
  O.bound(y, 0, 2).bound(x, 0, 6);
  expect_compile_error(O, {"stride 64 along row is more than load3d's 63"});
}

TEST(ConvErrors, ChannelsNotAllSummed) {
  dsl::Input I("I", DType::f16, {1, 6, 6, 6}), W("W", DType::f16, {8, 4, 3, 3});
  dsl::Var n("n"), k("k"), y("y"), x("x");
  dsl::RDom r({{0, 4}, {0, 3}, {0, 3}}, "r");
  dsl::Func O("O");
  O(n, k, y, x) = dsl::sum(dsl::cast(DType::f32, constant_exterior(I, 0)(n, r.x, y + r.y - 1, x + r.z - 1)) *
                           dsl::cast(DType::f32, W(k, r.x, r.y, r.z)));
  O.bound(y, 0, 6).bound(x, 0, 6);
  expect_compile_error(O, {"but the input I has 6", "a convolution sums over every input channel"});
}

TEST(ConvErrors, KernelExtentsDiffer) {
  dsl::Input I("I", DType::f16, {1, 4, 6, 6}), W("W", DType::f16, {8, 4, 3, 3});
  dsl::Var n("n"), k("k"), y("y"), x("x");
  dsl::RDom r({{0, 4}, {0, 2}, {0, 3}}, "r");
  dsl::Func O("O");
  O(n, k, y, x) = dsl::sum(dsl::cast(DType::f32, constant_exterior(I, 0)(n, r.x, y + r.y, x + r.z - 1)) *
                           dsl::cast(DType::f32, W(k, r.x, r.y, r.z)));
  O.bound(y, 0, 5).bound(x, 0, 6);
  expect_compile_error(O, {"have 2 and 3 iterations but the kernel W is 3 x 3"});
}

TEST(ConvErrors, OutputChannelsDifferFromFilters) {
  Conv c;
  c.O(c.n, c.k, c.y, c.x) = dsl::sum(c.standard_read() * c.wt());
  c.O.bound(c.y, 0, 6).bound(c.x, 0, 6).bound(c.k, 0, 6);
  expect_compile_error(c.O, {"the output has 6 channels but the weights W have 8 filters"});
}

TEST(ConvErrors, PaddingWithoutABoundaryCondition) {
  Conv c;
  c.define(dsl::sum(dsl::cast(DType::f32, c.I(c.n, c.r.x, c.y + c.r.y, c.x + c.r.z)) * c.wt()), 5, 4);
  expect_compile_error(c.O, {"reads I outside its shape (padding)", "BoundaryConditions::constant_exterior(I, 0)"});
}

TEST(ConvErrors, OutputNarrowerThanTheConvolution) {
  Conv c;  // no padding across: the 6 columns make 4 outputs
  c.define(dsl::sum(c.in(c.r.x, c.y + c.r.y - 1, c.x + c.r.z) * c.wt()), 6, 3);
  expect_compile_error(c.O, {"the output is 3 columns wide but the convolution makes 4", "bound x to 0..4"});
}

TEST(ConvErrors, OutputRowReadsOnlyPadding) {
  Conv c;
  c.define(dsl::sum(c.in(c.r.x, c.y + c.r.y - 5, c.x + c.r.z - 1) * c.wt()), 6, 6);
  expect_compile_error(c.O, {"output row 0 reads only padding", "the kernel takes padding of at most (kernel - 1) x dilation = 2 rows"});
}

TEST(ConvErrors, OperandTypesDiffer) {
  Conv c;
  dsl::Input W("W", DType::s8, {8, 4, 3, 3});
  c.define(dsl::sum(c.standard_read() * dsl::cast(DType::f32, W(c.k, c.r.x, c.r.y, c.r.z))));
  expect_compile_error(c.O, {"I is f16 and W is s8; the cube multiplies two inputs of one type"});
}

TEST(ConvErrors, NotAccumulatedInTheCubesType) {
  Conv c;
  c.define(dsl::sum(dsl::cast(DType::f16, c.P(c.n, c.r.x, c.y + c.r.y - 1, c.x + c.r.z - 1)) *
                    dsl::cast(DType::f16, c.W(c.k, c.r.x, c.r.y, c.r.z))));
  expect_compile_error(c.O, {"the cube accumulates f16 products in f32", "write sum(cast(f32, I(..)) * cast(f32, W(..)))"});
}

TEST(ConvErrors, ResultTypeTheCubeCannotWrite) {
  Conv c;
  c.define(dsl::cast(DType::s32, dsl::sum(c.standard_read() * c.wt())));
  expect_compile_error(c.O, {"the cube's f32 results can be written as f32 or f16, not s32"});
}

// ---- the schedule ----

TEST(ConvErrors, CubeOrStageDirective) {
  Conv c;
  c.standard().stage(c.I, dsl::Level::L1, c.n);
  expect_compile_error(c.O, {"O.stage(I, L1, n): a convolution's stages are fixed", "split(y, ..), split(k, ..) and split(r.x, ..)"});
}

TEST(ConvErrors, StoreInOtherThanL0C) {
  Conv c;
  c.standard().store_in(dsl::Level::UB);
  expect_compile_error(c.O, {"the cube accumulates in L0C"});
}

TEST(ConvErrors, TileRowsDirective) {
  Conv c;
  c.standard().tile_rows(4);
  expect_compile_error(c.O, {"tile_rows is for the vector path"});
}

TEST(ConvErrors, TooManyL1Copies) {
  Conv c;
  c.standard().multi_buffer(dsl::Level::L1, 9);
  expect_compile_error(c.O, {"O.multi_buffer(L1, 9): the copies must be 1..4 (ascend910 has 4 event ids per pipe pair"});
}

// A level other than L1 was told to give L1 1..4 copies, though its count was within them (a Python
// probe); the message is now matmul's (cube_l1_copies, shared).
TEST(ConvErrors, MultiBufferNotL1) {
  Conv c;
  c.standard().multi_buffer(dsl::Level::UB, 2);
  expect_compile_error(c.O, {"O.multi_buffer(UB, 2): only L1 fills run ahead of their use; double_buffer() gives L0A, "
                             "L0B and UB two copies"});
}

// flash() on a convolution is told about attention's form, not that its split() is not flash().
TEST(ConvErrors, FlashOnAConvolution) {
  Conv c;
  c.standard().flash(64, 64);
  expect_compile_error(c.O, {"O.flash(64, 64): flash attention reads three inputs, Q, K and V"});
}

TEST(ConvErrors, SplitTwice) {
  Conv c;
  dsl::Var yo("yo"), yi("yi"), yio("yio"), yii("yii");
  c.standard().split(c.y, yo, yi, 4).split(yi, yio, yii, 2);
  expect_compile_error(c.O, {"y is split twice; a convolution's tiles split y, k and the channel reduction once each"});
}

TEST(ConvErrors, SplitOfAnotherLoop) {
  Conv c;
  dsl::Var xo("xo"), xi("xi");
  c.standard().split(c.x, xo, xi, 2);
  expect_compile_error(c.O, {"O: x cannot be split", "split only n (images per tile), y (output rows per tile), k (output "
                                                   "channels per tile) and r.x"});
}

// A 1x1 convolution of 5 images of 8 x 8 (stackable), and the 3x3 one with padding (not).
struct Conv1x1 {
  dsl::Input I{"I", DType::f16, {5, 16, 8, 8}}, W{"W", DType::f16, {16, 16, 1, 1}};
  dsl::Var n{"n"}, k{"k"}, y{"y"}, x{"x"}, no{"no"}, ni{"ni"};
  dsl::RDom r{{{0, 16}, {0, 1}, {0, 1}}, "r"};
  dsl::Func O{"O"};
  Conv1x1() {
    O(n, k, y, x) = dsl::sum(dsl::cast(DType::f32, I(n, r.x, y + r.y, x + r.z)) * dsl::cast(DType::f32, W(k, r.x, r.y, r.z)));
    O.bound(y, 0, 8).bound(x, 0, 8);
  }
};

TEST(ConvErrors, StackedImagesWithPadding) {
  dsl::Input I("I", DType::f16, {3, 4, 6, 6}), W("W", DType::f16, {8, 4, 3, 3});
  dsl::Var n("n"), k("k"), y("y"), x("x"), no("no"), ni("ni");
  dsl::RDom r({{0, 4}, {0, 3}, {0, 3}}, "r");
  dsl::Func O("O");
  O(n, k, y, x) = dsl::sum(dsl::cast(DType::f32, constant_exterior(I, 0)(n, r.x, y + r.y - 1, x + r.z - 1)) *
                           dsl::cast(DType::f32, W(k, r.x, r.y, r.z)));
  O.bound(y, 0, 6).bound(x, 0, 6);
  O.split(n, no, ni, 2).reorder({x, y, k, ni, no});
  Conv c;
  c.O = O;
  expect_compile_error(c.O, {"split(n, .., 2) stacks 2 images into one tile", "no padding along the height",
                             "this one pads 1 and 1 rows"});
}

TEST(ConvErrors, StackedImagesAndSplitRows) {
  Conv1x1 c;
  dsl::Var yo("yo"), yi("yi");
  c.O.split(c.n, c.no, c.ni, 2).split(c.y, yo, yi, 4).reorder({c.x, yi, c.k, c.ni, yo, c.no});
  expect_compile_error(c.O, {"split(n, .., 2) stacks whole images into a tile; do not split y as well"});
}

TEST(ConvErrors, ImagesOptionOnAPaddedConv) {
  kernels::Conv2dOptions o;
  o.n = 2, o.c = 16, o.h = 6, o.w = 6, o.k = 16, o.pad = 1, o.images = 2;
  expect_user_error([&] { kernels::conv2d(o, chip()); }, {"conv2d: images=2 stacks images per tile",
                                                           "this one pads the height (1 rows above, 1 below); give images=1"});
  o.pad = 0, o.stride = 4;  // 6 rows at stride 4: 2 output rows cover 8
  expect_user_error([&] { kernels::conv2d(o, chip()); }, {"output rows x stride is 1 x 4, not the 6 input rows"});
}

// An output row wider than L0A holds: the message says the widest and what to do.
TEST(ConvErrors, OutputRowWiderThanL0A) {
  kernels::Conv2dOptions o;
  o.c = 16, o.h = 4, o.w = 3000, o.k = 16, o.kh = o.kw = 1;
  expect_user_error([&] { kernels::conv2d(o, chip()); },
                    {"conv2d: chip 'ascend910' cannot hold one output row of 3000 positions in its L0A/L0C (2 copies)",
                     "the most it holds is 1024 positions: convolve the image in strips of at most 1024 output columns",
                     "or without double buffering"});
}

TEST(ConvErrors, ImagesOptionWithRows) {
  kernels::Conv2dOptions o;
  o.n = 2, o.c = 16, o.h = 6, o.w = 6, o.k = 16, o.kh = o.kw = 1, o.images = 2, o.rows = 2;
  expect_user_error([&] { kernels::conv2d(o, chip()); }, {"conv2d: images=2 stacks whole images per tile; rows=2 splits them"});
}

// A consumer of a convolution without epilogue_of() was told of boundary conditions (the conv's padding).
TEST(ConvErrors, ConsumerWithoutEpilogueOf) {
  Conv c;
  c.standard();
  dsl::Func E("E");
  E(c.n, c.k, c.y, c.x) = dsl::max(c.O(c.n, c.k, c.y, c.x), 0.0f);
  expect_compile_error(E, {"E: it reads the convolution O; compute E in O's epilogue with E.epilogue_of(O) (the "
                           "convolution's tiles pass through it on their way out), or compile O on its own and pass its "
                           "result as an Input"});
}

// The option was reported as the directive it becomes, Y.multi_buffer(L1, 9), which the user never wrote.
TEST(ConvErrors, L1CopiesOptionPastTheEventIds) {
  kernels::Conv2dOptions o;
  o.c = 16, o.h = 8, o.w = 8, o.k = 16, o.l1_copies = 9;
  expect_user_error([&] { kernels::conv2d(o, chip()); },
                    {"conv2d: l1_copies 9 is more than the 4 copies ascend910 can keep apart (4 event ids per pipe pair, one "
                     "per copy): give 1..4 (--l1-copies; Python l1_copies=)"});
}

TEST(ConvErrors, TileLoopsNotOutermost) {
  Conv c;
  dsl::Var yo("yo"), yi("yi");
  c.standard().split(c.y, yo, yi, 2).reorder({c.x, yi, yo, c.k, c.n});
  expect_compile_error(c.O, {"O: the tile loops (n, yo) must be outermost, in any order (the loops are n", "reorder them out, "
                             "or split y or k to tile them"});
}

TEST(ConvErrors, CoresOnALoopInsideTheTile) {
  Conv c;
  c.standard().cores({c.n, c.k});
  expect_compile_error(c.O, {"cores take tile loops only"});
}

TEST(ConvErrors, ChannelTileNotAFractal) {
  dsl::Input I("I", DType::f16, {1, 4, 6, 6}), W("W", DType::f16, {40, 4, 3, 3});
  dsl::Var n("n"), k("k"), y("y"), x("x"), ko("ko"), ki("ki");
  dsl::RDom r({{0, 4}, {0, 3}, {0, 3}}, "r");
  dsl::Func O("O");
  O(n, k, y, x) = dsl::sum(dsl::cast(DType::f32, constant_exterior(I, 0)(n, r.x, y + r.y - 1, x + r.z - 1)) *
                           dsl::cast(DType::f32, W(k, r.x, r.y, r.z)));
  O.bound(y, 0, 6).bound(x, 0, 6);
  O.split(k, ko, ki, 24).reorder({x, y, ki, ko, n});
  expect_compile_error(O, {"24 output channels per tile is not a multiple of 16"});
}

TEST(ConvErrors, ChannelsPerFillNotABlock) {
  dsl::Input I("I", DType::f16, {1, 40, 6, 6}), W("W", DType::f16, {8, 40, 3, 3});
  dsl::Var n("n"), k("k"), y("y"), x("x");
  dsl::RVar ro("ro"), ri("ri");
  dsl::RDom r({{0, 40}, {0, 3}, {0, 3}}, "r");
  dsl::Func O("O");
  O(n, k, y, x) = dsl::sum(dsl::cast(DType::f32, constant_exterior(I, 0)(n, r.x, y + r.y - 1, x + r.z - 1)) *
                           dsl::cast(DType::f32, W(k, r.x, r.y, r.z)));
  O.bound(y, 0, 6).bound(x, 0, 6);
  O.split(r.x, ro, ri, 24);
  expect_compile_error(O, {"24 input channels per L1 fill is not a multiple of 16 (C0"});
}

TEST(ConvErrors, AccumulatorTileTooBig) {
  dsl::Input I("I", DType::f16, {1, 4, 64, 64}), W("W", DType::f16, {256, 4, 1, 1});
  dsl::Var n("n"), k("k"), y("y"), x("x");
  dsl::RDom r({{0, 4}, {0, 1}, {0, 1}}, "r");
  dsl::Func O("O");
  O(n, k, y, x) = dsl::sum(dsl::cast(DType::f32, I(n, r.x, y + r.y, x + r.z)) * dsl::cast(DType::f32, W(k, r.x, r.y, r.z)));
  O.bound(y, 0, 64).bound(x, 0, 64);
  expect_compile_error(O, {"does not fit", "use fewer output rows or channels per tile"});
}

TEST(ConvErrors, InputRowsDoNotFitL1) {
  dsl::Input I("I", DType::f16, {1, 4096, 4, 128}), W("W", DType::f16, {16, 4096, 1, 1});
  dsl::Var n("n"), k("k"), y("y"), x("x"), yo("yo"), yi("yi");
  dsl::RDom r({{0, 4096}, {0, 1}, {0, 1}}, "r");
  dsl::Func O("O");
  O(n, k, y, x) = dsl::sum(dsl::cast(DType::f32, I(n, r.x, y + r.y, x + r.z)) * dsl::cast(DType::f32, W(k, r.x, r.y, r.z)));
  O.bound(y, 0, 4).bound(x, 0, 128);
  O.split(y, yo, yi, 1).reorder({x, yi, k, yo, n});
  expect_compile_error(O, {"bytes of L1", "fill L1 with fewer input channels (split r.x)"});
}

// ---- the epilogue ----

TEST(ConvErrors, EpilogueInputIndexedOtherwise) {
  Conv c;
  c.standard();
  dsl::Input S("S", DType::f32, {6});
  dsl::Func E("E");
  E(c.n, c.k, c.y, c.x) = c.O(c.n, c.k, c.y, c.x) * S(c.y);
  E.epilogue_of(c.O);
  expect_compile_error(E, {"a convolution's epilogue reads inputs per output channel (S(k)) or at the output's own "
                           "variables (S(n, k, y, x))"});
}

TEST(ConvErrors, EpilogueInputMisshaped) {
  Conv c;
  c.standard();
  dsl::Input S("S", DType::f32, {6});
  dsl::Func E("E");
  E(c.n, c.k, c.y, c.x) = c.O(c.n, c.k, c.y, c.x) * S(c.k);
  E.epilogue_of(c.O);
  expect_compile_error(E, {"reads S per output channel but its shape is [6]; it needs [8]"});
}

TEST(ConvErrors, ResidualOfAnIntegerType) {
  Conv c;
  c.standard();
  dsl::Input R("R", DType::s32, {1, 8, 6, 6});
  dsl::Func E("E");
  E(c.n, c.k, c.y, c.x) = c.O(c.n, c.k, c.y, c.x) + dsl::cast(DType::f32, R(c.n, c.k, c.y, c.x));
  E.epilogue_of(c.O);
  expect_compile_error(E, {"the full-tile input R must be f32 or f16, not s32"});
}

TEST(ConvErrors, EpilogueWithOtherVariables) {
  Conv c;
  c.standard();
  dsl::Var a("a"), b("b"), d("d");
  dsl::Func E("E");
  E(a, b, d) = c.O(a, b, d, d);
  E.epilogue_of(c.O);
  expect_compile_error(E, {"E has 3 variables but the convolution O has 4 (n, k, y, x)"});
}

// ---- kernels::conv2d ----

kernels::Conv2dOptions options() {
  kernels::Conv2dOptions o;
  o.c = 4, o.h = 6, o.w = 6, o.k = 8;
  return o;
}

TEST(ConvErrors, OptionBelowOne) {
  auto o = options();
  o.stride = 0;
  expect_user_error([&] { kernels::conv2d(o, chip()); }, {"conv2d: stride must be at least 1, got 0"});
}

TEST(ConvErrors, NegativePadding) {
  auto o = options();
  o.pad = -1;
  expect_user_error([&] { kernels::conv2d(o, chip()); }, {"conv2d: padding must be 0 or more, got -1"});
}

TEST(ConvErrors, NegativeWidthPadding) {
  auto o = options();
  o.pad_w = -2;
  expect_user_error([&] { kernels::conv2d(o, chip()); },
                    {"conv2d: pad_w must be 0 or more (or -1: as along the height), got -2"});
}

TEST(ConvErrors, NegativeOverride) {
  auto o = options();
  o.rows = -2;
  expect_user_error([&] { kernels::conv2d(o, chip()); }, {"conv2d: rows must be at least 1 (or 0 to let the schedule choose), got -2"});
}

TEST(ConvErrors, GroupsNotDividingChannels) {
  auto o = options();
  o.groups = 3;
  expect_user_error([&] { kernels::conv2d(o, chip()); }, {"groups=3 must divide the input channels (4) and the output channels (8)"});
}

TEST(ConvErrors, KernelLargerThanThePaddedInput) {
  auto o = options();
  o.kh = 9;
  expect_user_error([&] { kernels::conv2d(o, chip()); }, {"the 9 x 3 kernel (dilation 1 x 1) is larger than the 6 x 6 input"});
}

TEST(ConvErrors, UnknownEpilogueStep) {
  auto o = options();
  o.epilogue = {"bn", "gelu"};
  expect_user_error([&] { kernels::conv2d(o, chip()); }, {"unknown epilogue step 'gelu'; the steps are bn, residual and relu"});
}

TEST(ConvErrors, EpilogueOfAnInt8Convolution) {
  auto o = options();
  o.in = DType::s8, o.out = DType::s32, o.epilogue = {"relu"};
  expect_user_error([&] { kernels::conv2d(o, chip()); }, {"epilogues run on f32 accumulators", "dequantise it in a vector kernel"});
}

// Padding of 2^63 - 1 once overflowed 64 bits; past 2^31 - 1 it is refused before.
TEST(ConvErrors, PaddingOverflows) {
  auto o = options();
  o.pad = INT64_MAX;
  expect_user_error([&] { kernels::conv2d(o, chip()); },
                    {"conv2d: pad 9223372036854775807 is past 2^31 - 1, the largest index the compiler takes"});
}

TEST(ConvErrors, ResultTypeForTheInput) {
  auto o = options();
  o.in = DType::s8, o.out = DType::f32;
  expect_user_error([&] { kernels::conv2d(o, chip()); }, {"conv2d: the cube's s32 results can be written as s32, not f32"});
}

TEST(ConvErrors, TypeTheCubeDoesNotMultiply) {
  auto o = options();
  o.in = DType::f32;
  expect_user_error([&] { kernels::conv2d(o, chip()); }, {"conv2d: the cube of ascend910 does not multiply f32"});
}

}  // namespace
}  // namespace cubekit::test
