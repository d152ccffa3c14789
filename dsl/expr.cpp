#include "dsl/expr.h"

#include "dsl/func.h"
#include "emulator/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace cubekit::dsl {

std::string_view op_name(Op op) {
  static constexpr std::string_view names[] = {"const", "var",  "input", "func", "constant_exterior", "cast", "+",   "-",   "*",
                                               "/",     "min",  "max",   "-",    "exp",  "log", "sqrt", "abs",
                                               "<",     "<=",   ">",     ">=",   "==",   "!=",  "select",
                                               "sum",   "maximum", "minimum"};
  return names[int(op)];
}

std::string type_name(Type t) { return t.boolean ? "bool" : std::string(dtype_name(t.dtype)); }

void set_depth(ExprNode& n, int below) {
  for (const Expr& a : n.args)
    if (a.defined()) below = std::max(below, a.node().depth);
  n.depth = below + 1;
  if (n.depth > kMaxExprDepth)
    user_error("an expression is more than {} operations deep (at '{}'), more than cubekit's passes can recurse "
               "through (Funcs it calls count, as they are inlined): reduce over an RDom with sum(), maximum() or "
               "minimum() instead of chaining terms in a loop", kMaxExprDepth, op_name(n.op));
}

Expr make(Op op, Type type, std::vector<Expr> args) {
  auto n = std::make_shared<ExprNode>();
  n->op = op;
  n->type = type;
  n->args = std::move(args);
  set_depth(*n);
  return Expr(std::move(n));
}

namespace {
// e with each node `replace` gives an expression for replaced by it (an undefined Expr: kept).
template <class Replace>
Expr substitute_where(const Expr& e, const Replace& replace) {
  if (Expr r = replace(e.node()); r.defined()) return r;
  const ExprNode& n = e.node();
  std::vector<Expr> args;
  bool changed = false;
  for (const Expr& a : n.args) {
    args.push_back(substitute_where(a, replace));
    changed |= args.back().get() != a.get();
  }
  if (!changed) return e;
  auto m = std::make_shared<ExprNode>(n);
  m->args = std::move(args);
  set_depth(*m, n.op == Op::Func ? n.depth - 1 : 0);
  return Expr(std::move(m));
}
}  // namespace

Expr substitute(const Expr& e, const ExprNode* target, const Expr& with) {
  return substitute_where(e, [&](const ExprNode& n) { return &n == target ? with : Expr(); });
}

Expr substitute(const Expr& e, const VarImpl* var, const Expr& with) {
  return substitute_where(e, [&](const ExprNode& n) { return n.op == Op::Var && n.var.get() == var ? with : Expr(); });
}

Expr raise_float_constants(const Expr& e, double floor) {
  return substitute_where(e, [&](const ExprNode& n) {
    if (n.op != Op::Const || !is_float(n.type.dtype) || !(n.value < floor)) return Expr();
    auto m = std::make_shared<ExprNode>(n);
    m->value = floor;
    return Expr(std::move(m));
  });
}

int occurrences(const Expr& e, const ExprNode* target) {
  if (e.get() == target) return 1;
  int n = 0;
  for (const Expr& a : e.node().args) n += occurrences(a, target);
  return n;
}

namespace {

Expr literal(double value, Type type, bool untyped) {
  auto n = std::make_shared<ExprNode>();
  n->op = Op::Const;
  n->type = type;
  n->value = value;
  n->untyped_const = untyped;
  return Expr(std::move(n));
}

void need(const Expr& e, std::string_view where, const char* side = "an") {
  if (!e.defined()) user_error("{}: {} operand is an undefined expression (an Expr declared but never assigned)", where, side);
}

// A plain number adopting an integer type must be one of its values: `c * 0.5` was `c * 0`
// (printed as `c * 0.5`), where Halide would have made the product a float.
void check_adoptable(const Expr& number, const Expr& other, std::string_view op, bool number_left) {
  const DType t = other.type().dtype;
  const double v = number.node().value;
  if (is_float(t) || other.type().boolean) return;
  const int bits = dtype_size(t) * 8;
  const bool is_signed = t == DType::s8 || t == DType::s16 || t == DType::s32;
  const double lo = is_signed ? -std::ldexp(1.0, bits - 1) : 0, hi = std::ldexp(1.0, is_signed ? bits - 1 : bits) - 1;
  if (std::isfinite(v) && v == std::trunc(v) && v >= lo && v <= hi) return;
  const std::string expr = number_left ? fmt::format("`{}` {} `{}`", number.str(), op, other.str())
                                       : fmt::format("`{}` {} `{}`", other.str(), op, number.str());
  if (std::isfinite(v) && v == std::trunc(v))
    user_error("{}: {} is out of {}'s range, {}..{}: give a number in it, or cast {} to a wider type first (e.g. cast(s32, "
               "...) or cast(f32, ...))", expr, number.str(), type_name(other.type()), lo, hi, other.str());
  user_error("{}: {} is not a whole number, and {} is {}: give a whole number, or cast {} to a float type first (e.g. "
             "cast(f32, ...))", expr, number.str(), other.str(), type_name(other.type()), other.str());
}

// The common type of two operands: a plain number adopts the other side's type.
std::pair<Expr, Expr> unify(const Expr& a, const Expr& b, std::string_view op) {
  need(a, op, "the left"), need(b, op, "the right");
  const ExprNode &x = a.node(), &y = b.node();
  if (x.untyped_const && !y.untyped_const) check_adoptable(a, b, op, true);
  if (y.untyped_const && !x.untyped_const) check_adoptable(b, a, op, false);
  if (x.untyped_const && !y.untyped_const) return {literal(x.value, y.type, false), b};
  if (y.untyped_const && !x.untyped_const) return {a, literal(y.value, x.type, false)};
  if (x.type != y.type) {
    // Suggest the cast that loses nothing: to the float side, else to the wider (the left's type, s8 with an f32,
    // led to the vector unit's refusal of s8 arithmetic).
    auto rank = [](Type t) { return t.boolean ? 0 : (is_float(t.dtype) ? 100 : 0) + dtype_size(t.dtype); };
    const bool to_left = rank(x.type) >= rank(y.type);
    const Expr& narrow = to_left ? b : a;
    const Type wide = to_left ? x.type : y.type;
    user_error("`{}` {} `{}`: the operands are {} and {}; cast one to the other's type, e.g. cast({}, {})", a.str(), op,
               b.str(), type_name(x.type), type_name(y.type), type_name(wide), narrow.str());
  }
  return {a, b};
}

Expr arith(Op op, const Expr& a, const Expr& b) {
  auto [x, y] = unify(a, b, op_name(op));
  if (x.type().boolean) user_error("`{}` {} `{}`: arithmetic on a comparison; use select()", a.str(), op_name(op), b.str());
  bool untyped = x.node().untyped_const && y.node().untyped_const;
  if (untyped && x.node().op == Op::Const && y.node().op == Op::Const) {  // fold plain numbers
    double u = x.node().value, v = y.node().value;
    double r = op == Op::Add ? u + v : op == Op::Sub ? u - v : op == Op::Mul ? u * v : op == Op::Div ? u / v
               : op == Op::Min ? std::min(u, v) : std::max(u, v);
    return literal(r, x.type(), true);
  }
  // An index over 1 is the index: generic grouped-query code (k[b, h / g, ..]) at g = 1 reads K at
  // h, the form flash() and the layouts recognise.
  if (op == Op::Div && !is_float(x.type().dtype) && y.node().op == Op::Const && y.node().value == 1) return x;
  return make(op, x.type(), {x, y});
}

Expr compare(Op op, const Expr& a, const Expr& b) {
  auto [x, y] = unify(a, b, op_name(op));
  return make(op, Type{x.type().dtype, true}, {x, y});
}

Expr unary(Op op, const Expr& e, bool float_only) {
  need(e, op_name(op));
  if (e.type().boolean) user_error("{}({}): the operand is a comparison", op_name(op), e.str());
  if (float_only && !is_float(e.type().dtype))
    user_error("{}({}): {} is an integer type; {} takes f16 or f32 (cast first)", op_name(op), e.str(),
               type_name(e.type()), op_name(op));
  return make(op, e.type(), {e});
}

Expr reduce(Op op, const Expr& e) {
  need(e, op_name(op));
  auto rvars = rvars_of(e);
  if (rvars.empty())
    user_error("{}({}): the argument uses no reduction variable; reduce over an RDom, e.g. RDom k(0, K)", op_name(op),
               e.str());
  if (e.type().boolean) user_error("{}({}): cannot reduce a comparison", op_name(op), e.str());
  return make(op, e.type(), {e});
}

void collect_rvars(const Expr& e, std::vector<std::shared_ptr<VarImpl>>& out) {
  if (!e.defined()) return;
  const ExprNode& n = e.node();
  if (n.op == Op::Var && n.var->reduction && std::find(out.begin(), out.end(), n.var) == out.end()) out.push_back(n.var);
  for (const Expr& a : n.args) collect_rvars(a, out);
}

}  // namespace

Expr::Expr(double value) : Expr(literal(value, Type{DType::f32}, true)) {}
Expr::Expr(int value) : Expr(literal(double(value), Type{DType::f32}, true)) {}
Expr::Expr(int64_t value) : Expr(int(value)) {
  if (value < INT32_MIN || value > INT32_MAX)
    user_error("the number {} is past the DSL's integers (s32, -2^31 .. 2^31 - 1): give it as a double for a float, or "
               "keep indices within s32", value);
}

Type Expr::type() const { return node_->type; }

std::string Expr::str() const {
  if (!node_) return "<undefined>";
  const ExprNode& n = *node_;
  auto list = [&] {
    std::string s;
    for (const Expr& a : n.args) s += (s.empty() ? "" : ", ") + a.str();
    return s;
  };
  switch (n.op) {
    case Op::Const: return n.value == std::floor(n.value) && std::fabs(n.value) < 1e15 ? fmt::format("{}", int64_t(n.value)) : fmt::format("{}", n.value);
    case Op::Var: return n.var->name;
    case Op::Input: return fmt::format("{}({})", n.input->name, list());
    case Op::Func: return fmt::format("{}({})", n.func->name, list());
    case Op::Exterior: return fmt::format("constant_exterior({}, {})({})", n.input->name, n.value, list());
    case Op::Cast: return fmt::format("cast({}, {})", type_name(n.type), n.args[0].str());
    case Op::Neg: return fmt::format("-{}", n.args[0].str());
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div:
    case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne:
      return fmt::format("({} {} {})", n.args[0].str(), op_name(n.op), n.args[1].str());
    default: return fmt::format("{}({})", op_name(n.op), list());
  }
}

Expr cast(DType t, const Expr& e) {
  need(e, "cast");
  if (e.node().op == Op::Const) return literal(e.node().value, Type{t}, false);
  if (e.type() == Type{t}) return e;
  return make(Op::Cast, Type{t}, {e});
}

Expr operator+(const Expr& a, const Expr& b) { return arith(Op::Add, a, b); }
Expr operator-(const Expr& a, const Expr& b) { return arith(Op::Sub, a, b); }
Expr operator*(const Expr& a, const Expr& b) { return arith(Op::Mul, a, b); }
Expr operator/(const Expr& a, const Expr& b) { return arith(Op::Div, a, b); }
Expr operator-(const Expr& a) {
  need(a, "-");
  if (a.node().op == Op::Const) return literal(-a.node().value, a.type(), a.node().untyped_const);
  return unary(Op::Neg, a, false);
}
Expr min(const Expr& a, const Expr& b) { return arith(Op::Min, a, b); }
Expr max(const Expr& a, const Expr& b) { return arith(Op::Max, a, b); }
Expr exp(const Expr& e) { return unary(Op::Exp, e, true); }
Expr log(const Expr& e) { return unary(Op::Log, e, true); }
Expr sqrt(const Expr& e) { return unary(Op::Sqrt, e, true); }
Expr abs(const Expr& e) { return unary(Op::Abs, e, false); }
Expr operator<(const Expr& a, const Expr& b) { return compare(Op::Lt, a, b); }
Expr operator<=(const Expr& a, const Expr& b) { return compare(Op::Le, a, b); }
Expr operator>(const Expr& a, const Expr& b) { return compare(Op::Gt, a, b); }
Expr operator>=(const Expr& a, const Expr& b) { return compare(Op::Ge, a, b); }
Expr operator==(const Expr& a, const Expr& b) { return compare(Op::Eq, a, b); }
Expr operator!=(const Expr& a, const Expr& b) { return compare(Op::Ne, a, b); }

Expr select(const Expr& c, const Expr& t, const Expr& f) {
  need(c, "select"), need(t, "select"), need(f, "select");
  if (!c.type().boolean) user_error("select({}, ...): the condition must be a comparison, it is {}", c.str(), type_name(c.type()));
  auto [x, y] = unify(t, f, "select");
  return make(Op::Select, x.type(), {c, x, y});
}

Expr sum(const Expr& e) { return reduce(Op::Sum, e); }
Expr maximum(const Expr& e) { return reduce(Op::Maximum, e); }
Expr minimum(const Expr& e) { return reduce(Op::Minimum, e); }

std::vector<std::shared_ptr<VarImpl>> rvars_of(const Expr& e) {
  std::vector<std::shared_ptr<VarImpl>> out;
  collect_rvars(e, out);
  return out;
}

}  // namespace cubekit::dsl
