// How large a flash plan's modified scores can get: interval arithmetic over its score modifier g,
// the scaled score in [-bound, bound] and each index over its extent. The kernels keep a masked
// key at its score - 1e30, so only scores within kLargestScore of 0 stay apart from the masks; a
// score_mod that scales the scores up (s * 1e31) outgrew them with no word where the same scale
// given as `scale` was refused. A select's branch that is a constant of -kLargestScore or below (a
// score_mod's -inf, raised to -1e30) masks its key: it is no score, and is left out.
#include "schedules/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace cubekit::sched {

namespace {

using dsl::Expr;
using dsl::ExprNode;
using dsl::Op;

struct Interval {
  double lo, hi;
};

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr Interval kAnything{-kInf, kInf};

// The range of x * y over the corners; a NaN corner (0 x inf) is anything.
Interval corners(Interval a, Interval b, double (*f)(double, double)) {
  const double p[] = {f(a.lo, b.lo), f(a.lo, b.hi), f(a.hi, b.lo), f(a.hi, b.hi)};
  if (std::any_of(std::begin(p), std::end(p), [](double x) { return std::isnan(x); })) return kAnything;
  return {*std::min_element(std::begin(p), std::end(p)), *std::max_element(std::begin(p), std::end(p))};
}

class Reach {
 public:
  Reach(const AttentionPlan& p, double bound) : p_(p), bound_(bound) {}

  Interval operator()(const Expr& e) const {
    const ExprNode& n = e.node();
    auto arg = [&](size_t i) { return (*this)(n.args[i]); };
    switch (n.op) {
      case Op::Const: return {n.value, n.value};
      case Op::Func: return {-bound_, bound_};  // the score (a modifier calls no other Func: check_modifier)
      case Op::Var: return {0, double(extent(n)) - 1};
      case Op::Cast: {
        const Interval a = arg(0);
        return n.type.dtype == DType::f16 && std::max(std::fabs(a.lo), std::fabs(a.hi)) > 65504 ? kAnything : a;
      }
      case Op::Add: return corners(arg(0), arg(1), [](double x, double y) { return x + y; });
      case Op::Sub: return corners(arg(0), arg(1), [](double x, double y) { return x - y; });
      case Op::Mul: return corners(arg(0), arg(1), [](double x, double y) { return x * y; });
      case Op::Div: {
        const Interval b = arg(1);
        if (b.lo <= 0 && b.hi >= 0) return kAnything;
        return corners(arg(0), b, [](double x, double y) { return x / y; });
      }
      case Op::Min: return {std::min(arg(0).lo, arg(1).lo), std::min(arg(0).hi, arg(1).hi)};
      case Op::Max: return {std::max(arg(0).lo, arg(1).lo), std::max(arg(0).hi, arg(1).hi)};
      case Op::Neg: return {-arg(0).hi, -arg(0).lo};
      case Op::Abs: {
        const Interval a = arg(0);
        const double far = std::max(std::fabs(a.lo), std::fabs(a.hi));
        return {a.lo <= 0 && a.hi >= 0 ? 0 : std::min(std::fabs(a.lo), std::fabs(a.hi)), far};
      }
      case Op::Exp: return {std::exp(arg(0).lo), std::exp(arg(0).hi)};
      case Op::Log: {
        const Interval a = arg(0);
        return {a.lo > 0 ? std::log(a.lo) : -kInf, a.hi > 0 ? std::log(a.hi) : -kInf};
      }
      case Op::Sqrt: return {std::sqrt(std::max(0.0, arg(0).lo)), std::sqrt(std::max(0.0, arg(0).hi))};
      case Op::Select: {
        std::optional<Interval> r;
        for (size_t i : {size_t(1), size_t(2)}) {
          const ExprNode& branch = n.args[i].node();
          // A mask, not a score: -1e30 or below (-inf raised to it), or near it (-1e29 leaves a key out too).
          if (branch.op == Op::Const && branch.value <= -kLargestScore) continue;
          const Interval b = arg(i);
          r = r ? Interval{std::min(r->lo, b.lo), std::max(r->hi, b.hi)} : b;
        }
        return r.value_or(Interval{0, 0});
      }
      default: return kAnything;  // comparisons are a select's conditions; reads and reductions check_modifier refused
    }
  }

 private:
  int64_t extent(const ExprNode& n) const {
    const int64_t extents[] = {p_.batch, p_.heads, p_.seq_q, p_.seq_kv};
    const Expr* vars[] = {&p_.index.b, &p_.index.h, &p_.index.q, &p_.index.kv};
    for (size_t d = 0; d < 4; ++d)
      if (vars[d]->defined() && vars[d]->node().var == n.var) return extents[d];
    return std::max({p_.batch, p_.heads, p_.seq_q, p_.seq_kv});
  }

  const AttentionPlan& p_;
  double bound_;
};

}  // namespace

double score_reach(const AttentionPlan& p, double bound) {
  if (!p.score_mod.defined()) return bound;
  const Interval r = Reach(p, bound)(p.score_mod);
  if (std::isnan(r.lo) || std::isnan(r.hi)) return kInf;
  return std::max(std::fabs(r.lo), std::fabs(r.hi));
}

}  // namespace cubekit::sched
