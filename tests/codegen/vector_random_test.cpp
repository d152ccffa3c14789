// A randomized property of the vector path: every Func and schedule the API accepts compiles to a
// program that runs clean on the emulator and matches the Halide reference. Shapes, expression
// trees, Func graphs (an elementwise producer, a per-row reduction) and schedules all come from one
// fixed seed, so a failure reproduces; each failing case prints its definitions and schedule.
#include "codegen_test_util.h"
#include "random_cases.h"
#include "random_expr.h"
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

using namespace test;  // NOLINT: the helpers of random_cases.h and random_expr.h

// Random expressions over the leaves one position offers: full values (rows.., last), per-row
// values (rows..) and per-column values (last). Every tree reads a full leaf, and per-row and
// per-column values only ever meet full ones: the shapes the vector path documents.
class Gen {
 public:
  Gen(std::mt19937& rng, std::vector<Val> full, std::vector<Val> row, std::vector<Val> col)
      : rng_(rng), full_(std::move(full)), row_(std::move(row)), col_(std::move(col)) {}

  int pick(size_t n) { return test::pick(rng_, n); }
  bool chance(double p) { return test::chance(rng_, p); }

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
  else if (any.chance(0.3)) c.out.multi_buffer(dsl::Level::UB, 1 + int(any.pick(4)));  // 1..4 copies; 4 past some chips' ids
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
  test::run_random_cases("vector random", 88, 60, make_case);
}

}  // namespace
}  // namespace cubekit
