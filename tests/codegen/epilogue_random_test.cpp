// A randomized property of fused matmul epilogues: every epilogue the API accepts compiles to a
// program that runs clean on the emulator and matches the Halide reference. Shapes, transposes,
// the default schedule's overrides and the epilogue's expression tree (over the contraction's
// result, per-column inputs and constants) all come from one fixed seed, so a failure reproduces;
// each failing case prints its definitions and schedule. Now and then an epilogue reads an input
// per row or per tile, which docs/schedules.md says is refused: it must be a UserError, not a crash.
#include "codegen_test_util.h"
#include "random_cases.h"
#include "random_expr.h"
#include "emulator/error.h"
#include "emulator/program.h"
#include "kernels/check.h"
#include "kernels/matmul.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <random>

namespace cubekit {
namespace {

using dsl::Expr;
using dsl::Func;
using dsl::FuncRef;
using dsl::Input;
using dsl::RDom;
using dsl::Var;

using namespace test;  // NOLINT: the helpers of random_cases.h and random_expr.h

// Random epilogue expressions over the contraction's result `c` and per-column inputs `cols`.
class Gen {
 public:
  Gen(std::mt19937& rng, Val c, std::vector<Val> cols) : rng_(rng), c_(std::move(c)), cols_(std::move(cols)) {}

  int pick(size_t n) { return test::pick(rng_, n); }
  bool chance(double p) { return test::chance(rng_, p); }

  Val tree(int depth) {
    if (depth <= 0) {
      Val x = !cols_.empty() && chance(0.3) ? column() : c_;
      return chance(0.2) ? unary(Un::Cast, x) : x;
    }
    int k = pick(12);
    if (k < 5) {
      Val a = tree(depth - 1), b = operand(depth - 1);
      if (chance(0.3)) std::swap(a, b);
      return binary(Bin(k), a, b);
    }
    if (k < 9) return unary(Un(k - 5), tree(depth - 1));
    return select(depth);
  }

  Val constant() {
    static const double c[] = {0.5, 2, -1.5, 0.25, 3, -0.75, 0};
    double v = c[pick(std::size(c))];
    return {Expr(v), std::fabs(v), 0, true};
  }

 private:
  Val column() {
    Val x = cols_[size_t(pick(cols_.size()))];
    return chance(0.3) ? unary(Un(pick(4)), x) : x;
  }

  Val operand(int depth) {
    int k = pick(10);
    if (k < 3 && !cols_.empty()) return column();
    if (k < 5) return constant();
    return tree(depth);
  }

  // Two kinds of select. With an exact condition (per-column values and constants) both sides take
  // the same branch. With a condition on the (inexact) result, only a select continuous at its
  // threshold, select(x > 0, x, s * x) (a leaky ReLU), since a flip there changes little.
  Val select(int depth) {
    if (cols_.empty() || chance(0.3)) {
      Val x = tree(depth - 1), s = constant();
      Expr cond = chance(0.5) ? x.e > 0 : 0 < x.e;
      double sb = std::max(1.0, s.bound);
      return {dsl::select(cond, x.e, x.e * s.e), x.bound * sb, x.err * (1 + sb) + x.bound * sb * unit(type_of(x)),
              false, x.reads_c};
    }
    Val x = column(), y = chance(0.5) ? constant() : column();
    if (!is_const(y)) y = as(y, type_of(x));
    if (chance(0.25)) std::swap(x, y);
    Expr cond;
    switch (pick(6)) {
      case 0: cond = x.e < y.e; break;
      case 1: cond = x.e <= y.e; break;
      case 2: cond = x.e > y.e; break;
      case 3: cond = x.e >= y.e; break;
      case 4: cond = x.e == y.e; break;
      default: cond = x.e != y.e; break;
    }
    Val t = tree(depth - 1), f = operand(depth - 1);
    if (!is_const(f)) f = as(f, type_of(t));
    if (chance(0.5)) std::swap(t, f);
    return {dsl::select(cond, t.e, f.e), std::max(t.bound, f.bound), std::max(t.err, f.err), t.exact && f.exact,
            t.reads_c || f.reads_c};
  }

  std::mt19937& rng_;
  Val c_;
  std::vector<Val> cols_;
};

struct Case {
  Func c{"C"}, out{"D"};
  std::string text;  // shapes, definitions and schedule: what a reproduction needs
  double atol = 0;
};

Case make_case(std::mt19937& rng) {
  Gen any(rng, {}, {});
  Case c;
  static const int64_t dims[] = {1, 16, 17, 64, 100, 130, 256, 300};
  int64_t m, n, k;
  do {  // the emulator and Halide's JIT are the cost: keep each case well under a second
    m = dims[any.pick(8)], n = dims[any.pick(8)], k = dims[any.pick(8)];
  } while (m * n * k > 4'000'000);
  int64_t batch = any.chance(0.2) ? 2 + any.pick(2) : 0;
  bool ta = any.chance(0.3), tb = any.chance(0.3);

  Var b("b"), mv("m"), nv("n");
  RDom r(0, k, "k");
  auto shape = [&](int64_t x, int64_t y) {
    std::vector<int64_t> s;
    if (batch) s.push_back(batch);
    s.push_back(x), s.push_back(y);
    return s;
  };
  auto index = [&](Expr x, Expr y) {
    std::vector<Expr> i;
    if (batch) i.push_back(b);
    i.push_back(x), i.push_back(y);
    return i;
  };
  Input A("A", DType::f16, ta ? shape(k, m) : shape(m, k)), B("B", DType::f16, tb ? shape(n, k) : shape(k, n));
  std::vector<Expr> all = index(mv, nv);
  define(c.c, all, dsl::sum(dsl::cast(DType::f32, A.call(ta ? index(r, mv) : index(mv, r))) *
                            dsl::cast(DType::f32, B.call(tb ? index(nv, r) : index(r, nv)))));
  c.text = fmt::format("A{}[{}] B{}[{}] f16\n{}\n", ta ? "^T" : "", fmt::join(A.shape(), ", "), tb ? "^T" : "",
                       fmt::join(B.shape(), ", "), definition(c.c));

  kernels::MatmulOptions o;
  // A tile bigger than its extent is a user error (split's factor); pick among those that fit, or
  // let the schedule choose (0).
  auto tile = [&](int64_t extent) {
    static const int64_t tiles[] = {0, 0, 16, 32, 48, 64, 128, 256};
    int64_t t;
    do t = tiles[any.pick(std::size(tiles))];
    while (t > extent);
    return t;
  };
  o.tm = tile(m), o.tn = tile(n);
  if (any.chance(0.3)) o.double_buffer = any.chance(0.5);
  if (any.chance(0.3)) o.use_cores = any.chance(0.5);
  if (any.chance(0.3)) o.stagger = any.chance(0.5);
  c.text += fmt::format("default_schedule(C, tm {}, tn {}, double_buffer {}, use_cores {}, stagger {})\n", o.tm, o.tn,
                        o.double_buffer ? fmt::format("{}", *o.double_buffer) : "-",
                        o.use_cores ? fmt::format("{}", *o.use_cores) : "-",
                        o.stagger ? fmt::format("{}", *o.stagger) : "-");

  // C's drift: f16 products are exact in f32, so it is the rounding of k partial sums on each side,
  // each at most 2^-24 of sum |a||b| (about k / 4 for uniform inputs; k / 2 leaves room). Its bound
  // is six standard deviations (sqrt(k) / 3 each) rather than k, which no random input reaches.
  double kk = double(k);
  Val cv{call(c.c, all), std::min(kk, 2 * std::sqrt(kk) + 1), kk * 0x1p-23 * (kk / 2 + 1), false, true};
  std::vector<Val> cols;
  std::string inputs;
  for (int i = 0, count = any.pick(3); i < count; ++i) {
    DType t = any.chance(0.8) ? DType::f32 : DType::f16;
    Input x(fmt::format("col{}", i), t, {n});
    cols.push_back({x(nv)});
    inputs += fmt::format("{}[{}] {} ", x.name(), n, dtype_name(t));
  }
  Gen gen(rng, cv, cols);
  Val value = gen.tree(1 + any.pick(4));
  if (!value.reads_c) value = binary(Bin::Add, value, cv);  // an epilogue reads its producer
  // What the docs say an epilogue refuses: an input per row, or one over the whole tile.
  int refused = any.pick(16);
  if (refused == 0) {
    Input p("P", DType::f32, {m});
    value = binary(Bin::Add, value, {p(mv)});
    inputs += fmt::format("P[{}] (per row) ", m);
  } else if (refused == 1) {
    Input x("X", DType::f32, shape(m, n));
    value = binary(Bin::Mul, value, {x.call(all)});
    inputs += fmt::format("X[{}] (full tile) ", fmt::join(x.shape(), ", "));
  }
  DType out = any.chance(0.5) ? DType::f16 : DType::f32;
  value = as(value, out);
  define(c.out, all, value.e);
  c.text += fmt::format("inputs {}\n{}\n", inputs, definition(c.out));

  c.c.schedule() = kernels::default_schedule(c.c, chip(), o);
  c.out.epilogue_of(c.c);
  std::string sched;
  for (const dsl::Directive& d : c.c.impl->schedule) sched += "." + d.text;
  c.text += "schedule: C" + sched + "; D.epilogue_of(C)";
  // Four times the drift estimate, and never under compare()'s default for the output type.
  c.atol = std::max(out == DType::f16 ? 1e-2 : 1e-4, 4 * value.err);
  return c;
}

// What the randomized test found first: an operation on a per-column input alone, on a strip whose
// width (17) is not a multiple of 16, computed the strip's padding from UB nothing had written.
TEST(Epilogue, PerColumnOperationOnAnEdgeStripReadsOnlyWhatWasLoaded) {
  Input A("A", DType::f16, {16, 16}), B("B", DType::f16, {16, 17}), bias("bias", DType::f32, {17});
  Var m("m"), n("n");
  RDom k(0, 16, "k");
  Func C("C"), D("D");
  C(m, n) = dsl::sum(dsl::cast(DType::f32, A(m, k)) * dsl::cast(DType::f32, B(k, n)));
  D(m, n) = C(m, n) + dsl::abs(bias(n)) * bias(n);
  C.schedule() = kernels::default_schedule(C, chip());
  D.epilogue_of(C);
  kernels::KernelRun run = kernels::compile_and_run(D, chip(), {.seed = 1});
  EXPECT_TRUE(run.sim.report.clean()) << describe(run);
  EXPECT_TRUE(run.checked && run.check.pass) << run.check.max_abs;
}

TEST(EpilogueRandom, EveryAcceptedEpilogueRunsCleanAndMatchesHalide) {
  test::run_random_cases("epilogue random", 2024, 40, make_case);
}

}  // namespace
}  // namespace cubekit
