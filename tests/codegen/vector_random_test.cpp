// A randomized property of the vector path: every Func and schedule the API accepts compiles to a
// program that runs clean on the emulator and matches the Halide reference. Shapes, expression
// trees, Func graphs (an elementwise producer, a per-row reduction) and schedules all come from one
// fixed seed, so a failure reproduces; each failing case prints its definitions and schedule.
#include "codegen_test_util.h"
#include "emulator/error.h"
#include "emulator/program.h"
#include "kernels/check.h"

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

using test::chip;
using test::describe;

// A generated expression and what is known of it for inputs in [-1, 1] (GlobalMemory::fill_inputs):
// a bound on its magnitude, an estimate of how far two correct evaluations of it may drift apart
// (approximate exp and reciprocals, summation order, fused multiply-adds in Halide's f32 code), and
// whether it is `exact`: only steps both sides round identically, so that comparing it flips the
// same way on the emulator and in Halide (select() is the one discontinuous operation).
struct Val {
  Expr e;
  double bound = 1, err = 0;
  bool exact = true;
};

double unit(DType t) { return t == DType::f16 ? 0x1p-11 : 0x1p-24; }
DType type_of(const Val& v) { return v.e.type().dtype; }
DType other(DType t) { return t == DType::f16 ? DType::f32 : DType::f16; }
bool is_const(const Val& v) { return v.e.node().op == dsl::Op::Const; }

Val as(const Val& v, DType t) {
  if (is_const(v) || type_of(v) == t) return v;
  return {dsl::cast(t, v.e), v.bound, v.err + v.bound * unit(t), v.exact};
}

enum class Bin { Add, Sub, Mul, Div, Min, Max };

// a op b in a's type (b converted). Division is by |b| + 1, bounded away from 0; a product whose
// bound would grow past what f16 holds comfortably becomes a min().
Val binary(Bin op, Val a, Val b) {
  if (!is_const(a) && !is_const(b)) b = as(b, type_of(a));
  if (op == Bin::Mul && a.bound * b.bound > 256) op = Bin::Min;
  Val r;
  switch (op) {
    case Bin::Add: r = {a.e + b.e, a.bound + b.bound, a.err + b.err, a.exact && b.exact}; break;
    case Bin::Sub: r = {a.e - b.e, a.bound + b.bound, a.err + b.err, a.exact && b.exact}; break;
    case Bin::Mul: r = {a.e * b.e, a.bound * b.bound, a.err * b.bound + b.err * a.bound, false}; break;
    case Bin::Div:
      if (is_const(b)) r = {a.e / (std::fabs(b.e.node().value) + 1), a.bound, a.err, false};
      else r = {a.e / (dsl::abs(b.e) + 1), a.bound, a.err + a.bound * b.err, false};
      r.err += 2 * r.bound * unit(type_of(is_const(a) ? b : a));  // a reciprocal and a multiply
      break;
    case Bin::Min: r = {dsl::min(a.e, b.e), std::max(a.bound, b.bound), std::max(a.err, b.err), a.exact && b.exact}; break;
    case Bin::Max: r = {dsl::max(a.e, b.e), std::max(a.bound, b.bound), std::max(a.err, b.err), a.exact && b.exact}; break;
  }
  r.err += r.bound * unit(type_of(r));
  return r;
}

enum class Un { Abs, Neg, Exp, Sqrt, Cast };

Val unary(Un op, const Val& a) {
  double u = unit(type_of(a));
  switch (op) {
    case Un::Abs: return {dsl::abs(a.e), a.bound, a.err, a.exact};
    case Un::Neg: return {-a.e, a.bound, a.err, a.exact};
    case Un::Exp: {  // of at most 2: e^2 bounds the value and the slope
      double b = std::exp(std::min(a.bound, 2.0));
      return {dsl::exp(dsl::min(a.e, 2)), b, b * a.err + 4 * b * u, false};
    }
    case Un::Sqrt: {
      double b = std::sqrt(a.bound);
      return {dsl::sqrt(dsl::abs(a.e)), b, std::sqrt(a.err) + 2 * b * u, false};
    }
    case Un::Cast: return as(a, other(type_of(a)));
  }
  return a;
}

// Random expressions over the leaves one position offers: full values (rows.., last), per-row
// values (rows..) and per-column values (last). Every tree reads a full leaf, and per-row and
// per-column values only ever meet full ones: the shapes the vector path documents.
class Gen {
 public:
  Gen(std::mt19937& rng, std::vector<Val> full, std::vector<Val> row, std::vector<Val> col)
      : rng_(rng), full_(std::move(full)), row_(std::move(row)), col_(std::move(col)) {}

  int pick(size_t n) { return std::uniform_int_distribution<int>(0, int(n) - 1)(rng_); }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }

  Val tree(int depth) {
    if (depth <= 0) return chance(0.2) ? unary(Un::Cast, leaf(full_)) : leaf(full_);
    int k = pick(12);
    if (k < 6) {
      Val a = tree(depth - 1), b = operand(depth - 1);
      if (chance(0.3)) std::swap(a, b);
      return binary(Bin(k), a, b);
    }
    if (k < 11) return unary(Un(k - 6), tree(depth - 1));
    return select(depth);
  }

 private:
  Val leaf(const std::vector<Val>& from) { return from[size_t(pick(from.size()))]; }
  Val constant() {
    static const double c[] = {0.5, 2, -1.5, 0.25, 3, -0.75};
    double v = c[pick(std::size(c))];
    return {Expr(v), std::fabs(v), 0, true};
  }

  // What a full value may be combined with.
  Val operand(int depth) {
    int k = pick(10);
    if (k < 2 && !row_.empty()) return chance(0.3) ? unary(Un(pick(4)), leaf(row_)) : leaf(row_);
    if (k < 4 && !col_.empty()) return chance(0.3) ? unary(Un(pick(4)), leaf(col_)) : leaf(col_);
    if (k < 5) return constant();
    return tree(depth);
  }

  static std::vector<Val> exact(const std::vector<Val>& from) {
    std::vector<Val> ok;
    for (const Val& v : from)
      if (v.exact) ok.push_back(v);
    return ok;
  }

  Val exact_full() {
    std::vector<Val> ok = exact(full_);
    Val x = leaf(ok);
    switch (pick(6)) {
      case 0: return unary(Un::Abs, x);
      case 1: return unary(Un::Neg, x);
      case 2: return unary(Un::Cast, x);
      case 3: return binary(Bin::Min, x, constant());
      case 4: return binary(Bin::Add, x, leaf(ok));
      default: return x;
    }
  }

  Val select(int depth) {
    Val x = exact_full(), y;
    int k = pick(5);
    if (k == 0 && !exact(row_).empty()) y = leaf(exact(row_));
    else if (k == 1 && !col_.empty()) y = leaf(col_);
    else if (k == 2) y = constant();
    else y = exact_full();
    y = as(y, type_of(x));
    if (chance(0.25)) std::swap(x, y);  // a constant first too
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
    return {dsl::select(cond, t.e, f.e), std::max(t.bound, f.bound), std::max(t.err, f.err), t.exact && f.exact};
  }

  std::mt19937& rng_;
  std::vector<Val> full_, row_, col_;
};

Expr call(const Func& f, std::vector<Expr> args) { return FuncRef(f.impl, std::move(args)); }
void define(const Func& f, std::vector<Expr> args, const Expr& value) { FuncRef(f.impl, std::move(args)) = value; }

std::string definition(const Func& f) {
  std::vector<std::string> args;
  for (const auto& v : f.impl->args) args.push_back(v->name);
  return fmt::format("{}({}) = {};", f.name(), fmt::join(args, ", "), f.impl->value.str());
}

struct Case {
  Func out{"out"};
  std::string text;  // shape, definitions and schedule: what a reproduction needs
  double atol = 0;
};

Case make_case(std::mt19937& rng) {
  Gen any(rng, {}, {}, {});
  Case c;
  int rank = 1 + any.pick(3);
  static const int64_t last_dims[] = {1, 7, 17, 33, 100, 300, 1000};
  std::vector<int64_t> shape;
  if (rank == 1) {
    static const int64_t flat_dims[] = {1, 7, 17, 33, 100, 1000, 4097, 12345, 200000};
    shape = {flat_dims[any.pick(std::size(flat_dims))]};
  } else {
    static const int64_t lead[] = {1, 2, 3, 5, 7, 17, 64, 100};
    for (int i = 0; i + 1 < rank; ++i) shape.push_back(lead[any.pick(rank == 2 ? 8 : 5)]);
    shape.push_back(last_dims[any.pick(std::size(last_dims))]);
  }
  int64_t cols = shape.back();
  DType dtype = any.chance(0.5) ? DType::f16 : DType::f32;

  std::vector<Var> v;
  for (int i = 0; i < rank; ++i) v.emplace_back(i + 1 == rank ? "c" : fmt::format("r{}", i));
  RDom k(0, cols, "k");
  std::vector<Expr> rows(v.begin(), v.end() - 1), all(v.begin(), v.end()), along_k = rows;
  along_k.push_back(k);
  std::vector<int64_t> lead_shape(shape.begin(), shape.end() - 1);

  std::vector<Val> full_c, full_k, row, col_c, col_k;
  std::string inputs;
  for (int i = 0, n = 1 + any.pick(3); i < n; ++i) {
    Input x(fmt::format("X{}", i), dtype, shape);
    full_c.push_back({x.call(all)}), full_k.push_back({x.call(along_k)});
    inputs += fmt::format("{}[{}] ", x.name(), fmt::join(shape, ", "));
  }
  if (rank >= 2 && any.chance(0.3)) {
    Input p("P", dtype, lead_shape);
    row.push_back({p.call(rows)});
    inputs += fmt::format("P[{}] ", fmt::join(lead_shape, ", "));
  }
  if (rank >= 2 && any.chance(0.3)) {
    Input q("Q", dtype, {cols});
    col_c.push_back({q(v.back())}), col_k.push_back({q(k)});
    inputs += fmt::format("Q[{}] ", cols);
  }
  c.text = fmt::format("{} inputs {}\n", dtype_name(dtype), inputs);

  if (any.chance(0.3)) {  // an elementwise producer the output (and a reduction) reads
    Func g("G");
    Val gv = Gen(rng, full_c, row, col_c).tree(1 + any.pick(2));
    define(g, all, gv.e);
    c.text += definition(g) + "\n";
    full_c.push_back({call(g, all), gv.bound, gv.err, gv.exact});
    full_k.push_back({call(g, along_k), gv.bound, gv.err, gv.exact});
  }
  std::vector<Val> row_out = row;
  if (rank >= 2 && any.chance(1.0 / 3)) {  // a per-row reduction the output reads
    Func r("R");
    Val body = Gen(rng, full_k, row, col_k).tree(any.pick(3)), rv;
    double n = double(cols);
    switch (any.pick(3)) {
      case 0:  // in f32: an f16 sum of 1000 terms is mostly rounding, on both sides differently
        body = as(body, DType::f32);
        rv = {dsl::sum(body.e), body.bound * n, n * body.err + n * n * body.bound * unit(DType::f32), false};
        if (rv.bound > 4096) rv = {rv.e / n, body.bound, rv.err / n + body.bound * unit(DType::f32), false};
        break;
      case 1: rv = {dsl::maximum(body.e), body.bound, body.err, body.exact}; break;
      default: rv = {dsl::minimum(body.e), body.bound, body.err, body.exact}; break;
    }
    define(r, rows, rv.e);
    c.text += definition(r) + "\n";
    rv.e = call(r, rows);
    row_out.push_back(rv);
  }
  Gen out_gen(rng, full_c, row_out, col_c);
  Val value = out_gen.tree(1 + any.pick(4));
  if (row_out.size() > row.size()) {  // use the reduction for sure
    static const Bin uses[] = {Bin::Sub, Bin::Add, Bin::Mul, Bin::Div, Bin::Max};
    value = binary(uses[any.pick(std::size(uses))], value, row_out.back());
  }
  value = as(value, dtype);
  define(c.out, all, value.e);
  c.text += definition(c.out) + "\n";

  if (any.chance(0.5)) c.out.cores({v.front()});
  if (any.chance(0.5)) c.out.double_buffer();
  // tile_rows() is for Funcs with per-row or per-column values; now and then a flat one gets it too,
  // to see it refused.
  if (any.chance(row_out.empty() && col_c.empty() ? 0.1 : 0.6)) {
    static const int64_t tiles[] = {1, 2, 3, 7, 8, 16, 64, 255, 256, 1000, 5000};
    c.out.tile_rows(tiles[any.pick(std::size(tiles))]);
  }
  std::string sched;
  for (const dsl::Directive& d : c.out.impl->schedule) sched += "." + d.text;
  c.text += "schedule: out" + sched;
  // Four times the drift estimate, and never under compare()'s default for the output type.
  c.atol = std::max(dtype == DType::f16 ? 1e-2 : 1e-4, 4 * value.err);
  return c;
}

TEST(VectorRandom, EveryAcceptedScheduleRunsCleanAndMatchesHalide) {
  std::mt19937 rng(88);
  const int cases = 60;
  int accepted = 0, rejected = 0, passed = 0;
  std::vector<std::string> rejections;
  for (int i = 0; i < cases; ++i) {
    Case c = make_case(rng);
    std::string what = fmt::format("case {} (atol {:.3g}):\n{}", i, c.atol, c.text);
    try {
      kernels::KernelRun run = kernels::compile_and_run(c.out, chip(), {.seed = uint64_t(i + 1), .atol = c.atol});
      ++accepted;
      EXPECT_TRUE(run.sim.report.clean()) << what << "\n" << describe(run);
      EXPECT_TRUE(run.checked && run.check.pass)
          << what << "\nmax abs error " << run.check.max_abs << ", max rel error " << run.check.max_rel << ", "
          << run.check.mismatches << " mismatches";
      passed += run.sim.report.clean() && run.checked && run.check.pass;
    } catch (const UserError& e) {
      ++rejected;
      if (rejections.size() < 4) rejections.push_back(fmt::format("case {}: {}", i, e.what()));
    } catch (const std::exception& e) {
      ++accepted;
      ADD_FAILURE() << what << "\nthrew: " << e.what();
    }
  }
  std::printf("vector random: %d cases, %d accepted, %d rejected, %d passed\n", cases, accepted, rejected, passed);
  for (const std::string& r : rejections) std::printf("  rejected %s\n", r.c_str());
  // A generator whose cases the API mostly refuses would test little.
  EXPECT_GE(accepted, cases * 2 / 3);
}

}  // namespace
}  // namespace cubekit
