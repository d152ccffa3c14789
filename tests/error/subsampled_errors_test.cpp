// User errors of a convolution's second output at every s-th row and column (Func::store_with,
// Conv2dOptions::subsampled, schedules/epilogue.cpp, codegen::compile): one test per error,
// checking its message.
#include "codegen/lower.h"
#include "error_test_util.h"
#include "kernels/conv.h"
#include "kernels/matmul.h"

namespace cubekit::test {
namespace {

const ChipConfig& chip(const char* name = "ascend910") { return preset(name); }

// A 1x1 convolution of 2 x 32 x 8 x 8 by 32 filters with bn and relu, f16 out.
kernels::Conv2dOptions options() {
  kernels::Conv2dOptions o;
  o.n = 2, o.c = 32, o.h = 8, o.w = 8, o.k = 32, o.kh = 1, o.kw = 1;
  o.out = DType::f16;
  o.epilogue = {"bn", "relu"};
  return o;
}

// `Ys(n, k, y, x) = value` over the conv's output, store_with it, bound to oh x ow.
dsl::Func second(const kernels::Conv2d& cv, const std::function<dsl::Expr(dsl::Var, dsl::Var, dsl::Var, dsl::Var)>& value,
                 int64_t oh = 4, int64_t ow = 4) {
  dsl::Var n("n"), k("k"), y("y"), x("x");
  dsl::Func f("Ys");
  f(n, k, y, x) = value(n, k, y, x);
  f.bound(y, 0, oh).bound(x, 0, ow);
  f.store_with(cv.out);
  return f;
}

void expect_compile_error(const std::vector<dsl::Func>& outputs, const std::vector<std::string>& want,
                          const char* chip_name = "ascend910") {
  expect_user_error([&] { codegen::compile(outputs, chip(chip_name)); }, want);
}

TEST(SubsampledErrors, StrideOne) {
  auto o = options();
  o.subsampled = 1;
  expect_user_error([&] { kernels::conv2d(o, chip()); }, {"conv2d: subsampled=1 would copy the whole output", "(2 or more)"});
}

TEST(SubsampledErrors, NegativeStride) {
  auto o = options();
  o.subsampled = -2;
  expect_user_error([&] { kernels::conv2d(o, chip()); }, {"conv2d: subsampled must be 0 (no second output) or the stride of the convolution that reads it (2 or more), got -2"});
}

TEST(SubsampledErrors, NotASubsampling) {
  kernels::Conv2d cv = kernels::conv2d(options(), chip());
  dsl::Func f = second(cv, [&](auto n, auto k, auto y, auto x) { return cv.out(n, k, y * 2, x * 3); }, 4, 3);
  expect_compile_error({cv.out, f}, {"Ys.store_with(Y): Ys must be Y at every s-th row and column",
                                     "Ys(n, k, y, x) = Y(n, k, y * s, x * s)", "one stride s >= 2"});
}

TEST(SubsampledErrors, ChannelsMoved) {
  kernels::Conv2d cv = kernels::conv2d(options(), chip());
  dsl::Func f = second(cv, [&](auto n, auto k, auto y, auto x) { return cv.out(n, k, y * 2, x * 2) * 2.0; });
  expect_compile_error({cv.out, f}, {"Ys must be Y at every s-th row and column"});
}

TEST(SubsampledErrors, ThirtyTwoBitResult) {  // a second output written by hand, in the DSL
  auto o = options();
  o.out = DType::f32;
  kernels::Conv2d cv = kernels::conv2d(o, chip());
  dsl::Func f = second(cv, [&](auto n, auto k, auto y, auto x) { return cv.out(n, k, y * 2, x * 2); });
  expect_compile_error({cv.out, f}, {"Y is f32; the second output is gathered 32 B (16 channels) a position",
                                     "for 16-bit results (f16, bf16)"});
}

TEST(SubsampledErrors, ThirtyTwoBitResultOfTheKernel) {  // the kernel's option, in its terms
  auto o = options();
  o.out = DType::f32;
  o.subsampled = 2;
  expect_user_error([&] { kernels::conv2d(o, chip()); },
                    {"conv2d: subsampled=2 writes a second output gathered 16 channels (32 B) a position, so it needs a "
                     "16-bit output: give out f16 or bf16 (--out; Python out=), not f32"});
}

TEST(SubsampledErrors, WrongShape) {
  kernels::Conv2d cv = kernels::conv2d(options(), chip());
  dsl::Func f = second(cv, [&](auto n, auto k, auto y, auto x) { return cv.out(n, k, y * 2, x * 2); }, 3, 4);
  expect_compile_error({cv.out, f}, {"Y at stride 2 is 2x32x4x4; bound Ys to that shape (it is 2x32x3x4)"});
}

TEST(SubsampledErrors, TilesTooBigForTheStride) {
  auto o = options();
  o.h = 6, o.w = 200, o.subsampled = 2;  // 2 rows of 200 positions are more than a tile's 256
  expect_user_error([&] { kernels::conv2d(o, chip()); },
                    {"conv2d: chip 'ascend910' cannot hold 2 output rows of 200 positions", "subsampled=2"});
}

TEST(SubsampledErrors, RowsTooWide) {
  auto o = options();
  o.h = 1, o.w = 130, o.subsampled = 2;
  kernels::Conv2d cv = kernels::conv2d(o, chip());
  expect_compile_error(cv.outputs(), {"rows of 130 positions at stride 2 are more than the 255 blocks", "ow * s <= 255"});
}

TEST(SubsampledErrors, TileRowsSkipKeptRows) {
  auto o = options();
  o.h = 12, o.w = 12, o.rows = 3;
  kernels::Conv2d cv = kernels::conv2d(o, chip());
  dsl::Func f = second(cv, [&](auto n, auto k, auto y, auto x) { return cv.out(n, k, y * 2, x * 2); }, 6, 6);
  expect_compile_error({cv.out, f}, {"Y's tiles of 3 output rows start at rows the second output skips",
                                     "give tiles a multiple of 2 rows (or whole images)"});
}

TEST(SubsampledErrors, FixPipeOnlyOnASplitChip) {
  auto o = options();
  o.epilogue = {"relu"};  // the FixPipe's own: nothing passes through the vector cores' UB
  o.subsampled = 2;
  // kernels::conv2d says so in its options' terms (the Funcs' message named Ys.store_with(Y))...
  expect_user_error([&] { kernels::conv2d(o, chip("ascend910b2")); },
                    {"conv2d: subsampled=2 on ascend910b2: the second output is gathered by the vector cores, which a "
                     "convolution computes on only with a bn or residual epilogue; add one (--epilogue; Python bn=, "
                     "residual=)"});
  // ... and the compiler in the Funcs' (the kernel's Funcs, defined for the coupled 910).
  kernels::Conv2d cv = kernels::conv2d(o, chip());
  expect_compile_error(cv.outputs(), {"leaves L0C through the FixPipe straight to GM", "fuse an epilogue the vector cores compute"},
                       "ascend910b2");
}

TEST(SubsampledErrors, NotAConvolution) {
  kernels::MatmulOptions mo;
  mo.m = 32, mo.n = 32, mo.k = 32;
  kernels::Matmul mm = kernels::matmul(mo, chip());
  dsl::Var i("i"), j("j");
  dsl::Func f("Cs");
  f(i, j) = mm.out(i * 2, j * 2);
  f.bound(i, 0, 16).bound(j, 0, 16);
  f.store_with(mm.out);
  expect_compile_error({mm.out, f}, {"Cs.store_with(C): a second output at every s-th row and column is a convolution's"});
}

TEST(SubsampledErrors, CompiledAlone) {
  auto o = options();
  o.subsampled = 2;
  kernels::Conv2d cv = kernels::conv2d(o, chip());
  expect_compile_error({*cv.sub}, {"Ys.store_with(Y): Ys is written by Y's kernel: compile the two together, Y first"});
}

TEST(SubsampledErrors, SecondOutputWithoutStoreWith) {
  kernels::Conv2d cv = kernels::conv2d(options(), chip());
  dsl::Var n("n"), k("k"), y("y"), x("x");
  dsl::Func f("Ys");
  f(n, k, y, x) = cv.out(n, k, y * 2, x * 2);
  f.bound(y, 0, 4).bound(x, 0, 4);
  expect_compile_error({cv.out, f}, {"Ys: a kernel makes one Func, Y; a second output is written by its kernel only with Ys.store_with(Y)"});
}

TEST(SubsampledErrors, TwoSecondOutputs) {
  auto o = options();
  o.subsampled = 2;
  kernels::Conv2d cv = kernels::conv2d(o, chip());
  expect_compile_error({cv.out, *cv.sub, *cv.sub}, {"Y already has a second output, Ys; a kernel writes at most two"});
}

TEST(SubsampledErrors, ScheduledOnItsOwn) {
  auto o = options();
  o.subsampled = 2;
  kernels::Conv2d cv = kernels::conv2d(o, chip());
  cv.sub->double_buffer();
  expect_compile_error(cv.outputs(), {"Ys.double_buffer(): Ys is written by Y's kernel, from its strips; it takes no schedule of its own"});
}

TEST(SubsampledErrors, OfAVectorFunc) {
  dsl::Input a("A", DType::f16, {8, 8});
  dsl::Var i("i"), j("j");
  dsl::Func r("R"), s("S");
  r(i, j) = a(i, j) + a(i, j);
  s(i, j) = r(i * 2, j * 2);
  s.bound(i, 0, 4).bound(j, 0, 4);
  s.store_with(r);
  expect_compile_error({r, s}, {"S.store_with(R): a second output is a convolution's; R is not one"});
}

}  // namespace
}  // namespace cubekit::test
