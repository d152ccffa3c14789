// User errors a probe of the C++ DSL met as a new kernel author, each once a silently different
// result or a message from a layer the author never wrote: a bound() on a fused epilogue (ignored:
// the kernel wrote the contraction's shape), a bound() on a convolution's images (the input's
// declared shape shrank), a matmul whose tensors pass 2 GiB (the assembler's 32-bit offset),
// kernels::compare of results of different sizes (a fail with no reason), two tensors of one name
// (the assembler's "declared twice"), an RVar outside a reduction (the vector path's rows). One test
// per error.
#include "codegen/lower.h"
#include "dsl/func.h"
#include "error_test_util.h"
#include "kernels/check.h"
#include "kernels/matmul.h"

namespace cubekit::test {
namespace {

using namespace cubekit::dsl;  // NOLINT: the DSL reads as in the kernels

struct Matmul {
  Input A{"A", DType::f16, {64, 64}}, B{"B", DType::f16, {64, 64}};
  Var m{"m"}, n{"n"};
  RDom k{0, 64, "k"};
  Func C{"C"};
  Matmul() {
    C(m, n) = sum(cast(DType::f32, A(m, k)) * cast(DType::f32, B(k, n)));
    C.schedule() = kernels::default_schedule(C, chip910());
  }
};

TEST(ProbeCppErrors, BoundOnAFusedEpilogue) {
  Matmul x;
  Func D("D");
  D(x.m, x.n) = x.C(x.m, x.n) * 2.0f;
  D.bound(x.m, 0, 40);
  D.epilogue_of(x.C);
  expect_user_error([&] { (void)codegen::compile(D, chip910()); },
                    {"D.epilogue_of(C): D is [40, 64] but C is [64, 64]; an epilogue computes every element of its "
                     "contraction: remove D.bound(m, 0, 40) and bound C instead"});
}

TEST(ProbeCppErrors, BoundOnAConvolutionsImages) {
  Input I("I", DType::f16, {3, 16, 8, 8}), W("W", DType::f16, {16, 16, 3, 3});
  Var n("n"), k("k"), y("y"), x("x");
  RDom r({{0, 16}, {0, 3}, {0, 3}}, "r");
  BoundaryConditions::Exterior P = constant_exterior(I, 0);
  Func O("O");
  O(n, k, y, x) = sum(cast(DType::f32, P(n, r.x, y + r.y - 1, x + r.z - 1)) * cast(DType::f32, W(k, r.x, r.y, r.z)));
  O.bound(y, 0, 8).bound(x, 0, 8).bound(n, 0, 2);
  expect_user_error([&] { (void)codegen::compile(O, chip910()); },
                    {"O: the output has 2 images but the input I has 3; a convolution keeps the batch: bound nothing on "
                     "n, or give I the images you want"});
}

TEST(ProbeCppErrors, TwoTensorsOfOneName) {
  Input X("X", DType::f16, {16, 64}), Y("X", DType::f16, {16, 64});
  Var r("r"), c("c");
  Func F("F");
  F(r, c) = X(r, c) + Y(r, c);
  expect_user_error([&] { (void)codegen::compile(F, chip910()); },
                    {"input X and input X are both named 'X': the kernel's tensors take their names; give them different "
                     "names"});
  Func G("X");
  G(r, c) = X(r, c) * 2.0f;
  expect_user_error([&] { (void)codegen::compile(G, chip910()); }, {"input X and the output Func X are both named 'X'"});
}

TEST(ProbeCppErrors, RVarOutsideAReduction) {
  Input X("X", DType::f16, {16, 64});
  Var r("r");
  RDom k(0, 64, "k");
  Func F("F");
  F(r) = X(r, k) * 2.0f;
  expect_user_error([&] { (void)codegen::compile(F, chip910()); },
                    {"F: the RVar k is used outside sum(), maximum() and minimum(); reduce over it, or use a Var"});
}

TEST(ProbeCppErrors, CompareResultsOfDifferentSizes) {
  const std::vector<uint8_t> got(16 * 4), want(10 * 4);
  expect_user_error([&] { (void)kernels::compare(got, want, DType::f32); },
                    {"compare: the results are 64 and 40 bytes; give two f32 tensors of the same size"});
}

}  // namespace
}  // namespace cubekit::test
