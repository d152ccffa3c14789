// How flash()'s recogniser compares a user's Funcs with the attention form (attention_match.h).
#include "schedules/attention_match.h"

#include "emulator/arith.h"

#include <cmath>
#include <map>
#include <set>

namespace cubekit::sched {

using dsl::Expr;
using dsl::ExprNode;
using dsl::Op;

namespace {

// A Func's definition at a call's arguments, every variable replaced at once (one at a time, a
// call P(j, i) of P(i, j) = f(i, j) would become f(i, i)): through fresh variables first.
Expr at_call(const Expr& definition, const dsl::FuncImpl& f, const std::vector<Expr>& args) {
  Expr e = definition;
  std::vector<dsl::Var> fresh;
  for (size_t d = 0; d < f.args.size() && d < args.size(); ++d) {
    fresh.emplace_back(f.args[d]->name + "_at_call");
    e = dsl::substitute(e, f.args[d].get(), Expr(fresh.back()));
  }
  for (size_t d = 0; d < fresh.size(); ++d) e = dsl::substitute(e, fresh[d].impl.get(), args[d]);
  return e;
}

Expr with_value(const ExprNode& c, double v) {
  auto n = std::make_shared<ExprNode>(c);
  n->value = v;
  return Expr(std::move(n));
}

}  // namespace

// (So that a user's score scaled c * x, x / c, by 1 / sqrt(d), / sqrt(d) or inside its sum, on
// either factor, is the form's.)
Expr canonical(const Expr& e) {
  const ExprNode& n = e.node();
  auto is_const = [](const Expr& x) { return x.node().op == Op::Const; };
  // x * 1 as x: an unscaled score is the form's of scale 1.
  if (n.op == Op::Mul && n.args.size() == 2 && is_float(n.type.dtype) && is_const(n.args[1]) && n.args[1].node().value == 1)
    return canonical(n.args[0]);
  if (n.op == Op::Sqrt && n.args.size() == 1 && is_const(n.args[0]) && n.args[0].node().value >= 0)
    return with_value(n.args[0].node(), std::sqrt(n.args[0].node().value));
  // (x * c) * y as (x * y) * c: the constant last, out of the product (sum((q * c) * k)).
  if (n.op == Op::Mul && n.args.size() == 2 && is_float(n.type.dtype)) {
    const Expr x = canonical(n.args[0]);
    const ExprNode& m = x.node();
    if (m.op == Op::Mul && m.args.size() == 2 && is_const(m.args[1]) && !is_const(n.args[1]))
      return make(Op::Mul, n.type, {make(Op::Mul, n.type, {m.args[0], n.args[1]}), m.args[1]});
  }
  if (n.op == Op::Mul && n.args.size() == 2 && is_const(n.args[0]) && !is_const(n.args[1]))
    return make(Op::Mul, n.type, {n.args[1], n.args[0]});
  // sum_t V * E as sum_t E * V: a Func's call first in a product with anything else.
  if (n.op == Op::Mul && n.args.size() == 2 && n.args[1].node().op == Op::Func && n.args[0].node().op != Op::Func &&
      !is_const(n.args[0]))
    return make(Op::Mul, n.type, {n.args[1], n.args[0]});
  if (n.op == Op::Div && n.args.size() == 2 && is_float(n.type.dtype)) {
    const Expr c = canonical(n.args[1]);  // a constant, or the square root of one
    if (is_const(c) && c.node().value != 0) return make(Op::Mul, n.type, {n.args[0], with_value(c.node(), 1.0 / c.node().value)});
  }
  if (n.op == Op::Sum && n.args.size() == 1) {
    const Expr summand = canonical(n.args[0]);
    const ExprNode& m = summand.node();
    if (m.op == Op::Mul && m.args.size() == 2 && is_const(m.args[1]) && is_float(n.type.dtype))
      return make(Op::Mul, n.type, {make(Op::Sum, n.type, {m.args[0]}), m.args[1]});
  }
  return e;
}

namespace {

// Structural equality of two definitions: the same operations, constants, inputs and reduction
// domains, variables matched by where they are bound (a Func's arguments by position), each node
// taken as `canonical` spells it.
class SameForm {
 public:
  bool funcs(const dsl::FuncImpl& x, const dsl::FuncImpl& y) {
    if (x.args.size() != y.args.size()) return false;
    if (!seen_.insert({&x, &y}).second) return true;
    for (size_t i = 0; i < x.args.size(); ++i) scope_.vars[x.args[i].get()] = y.args[i].get();
    // A definition's RVars are its own: M, L and O may each reduce over an RDom of their own (as a
    // Halide user writes them) where the form's share one.
    scope_.rvars.clear(), scope_.rvars_back.clear();
    return exprs(x.value, y.value);
  }

 private:
  // a >= b is b <= a, and a > b is b < a: a user's causal select(i >= j, ..) is the form's
  // select(j <= i, ..).
  static bool flipped(Op op) { return op == Op::Ge || op == Op::Gt; }
  static Op unflipped(Op op) { return op == Op::Ge ? Op::Le : op == Op::Gt ? Op::Lt : op; }

  bool exprs(const Expr& a_written, const Expr& b_written) {
    const Expr a = canonical(a_written), b = canonical(b_written);
    const ExprNode &x = a.node(), &y = b.node();
    // A Func of one where the other has its definition (the user's scores' product in a Func of
    // its own, scaled in another; exp(S - M) written into the sums): the call is its definition
    // at its arguments.
    if (x.op == Op::Func && y.op != Op::Func) return exprs(inlined(x), b);
    if (y.op == Op::Func && x.op != Op::Func) return exprs(a, inlined(y));
    if (flipped(x.op) != flipped(y.op) && unflipped(x.op) == unflipped(y.op) && x.args.size() == 2 && y.args.size() == 2)
      return x.type == y.type && exprs(x.args[0], y.args[1]) && exprs(x.args[1], y.args[0]);
    if (x.op != y.op || !(x.type == y.type) || x.args.size() != y.args.size()) return false;
    switch (x.op) {
      case Op::Const: return x.value == y.value;
      case Op::Var: return var(*x.var, *y.var);
      case Op::Input: case Op::Exterior:
        if (x.input != y.input) return false;
        break;
      case Op::Func: {
        Scope outer = scope_;
        bool same = funcs(*x.func, *y.func);
        scope_ = std::move(outer);
        if (!same) return false;
        break;
      }
      default: break;
    }
    for (size_t i = 0; i < x.args.size(); ++i)
      if (!exprs(x.args[i], y.args[i])) return false;
    return true;
  }
  static Expr inlined(const ExprNode& call) { return at_call(call.func->value, *call.func, call.args); }
  // An RVar matches one of the same domain, the pairing one to one within a definition: a sum
  // over two RVars (sum_t sum_u E(t) V(u)) is not the form's one sum over t.
  bool var(const dsl::VarImpl& x, const dsl::VarImpl& y) {
    if (x.reduction != y.reduction) return false;
    if (x.reduction) {
      if (x.min != y.min || x.extent != y.extent) return false;
      const auto to = scope_.rvars.insert({&x, &y}).first;
      const auto from = scope_.rvars_back.insert({&y, &x}).first;
      return to->second == &y && from->second == &x;
    }
    auto it = scope_.vars.find(&x);
    return it != scope_.vars.end() && it->second == &y;
  }
  // A definition's pairings: its variables by position, its RVars as met.
  struct Scope {
    std::map<const dsl::VarImpl*, const dsl::VarImpl*> vars, rvars, rvars_back;
  } scope_;
  std::set<std::pair<const dsl::FuncImpl*, const dsl::FuncImpl*>> seen_;
};

}  // namespace

bool same_form(const dsl::FuncImpl& written, const dsl::FuncImpl& form) { return SameForm().funcs(written, form); }

namespace {

bool reads_var(const Expr& e, const dsl::VarImpl* var) {
  const ExprNode& n = e.node();
  if (n.op == Op::Var && n.var.get() == var) return true;
  for (const Expr& a : n.args)
    if (reads_var(a, var)) return true;
  return false;
}

// The inner cast of f32(t(x)), t a 16-bit float (a value rounded to it and back), else null.
const ExprNode* rounded(const Expr& e) {
  const ExprNode& outer = e.node();
  if (outer.op != Op::Cast || outer.type.dtype != DType::f32) return nullptr;
  const ExprNode& inner = outer.args[0].node();
  const bool half = inner.type.dtype == DType::f16 || inner.type.dtype == DType::bf16;
  return inner.op == Op::Cast && half && inner.args[0].type().dtype == DType::f32 ? &inner : nullptr;
}

}  // namespace

std::shared_ptr<dsl::FuncImpl> softmax_first(const dsl::FuncImpl& o) {
  const bool cast = o.value.node().op == Op::Cast;
  const Expr& total = cast ? o.value.node().args[0] : o.value;
  const ExprNode& sum = total.node();
  if (sum.op != Op::Sum || sum.args.size() != 1 || sum.args[0].node().op != Op::Mul) return nullptr;
  const ExprNode& product = sum.args[0].node();
  for (size_t k = 0; k < 2; ++k) {
    // P itself, or P rounded as the cube takes it, f32(in(P)): then E is rounded in its place.
    const Expr* factor = &product.args[k];
    const ExprNode* rounding = rounded(*factor);
    if (rounding) factor = &rounding->args[0];
    const ExprNode& call = factor->node();
    if (call.op != Op::Func || call.func->args.empty()) continue;
    const dsl::FuncImpl& p = *call.func;
    const ExprNode& ratio = p.value.node();
    if (ratio.op != Op::Div || ratio.args[0].node().op != Op::Func || ratio.args[1].node().op != Op::Func) continue;
    if (reads_var(ratio.args[1], p.args.back().get())) continue;
    Expr e = at_call(ratio.args[0], p, call.args);
    const Expr l = at_call(ratio.args[1], p, call.args);
    if (rounding) e = dsl::cast(DType::f32, dsl::cast(rounding->type.dtype, e));
    Expr value = make(Op::Div, sum.type, {make(Op::Sum, sum.type, {make(Op::Mul, product.type, {e, product.args[1 - k]})}), l});
    auto copy = std::make_shared<dsl::FuncImpl>(o);
    copy->value = cast ? dsl::cast(o.value.type().dtype, value) : value;
    return copy;
  }
  return nullptr;
}


}  // namespace cubekit::sched
