// kernels::default_schedule on Funcs written by hand: a contraction gets exactly the schedule
// kernels::matmul gives the same product (so the same program and cycles), any other Func the
// vector kernels' schedule; both run correct against Halide and clean.
#include "codegen/lower.h"
#include "emulator/emulator.h"
#include "codegen_test_util.h"
#include "kernels/check.h"
#include "kernels/matmul.h"

#include <gtest/gtest.h>

namespace cubekit {
namespace {

using dsl::cast;
using dsl::Expr;
using dsl::Func;
using dsl::Input;
using dsl::RDom;
using dsl::Var;
using kernels::MatmulOptions;

using test::chip;

using test::describe;

// Runs f checked against Halide and returns its cycles.
int64_t run_checked(const Func& f, double atol) {
  kernels::KernelRun run = kernels::compile_and_run(f, chip(), {.seed = 3, .atol = atol});
  EXPECT_TRUE(run.sim.report.clean()) << describe(run);
  EXPECT_TRUE(run.checked && run.check.pass) << "max abs error " << run.check.max_abs;
  return run.sim.report.cycles;
}

int64_t matmul_cycles(const MatmulOptions& o) {
  kernels::Matmul mm = kernels::matmul(o, chip());
  return kernels::compile_and_run(mm.c, chip(), {.reference = false}).sim.report.cycles;
}

// C(m, n) = sum_k A(k, m) * B(k, n): A stored transposed, as a user might write it.
TEST(DefaultSchedule, TransposedContractionMatchesHalideAndMatmulsCycles) {
  const int64_t M = 200, N = 300, K = 150;
  Input A("A", DType::f16, {K, M}), B("B", DType::f16, {K, N});
  Var m("m"), n("n");
  RDom k(0, K, "k");
  Func C("C");
  C(m, n) = dsl::sum(cast(DType::f32, A(k, m)) * cast(DType::f32, B(k, n)));
  C.schedule() = kernels::default_schedule(C, chip());
  int64_t cycles = run_checked(C, 1e-4);
  MatmulOptions o;
  o.m = M, o.n = N, o.k = K, o.transpose_a = true;
  EXPECT_EQ(cycles, matmul_cycles(o));
}

TEST(DefaultSchedule, BatchedHalfOutputMatchesHalideAndMatmulsCycles) {
  const int64_t Bt = 3, M = 100, N = 64, K = 300;
  Input A("A", DType::f16, {Bt, M, K}), B("B", DType::f16, {Bt, K, N});
  Var b("b"), m("m"), n("n");
  RDom k(0, K, "k");
  Func C("C");
  C(b, m, n) = cast(DType::f16, dsl::sum(cast(DType::f32, A(b, m, k)) * cast(DType::f32, B(b, k, n))));
  C.schedule() = kernels::default_schedule(C, chip());
  int64_t cycles = run_checked(C, 1e-2);
  MatmulOptions o;
  o.batch = Bt, o.m = M, o.n = N, o.k = K, o.out = DType::f16;
  EXPECT_EQ(cycles, matmul_cycles(o));
}

// One Func, two schedules side by side: each compiles as written, C's own is left empty.
TEST(DefaultSchedule, OneFuncCompilesWithManySchedules) {
  const int64_t M = 128, N = 96, K = 200;
  Input A("A", DType::f16, {M, K}), B("B", DType::f16, {K, N});
  Var m("m"), n("n");
  RDom k(0, K, "k");
  Func C("C");
  C(m, n) = dsl::sum(cast(DType::f32, A(m, k)) * cast(DType::f32, B(k, n)));
  MatmulOptions naive;
  naive.schedule = MatmulOptions::Schedule::Naive;
  dsl::Schedule fast = kernels::default_schedule(C, chip()), slow = kernels::default_schedule(C, chip(), naive);
  Program p_fast = codegen::compile(C, fast, chip()).program, p_slow = codegen::compile(C, slow, chip()).program;
  EXPECT_TRUE(C.schedule().empty());
  EXPECT_NE(fast.str(), slow.str());
  int64_t fast_cycles = 0, slow_cycles = 0;
  for (auto [s, cycles] : {std::pair{&fast, &fast_cycles}, std::pair{&slow, &slow_cycles}}) {
    C.schedule() = *s;  // the same programs as compiling with the value
    EXPECT_EQ(print_program(codegen::compile(C, chip()).program), print_program(s == &fast ? p_fast : p_slow));
    *cycles = run_checked(C, 1e-4);
  }
  EXPECT_LT(fast_cycles, slow_cycles);
}

// C(m, n) = sum_k A(m, k) * B(k, n), or B(n, k) for s8 (its fractals hold 32 consecutive k),
// default-scheduled with `overrides`: correct, and as fast as kernels::matmul with them.
void expect_plain_product_like_matmul(DType in, DType acc, MatmulOptions overrides, int64_t M, int64_t N, int64_t K) {
  bool b_transposed = in == DType::s8;
  Input A("A", in, {M, K}), B("B", in, b_transposed ? std::vector<int64_t>{N, K} : std::vector<int64_t>{K, N});
  Var m("m"), n("n");
  RDom k(0, K, "k");
  Func C("C");
  C(m, n) = dsl::sum(cast(acc, A(m, k)) * cast(acc, b_transposed ? B(n, k) : B(k, n)));
  C.schedule() = kernels::default_schedule(C, chip(), overrides);
  int64_t cycles = run_checked(C, in == DType::s8 ? 0 : 1e-4);
  MatmulOptions o = overrides;
  o.m = M, o.n = N, o.k = K, o.in = in, o.out = acc, o.transpose_b = b_transposed;
  EXPECT_EQ(cycles, matmul_cycles(o));
}

TEST(DefaultSchedule, Int8AndOverridesAsInMatmul) {
  MatmulOptions overrides;
  overrides.tm = 32, overrides.stagger = false;
  expect_plain_product_like_matmul(DType::s8, DType::s32, overrides, 100, 70, 1000);
}

TEST(DefaultSchedule, NaiveAsInMatmul) {
  MatmulOptions naive;
  naive.schedule = MatmulOptions::Schedule::Naive;
  expect_plain_product_like_matmul(DType::f16, DType::f32, naive, 96, 80, 200);
}

// An elementwise chain and a row reduction get cores and double buffering, and beat the
// unscheduled Func (one core, single-buffered).
TEST(DefaultSchedule, VectorFuncsUseTheCoresAndStayCorrect) {
  Input X("X", DType::f16, {256, 512});
  Var r("r"), c("c");
  auto unscheduled_cycles = [&](const Func& f) {
    return kernels::compile_and_run(f, chip(), {.reference = false}).sim.report.cycles;
  };
  Func F("F"), G("G");
  F(r, c) = dsl::max(X(r, c) * 2 + 1, 0);
  G(r, c) = F(r, c) * F(r, c);
  Func Gs("Gs");
  Gs(r, c) = F(r, c) * F(r, c);
  int64_t before = unscheduled_cycles(G);
  Gs.schedule() = kernels::default_schedule(Gs, chip());
  EXPECT_LT(run_checked(Gs, 1e-2), before);

  RDom j(0, 512, "j");
  Func Max("Max"), N("N"), Ns("Ns");
  Max(r) = dsl::maximum(cast(DType::f32, X(r, j)));
  N(r, c) = cast(DType::f32, X(r, c)) - Max(r);
  Ns(r, c) = cast(DType::f32, X(r, c)) - Max(r);
  int64_t n_before = unscheduled_cycles(N);
  Ns.schedule() = kernels::default_schedule(Ns, chip());
  EXPECT_LT(run_checked(Ns, 1e-4), n_before);
}

}  // namespace
}  // namespace cubekit
