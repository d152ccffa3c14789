// User errors of multi-dimensional RDoms, boundary conditions and the check that every read stays
// inside its tensor (dsl/bounds.h): one test per error, checking its message.
#include "codegen/lower.h"
#include "dsl/bounds.h"
#include "dsl/host.h"
#include "error_test_util.h"

namespace cubekit::test {
namespace {

using dsl::BoundaryConditions::constant_exterior;

TEST(DslBoundsErrors, ReadCanLeaveAnInput) {
  dsl::Input A("A", DType::f32, {8, 6});
  dsl::Var i("i"), j("j");
  dsl::Func F("F");
  F(i, j) = A(i + 1, j);
  F.bound(i, 0, 8);
  std::vector<uint8_t> a(8 * 6 * 4);
  std::vector<std::string> want = {"F: the read `A((i + 1), j)` can leave A", "index 0 `(i + 1)` reaches 1..8",
                                   "A's dimension 0 is 0..7", "Bound F's variables",
                                   "BoundaryConditions::constant_exterior(A, value)"};
  expect_user_error([&] { dsl::run_on_host(F, {{"A", &a}}); }, want);
}

TEST(DslBoundsErrors, ReadCanLeaveAFunc) {
  dsl::Input A("A", DType::f32, {8});
  dsl::Var i("i");
  dsl::RDom r(0, 3, "r");
  dsl::Func G("G"), F("F");
  G(i) = A(i) * 2;
  F(i) = dsl::sum(G(i + r));
  F.bound(i, 0, 8);
  std::vector<uint8_t> a(8 * 4);
  expect_user_error([&] { dsl::run_on_host(F, {{"A", &a}}); },
                    {"F: the read `G((i + r))` can leave G", "reaches 0..9", "G's dimension 0 is 0..7",
                     "a Func is computed only over its shape"});
}

TEST(DslBoundsErrors, BoundOnAVarTheFuncDoesNotHave) {
  dsl::Input A("A", DType::f32, {8});
  dsl::Var i("i"), other("i");
  dsl::Func F("F");
  F(i) = A(i) * 2;
  F.bound(other, 0, 4);
  expect_user_error([&] { F.shape(); }, {"F.bound(i, 0, 4): i is not one of F's variables (i); bound one of those (a Var of "
                                         "the same name is another Var)"});
}

TEST(DslBoundsErrors, FuncOfNoVariables) {
  dsl::Func F("F");
  expect_user_error([&] { F() = dsl::Expr(3.0); },
                    {"F: a Func is defined over at least one variable; a single value is a Func of one element"});
}

TEST(DslBoundsErrors, NamedAsABuffer) {
  expect_user_error([] { dsl::Input("UB", DType::f16, {16}); }, {"input 'UB' names a buffer; give the tensor another name"});
  expect_user_error([] { dsl::Func("l0a"); }, {"Func 'l0a' names a buffer; give the tensor another name"});
}

TEST(DslBoundsErrors, IndexReadFromData) {
  dsl::Input A("A", DType::f32, {8}), I("I", DType::s32, {8});
  dsl::Var i("i");
  dsl::Func F("F");
  F(i) = A(I(i));
  std::vector<uint8_t> a(8 * 4), idx(8 * 4);
  expect_user_error([&] { dsl::run_on_host(F, {{"A", &a}, {"I", &idx}}); },
                    {"F: the read `A(I(i))` can leave A", "reaches -2147483648..2147483647 (it depends on data read by the kernel)"});
}

TEST(DslBoundsErrors, RDomDimensionItDoesNotHave) {
  dsl::RDom r({{0, 3}, {0, 4}}, "r");
  expect_user_error([&] { dsl::Expr e = r.z; }, {"RDom r has 2 dimensions; r.z is not one of them"});
  expect_user_error([&] { r[2]; }, {"RDom r: dimension 2 does not exist; it has 2 (0 to 1)"});
  dsl::RDom k(0, 5, "k");
  expect_user_error([&] { dsl::Expr e = k.y; }, {"RDom k has one dimension, k itself; it has no .y"});
}

TEST(DslBoundsErrors, MultiDimensionalRDomUsedAsOneRVar) {
  dsl::Input A("A", DType::f32, {3, 4});
  dsl::RDom r({{0, 3}, {0, 4}}, "r");
  std::vector<std::string> want = {"RDom r has 2 dimensions: use one of them (r.x, r.y, ... or r[i])"};
  expect_user_error([&] { dsl::Expr e = r; }, want);
  dsl::Var i("i");
  dsl::RVar ro("ro"), ri("ri");
  dsl::Func F("F");
  F(i) = dsl::sum(A(r.x, r.y)) + cast(DType::f32, i);
  expect_user_error([&] { F.split(r, ro, ri, 2); }, want);
}

TEST(DslBoundsErrors, RDomWithoutDimensions) {
  expect_user_error([&] { dsl::RDom r(std::vector<std::pair<int64_t, int64_t>>{}, "r"); },
                    {"RDom r: give at least one (min, extent) pair"});
  expect_user_error([&] { dsl::RDom r({{0, 3}, {0, 0}}, "r"); }, {"RDom r.y: extent must be at least 1, got 0"});
}

TEST(DslBoundsErrors, RDomBeyond32Bits) {
  expect_user_error([&] { dsl::RDom r(INT64_C(1) << 31, 4, "k"); },
                    {"RDom k: the domain of 4 values from 2147483648 does not fit in 32 bits"});
  expect_user_error([&] { dsl::RDom r({{0, 3}, {2, INT64_MAX}}, "r"); }, {"RDom r.y: the domain", "does not fit in 32 bits"});
}

TEST(DslBoundsErrors, ExteriorValueOutsideTheDType) {
  dsl::Input Q("Q", DType::s8, {4}), H("H", DType::f16, {4});
  expect_user_error([&] { constant_exterior(Q, 300); },
                    {"constant_exterior(Q, 300)", "Q is s8, which holds the integers -128 to 127"});
  expect_user_error([&] { constant_exterior(Q, 0.5); }, {"constant_exterior(Q, 0.5)", "give one of them"});
  expect_user_error([&] { constant_exterior(H, 1e6); },
                    {"constant_exterior(H, 1000000)", "beyond the largest finite f16", "give a smaller one or inf"});
  expect_user_error([&] { constant_exterior(H, NAN); }, {"constant_exterior(H, nan)", "give the value outside as a number"});
}

TEST(DslBoundsErrors, ExteriorCalledWithTheWrongIndexCount) {
  dsl::Input A("A", DType::f32, {4, 4});
  dsl::Var i("i");
  expect_user_error([&] { constant_exterior(A, 0)(i); }, {"constant_exterior(A, 0) has 2 dimensions but is called with 1 indices"});
}

TEST(DslBoundsErrors, NonIntegerIndex) {
  dsl::Input A("A", DType::f32, {8});
  dsl::Var i("i");
  dsl::Func F("F"), G("G");
  F(i) = A(i);
  expect_user_error([&] { G(i) = F(cast(DType::f32, i)); }, {"F: index 0 `cast(f32, i)` is f32, but indices are integers"});
  expect_user_error([&] { G(i) = A(2.5); }, {"A: index 0 is 2.5, but indices are 32-bit integers"});
}

TEST(DslBoundsErrors, BoundTwice) {
  dsl::Input A("A", DType::f32, {8});
  dsl::Var i("i");
  dsl::Func F("F");
  F(i) = A(i);
  F.bound(i, 0, 4);
  expect_user_error([&] { F.bound(i, 0, 6); }, {"F.bound(i, 0, 6): i is bounded already (bound(i, 0, 4))"});
}

TEST(DslBoundsErrors, CompilingABoundaryCondition) {
  dsl::Input A("A", DType::f16, {16, 16});
  dsl::Var i("i"), j("j");
  dsl::Func F("F");
  F(i, j) = constant_exterior(A, 0)(i - 1, j) + A(i, j);
  expect_user_error([&] { codegen::compile(F, load_chip("ascend910")); },
                    {"F: A is read through a boundary condition", "the compiler lowers one only where a convolution reads its input",
                     "write F in one of those forms, compute it on the CPU"});
}

}  // namespace
}  // namespace cubekit::test
