// Shared by the randomized tests of the vector path and of fused epilogues: random expressions
// that carry what is known of them for inputs in [-1, 1] (GlobalMemory::fill_inputs), so that a
// tolerance follows from the tree instead of being guessed.
#pragma once

#include "dsl/expr.h"

#include <algorithm>
#include <cmath>

namespace cubekit::test {

// A generated expression: a bound on its magnitude, an estimate of how far two correct
// evaluations of it may drift apart (approximate exp and reciprocals, summation order, fused
// multiply-adds in Halide's f32 code), and whether it is `exact`: only steps both sides round
// identically, so that comparing it flips the same way on the emulator and in Halide (select() is
// the one discontinuous operation). `reads_c`: it reads a contraction's result (epilogues).
struct Val {
  dsl::Expr e;
  double bound = 1, err = 0;
  bool exact = true;
  bool reads_c = false;
};

inline double unit(DType t) { return t == DType::f16 ? 0x1p-11 : 0x1p-24; }
inline DType type_of(const Val& v) { return v.e.type().dtype; }
inline DType other(DType t) { return t == DType::f16 ? DType::f32 : DType::f16; }
inline bool is_const(const Val& v) { return v.e.node().op == dsl::Op::Const; }

inline Val as(const Val& v, DType t) {
  if (is_const(v) || type_of(v) == t) return v;
  return {dsl::cast(t, v.e), v.bound, v.err + v.bound * unit(t), v.exact, v.reads_c};
}

// Div last: a generator that leaves division out picks among the first five.
enum class Bin { Add, Sub, Mul, Min, Max, Div };

// a op b in a's type (b converted). Division is by |b| + 1, bounded away from 0; a product whose
// bound would grow past what f16 holds comfortably becomes a min().
inline Val binary(Bin op, Val a, Val b) {
  if (!is_const(a) && !is_const(b)) b = as(b, type_of(a));
  if (op == Bin::Mul && a.bound * b.bound > 256) op = Bin::Min;
  bool ex = a.exact && b.exact, rc = a.reads_c || b.reads_c;
  DType t = type_of(is_const(a) ? b : a);
  Val r;
  switch (op) {
    case Bin::Add: r = {a.e + b.e, a.bound + b.bound, a.err + b.err, ex, rc}; break;
    case Bin::Sub: r = {a.e - b.e, a.bound + b.bound, a.err + b.err, ex, rc}; break;
    case Bin::Mul: r = {a.e * b.e, a.bound * b.bound, a.err * b.bound + b.err * a.bound, false, rc}; break;
    case Bin::Min: r = {dsl::min(a.e, b.e), std::max(a.bound, b.bound), std::max(a.err, b.err), ex, rc}; break;
    case Bin::Max: r = {dsl::max(a.e, b.e), std::max(a.bound, b.bound), std::max(a.err, b.err), ex, rc}; break;
    case Bin::Div:
      if (is_const(b)) r = {a.e / (std::fabs(b.e.node().value) + 1), a.bound, a.err, false, rc};
      else r = {a.e / (dsl::abs(b.e) + 1), a.bound, a.err + a.bound * b.err, false, rc};
      r.err += 2 * r.bound * unit(t);  // a reciprocal and a multiply
      break;
  }
  r.err += r.bound * unit(t);
  return r;
}

// Sqrt last: a generator that leaves it out picks among the first four.
enum class Un { Abs, Neg, Exp, Cast, Sqrt };

inline Val unary(Un op, const Val& a) {
  double u = unit(type_of(a));
  switch (op) {
    case Un::Abs: return {dsl::abs(a.e), a.bound, a.err, a.exact, a.reads_c};
    case Un::Neg: return {-a.e, a.bound, a.err, a.exact, a.reads_c};
    case Un::Exp: {  // of at most 2: e^2 bounds the value and the slope
      double b = std::exp(std::min(a.bound, 2.0));
      return {dsl::exp(dsl::min(a.e, 2)), b, b * a.err + 4 * b * u, false, a.reads_c};
    }
    case Un::Cast: return as(a, other(type_of(a)));
    case Un::Sqrt: {
      double b = std::sqrt(a.bound);
      return {dsl::sqrt(dsl::abs(a.e)), b, std::sqrt(a.err) + 2 * b * u, false, a.reads_c};
    }
  }
  return a;
}

}  // namespace cubekit::test
