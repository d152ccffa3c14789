// User errors in the values a DSL program is written with: a plain number that the integer type it
// meets cannot hold (`c * 0.5` computed `c * 0`), a Level made from a number that names no buffer
// (Python's Level(9) crashed the process), and matmul's overrides given to default_schedule for a
// Func that takes none of them (they were ignored). One test per error, checking its message.
#include "dsl/func.h"
#include "error_test_util.h"
#include "kernels/matmul.h"

namespace cubekit::test {
namespace {

using namespace cubekit::dsl;  // NOLINT: the DSL reads as in the kernels

class DslValueError : public testing::TestWithParam<ApiCase> {};

TEST_P(DslValueError, SaysWhatWhereAndHowToFix) { expect_user_error(GetParam().action, GetParam().expected, GetParam().name); }

const ApiCase kValueCases[] = {
    {"FractionMeetsAnInteger", [] { Var c("c"); Expr(c) * 0.5; },
     {"`c` * `0.5`: 0.5 is not a whole number, and c is s32: give a whole number, or cast c to a float type first"}},
    {"Int64PastS32", [] { Var c("c"); Expr(c) + (int64_t(1) << 40); },
     {"the number 1099511627776 is past the DSL's integers (s32, -2^31 .. 2^31 - 1)"}},
    {"FractionComparedWithAnInteger", [] { Var c("c"); Expr(c) < 2.5; },
     {"`c` < `2.5`: 2.5 is not a whole number, and c is s32"}},
    {"NumberOutOfAnIntegersRange",
     [] {
       Input S("S", DType::s8, {16});
       Var i("i");
       S(i) + 300;
     },
     {"`S(i)` + `300`: 300 is out of s8's range, -128..127: give a number in it, or cast S(i) to a wider type first"}},
    {"OperandsOfTwoTypes",  // it suggested the left's type, s8, which the vector unit then refused
     [] {
       Input S("S", DType::s8, {16}), F("F", DType::f32, {16});
       Var i("i");
       S(i) * F(i);
     },
     {"`S(i)` * `F(i)`: the operands are s8 and f32; cast one to the other's type, e.g. cast(f32, S(i))"}},
    {"LevelOfNoBuffer", [] { Func F("F"); F.multi_buffer(Level(9), 2); },
     {"F.multi_buffer: Level(9) is not a buffer level; the levels are Level.GM, L1, L0A, L0B, L0C and UB (0 to 5)"}},
    {"LevelOfNoBufferInASchedule", [] { Schedule().store_in(Level(6)); },
     {"store_in: Level(6) is not a buffer level"}},
    {"MatmulOverridesForAnElementwiseFunc",
     [] {
       Input X("X", DType::f32, {4, 16});
       Var r("r"), c("c");
       Func G("G");
       G(r, c) = X(r, c) * 2.0;
       kernels::MatmulOptions o;
       o.tm = 64, o.tk_l1 = -5;
       (void)kernels::default_schedule(G, chip910(), o);
     },
     {"default_schedule(G): G is not a contraction: the vector kernels' schedule takes use_cores and double_buffer "
      "only; tm=64, tk_l1=-5 are matmul's"}},
};
INSTANTIATE_TEST_SUITE_P(Values, DslValueError, testing::ValuesIn(kValueCases), api_case_name);

// What the refusals leave alone: whole numbers meet integers, fractions meet floats.
TEST(DslValues, WholeNumbersAndFloatsStillMix) {
  Var c("c");
  Input X("X", DType::f32, {8});
  EXPECT_EQ((Expr(c) * 2.0).str(), "(c * 2)");
  EXPECT_EQ((X(c) * 0.5).type().dtype, DType::f32);
  Input S("S", DType::s8, {8});
  EXPECT_NO_THROW(S(c) + -128);
}

}  // namespace
}  // namespace cubekit::test
