// User errors of the numpy-habit vector kernels (kernels/vector.cpp): broadcasting shapes that do
// not broadcast or that the vector path does not read, operands of the wrong kind, options given
// to kernels that do not take them; and the same through `cubekit kernel NAME` (exit 2).
#include "error_test_util.h"
#include "kernels/vector.h"

namespace cubekit::test {
namespace {

kernels::VectorOptions options(std::vector<int64_t> x, std::vector<int64_t> y = {}) {
  kernels::VectorOptions o;
  o.shape = std::move(x), o.y_shape = std::move(y);
  return o;
}

class RobustnessKernelError : public testing::TestWithParam<ApiCase> {};

TEST_P(RobustnessKernelError, SaysWhatWhereAndHowToFix) {
  expect_user_error(GetParam().action, GetParam().expected, GetParam().name);
}

TEST(RobustnessKernelBaseline, GoodOptionsDefineKernels) {
  EXPECT_NO_THROW(kernels::vector_kernel("add", options({8, 16}, {16})));
  EXPECT_NO_THROW(kernels::vector_kernel("sum", options({8, 16})));
  auto scalar = options({8, 16});
  scalar.scalar = 2;
  EXPECT_NO_THROW(kernels::vector_kernel("div", scalar));
}

const ApiCase kCases[] = {
    {"ShapesDoNotBroadcast", [] { kernels::vector_kernel("add", options({4, 16}, {4, 8})); },
     {"add: shapes [4, 16] and [4, 8] do not broadcast: dimension 1 is 16 and 8 (numpy's rule: equal, or one of them 1)"}},
    {"OuterBroadcast", [] { kernels::vector_kernel("mul", options({7, 1}, {1, 9})); },
     {"mul: X [7, 1] and Y [1, 9] broadcast to [7, 9], which the vector path does not read directly",
      "broadcast one of them to [7, 9] first"}},
    {"BroadcastInTheMiddle", [] { kernels::vector_kernel("sub", options({3, 1, 9}, {3, 4, 9})); },
     {"sub: X [3, 1, 9] and Y [3, 4, 9] broadcast to [3, 4, 9], which the vector path does not read directly"}},
    // Once told to broadcast Y: a one-element Y is a constant (while [1, 1, 1] against [3, 4] ran).
    {"OneElementOperand", [] { kernels::vector_kernel("add", options({40}, {1})); },
     {"add: Y [1] is one value for every element of X [40]: give it as a constant (--scalar VALUE; in Python a number)"}},
    {"EmptyYDimension", [] { kernels::vector_kernel("add", options({4, 16}, {0, 16})); },
     {"add: every dimension of Y must be at least 1, got [0, 16]"}},
    {"YShapeAndScalar",
     [] {
       auto o = options({4, 16}, {16});
       o.scalar = 1.5;
       kernels::vector_kernel("add", o);
     },
     {"add: give Y's shape or a scalar, not both"}},
    {"IntegerY",
     [] {
       auto o = options({4, 16});
       o.y_dtype = DType::s8;
       kernels::vector_kernel("maximum", o);
     },
     {"maximum: Y is s8; the vector kernels take f16 or f32"}},
    {"YShapeForAUnaryKernel", [] { kernels::vector_kernel("exp", options({4, 16}, {16})); },
     {"exp: Y's shape and type and a scalar operand are for the binary kernels (add, sub, mul, div, maximum, minimum)"}},
    {"ScalarForAReduction",
     [] {
       auto o = options({4, 16});
       o.scalar = 2;
       kernels::vector_kernel("sum", o);
     },
     {"sum: Y's shape and type and a scalar operand are for the binary kernels"}},
    {"TileRowsForAnElementwiseKernel",
     [] {
       auto o = options({4, 16});
       o.tile_rows = 2;
       kernels::vector_kernel("sigmoid", o);
     },
     {"sigmoid: tile_rows applies to the row kernels (softmax, layernorm, rmsnorm, sum, max, min, mean)"}},
    {"EmptyShapeForAReduction", [] { kernels::vector_kernel("mean", options({4, 0})); },
     {"mean: every dimension must be at least 1, got [4, 0]"}},
};
INSTANTIATE_TEST_SUITE_P(Kernels, RobustnessKernelError, testing::ValuesIn(kCases), api_case_name);

class RobustnessCliError : public testing::TestWithParam<ErrorCase> {};

TEST_P(RobustnessCliError, ExitsTwoWithTheMessage) {
  const ErrorCase& c = GetParam();
  auto [code, err] = cubekit_stderr(c.input);
  EXPECT_EQ(code, 2) << "cubekit " << c.input << "\n" << err;
  for (const std::string& s : c.expected) EXPECT_THAT(err, testing::HasSubstr(s));
}

const ErrorCase kCli[] = {
    {"YShapeDoesNotBroadcast", "kernel add --rows 4 --cols 16 --y-shape 3",
     {"cubekit: error: add: shapes [4, 16] and [3] do not broadcast: dimension 1 is 16 and 3"}},
    {"OuterBroadcast", "kernel div --shape 7,1 --y-shape 1,9",
     {"cubekit: error: div: X [7, 1] and Y [1, 9] broadcast to [7, 9], which the vector path does not read directly"}},
    {"YDtypeNotFloat", "kernel minimum --rows 4 --cols 16 --y-dtype s32",
     {"cubekit: error: minimum: Y is s32; the vector kernels take f16 or f32"}},
    {"YShapeAndScalar", "kernel mul --rows 4 --cols 16 --y-shape 16 --scalar 2",
     {"cubekit: error: mul: give Y's shape or a scalar, not both"}},
    {"ScalarForAUnaryKernel", "kernel tanh --rows 4 --cols 16 --scalar 2", {"--scalar"}},
};
INSTANTIATE_TEST_SUITE_P(Cli, RobustnessCliError, testing::ValuesIn(kCli), case_name);

}  // namespace
}  // namespace cubekit::test
