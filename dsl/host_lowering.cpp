// DSL expressions to Halide, with IEEE and numpy semantics where Halide's defaults differ: max and
// min propagate NaN, and maximum/minimum start from -inf/+inf (Halide's inline reductions start f16
// from -65504/65504, and its max keeps or drops a NaN depending on the operand order).
#include "dsl/host_lowering.h"

#include "emulator/error.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>

namespace cubekit::dsl::host {

Halide::Type halide_type(DType t) {
  switch (t) {
    case DType::f16: return Halide::Float(16);
    case DType::f32: return Halide::Float(32);
    case DType::s8: return Halide::Int(8);
    case DType::u8: return Halide::UInt(8);
    case DType::s16: return Halide::Int(16);
    case DType::u16: return Halide::UInt(16);
    case DType::s32: return Halide::Int(32);
    case DType::bf16: return Halide::BFloat(16);
  }
  return Halide::Float(32);
}

namespace {

bool is_reduction(Op op) { return op == Op::Sum || op == Op::Maximum || op == Op::Minimum; }

// A cast, except that f32 NaN narrows to an f16 NaN (sign and top payload bits kept, quiet), as
// IEEE and numpy say: Halide 14 narrows it to inf; and that a float cast to an integer saturates
// to its range (NaN to 0), as the vector unit's vconv does (docs/isa.md), where Halide's wraps.
Halide::Expr convert(Halide::Type to, const Halide::Expr& e) {
  if (to.is_int_or_uint() && e.type().is_float()) {
    // NaN by its bits: Halide 14 cannot compile is_nan of an f16 under strict_float.
    const int bits = e.type().bits();
    const Halide::Type u = Halide::UInt(bits, e.type().lanes());
    const int magnitude = bits == 32 ? 0x7fffffff : 0x7fff;
    const int inf = bits == 32 ? 0x7f800000 : e.type().is_bfloat() ? 0x7f80 : 0x7c00;
    const Halide::Expr nan = (Halide::reinterpret(u, e) & Halide::cast(u, magnitude)) > Halide::cast(u, inf);
    return Halide::select(nan, Halide::cast(to, 0), Halide::saturating_cast(to, e));
  }
  if (!(to.is_float() && to.bits() == 16 && e.type().is_float() && e.type().bits() == 32)) return Halide::cast(to, e);
  int lanes = e.type().lanes();
  Halide::Expr bits = Halide::reinterpret(Halide::UInt(32, lanes), e);
  Halide::Expr nan = Halide::cast(Halide::UInt(16, lanes), ((bits >> 16) & 0x8000) | 0x7e00 | ((bits >> 13) & 0x3ff));
  return Halide::select(Halide::is_nan(e), Halide::reinterpret(to, nan), Halide::cast(to, e));
}

bool is_f16(const Halide::Expr& e) { return e.type().is_float() && e.type().bits() == 16; }
Halide::Expr widen(const Halide::Expr& e) { return Halide::cast(Halide::Float(32, e.type().lanes()), e); }

// f16 arithmetic in f32, rounded once to f16 (what IEEE f16 arithmetic gives for + - * / and sqrt:
// f32 has more than twice f16's precision), NaN kept.
template <class Op>
Halide::Expr in_f32(Op op, const Halide::Expr& a, const Halide::Expr& b = Halide::Expr()) {
  if (!is_f16(a)) return b.defined() ? op(a, b) : op(a, a);
  Halide::Expr wa = widen(a);
  return convert(a.type(), b.defined() ? op(wa, widen(b)) : op(wa, wa));
}

// numpy.maximum / numpy.minimum: NaN when either operand is NaN.
Halide::Expr ieee_max_min(bool is_max, const Halide::Expr& a, const Halide::Expr& b) {
  if (!a.type().is_float()) return is_max ? Halide::max(a, b) : Halide::min(a, b);
  return in_f32(
      [&](const Halide::Expr& x, const Halide::Expr& y) {
        Halide::Expr x_wins = is_max ? x > y : x < y;  // false when y is NaN: y
        return Halide::select(x_wins || Halide::is_nan(x), x, y);
      },
      a, b);
}

// numpy's exp and log of f32: Halide's own (polynomials for the normal range) gave exp(NaN) and
// exp(inf) 0, log(NaN) 89 and log(inf) 88.7, and flushed exp(-100) (a subnormal) to 0. The edges
// are taken apart; the subnormal ranges are scaled by 2^64 into the normal one.
Halide::Expr ieee_exp(const Halide::Expr& x) {
  const Halide::Expr inf = Halide::Float(32).max() * 2.0f, e_minus_64 = Halide::Expr(1.6038108905486378e-28f);
  return Halide::select(Halide::is_nan(x), x, x > 88.8f, inf, x < -110.0f, 0.0f, x < -87.0f,
                        Halide::exp(x + 64.0f) * e_minus_64, Halide::exp(x));
}
Halide::Expr ieee_log(const Halide::Expr& x) {
  const Halide::Expr inf = Halide::Float(32).max() * 2.0f, nan = inf - inf;
  const Halide::Expr two_64 = Halide::Expr(18446744073709551616.0f), ln_two_64 = Halide::Expr(44.3614195558365f);
  return Halide::select(Halide::is_nan(x) || x == inf, x, x < 0.0f, nan, x == 0.0f, -inf, x < 1.17549435e-38f,
                        Halide::log(x * two_64) - ln_two_64, Halide::log(x));
}

Halide::Expr initial_value(Op op, Halide::Type t) {
  if (op == Op::Sum) return Halide::cast(t, 0);
  bool is_max = op == Op::Maximum;
  if (t.is_float()) return Halide::cast(t, Halide::Expr(is_max ? -INFINITY : INFINITY));
  return is_max ? t.min() : t.max();
}

Halide::Expr combine(Op op, const Halide::Expr& acc, const Halide::Expr& value) {
  if (op == Op::Sum) return in_f32(std::plus<>(), acc, value);
  return ieee_max_min(op == Op::Maximum, acc, value);
}

// Every variable an expression uses, nested reductions included.
void all_vars(const Expr& e, std::vector<const VarImpl*>& out) {
  const ExprNode& n = e.node();
  if (n.op == Op::Var && std::find(out.begin(), out.end(), n.var.get()) == out.end()) out.push_back(n.var.get());
  for (const Expr& a : n.args) all_vars(a, out);
}

// The RVars a reduction reduces over: those its argument uses outside the reductions nested in it
// (which reduce over theirs), other than the RVars of the reductions around it.
void own_rvars(const Expr& e, const std::vector<std::pair<const VarImpl*, Halide::Expr>>& bound,
               std::vector<const VarImpl*>& out) {
  const ExprNode& n = e.node();
  if (is_reduction(n.op)) return;
  auto is_bound = [&](const VarImpl* v) {
    return std::any_of(bound.begin(), bound.end(), [&](const auto& b) { return b.first == v; });
  };
  if (n.op == Op::Var && n.var->reduction && !is_bound(n.var.get()) &&
      std::find(out.begin(), out.end(), n.var.get()) == out.end())
    out.push_back(n.var.get());
  for (const Expr& a : n.args) own_rvars(a, bound, out);
}

// The RVars of a multi-dimensional RDom loop in its order (r.x innermost), the RDom where the first
// of them is used; separate RDoms and RVars nest in the order they are first used.
void in_domain_order(std::vector<const VarImpl*>& rvars) {
  std::vector<const VarImpl*> out;
  for (const VarImpl* v : rvars) {
    if (std::find(out.begin(), out.end(), v) != out.end()) continue;
    if (!v->domain) {
      out.push_back(v);
      continue;
    }
    std::vector<const VarImpl*> same;
    for (const VarImpl* u : rvars)
      if (u->domain == v->domain) same.push_back(u);
    std::sort(same.begin(), same.end(), [](const VarImpl* a, const VarImpl* b) { return a->dimension < b->dimension; });
    out.insert(out.end(), same.begin(), same.end());
  }
  rvars = std::move(out);
}

std::vector<int64_t> shape_of(const std::shared_ptr<FuncImpl>& f) { return Func(f).shape(); }

// Translates DSL expressions to Halide. Dimensions are reversed: Halide's first dimension is the
// innermost, cubekit's last.
class Lowering {
 public:
  explicit Lowering(bool copy_inputs) : copy_inputs_(copy_inputs) {}

  Halide::Func define(const std::shared_ptr<FuncImpl>& f) {
    auto it = out_.funcs.find(f.get());
    if (it != out_.funcs.end()) return it->second.func;
    LoweredFunc& lf = out_.funcs[f.get()];
    lf.func = Halide::Func(unique(f->name));
    std::vector<int64_t> shape = shape_of(f);
    for (size_t i = f->args.size(); i-- > 0;) {
      lf.vars.push_back(pure(f->args[i]));
      lf.extents.push_back(shape[i]);
    }
    Halide::Func hf = lf.func;  // `lf` stays valid (std::map), but the copy reads better
    std::vector<Halide::Var> vars = lf.vars;
    hf(vars) = expr(f->value, Context{f.get()});
    return hf;
  }

  Lowered& result() { return out_; }

 private:
  // What an expression is lowered in.
  struct Context {
    const FuncImpl* func;  // whose definition it is part of
    // The RVars of the reductions around it, as they read here.
    std::vector<std::pair<const VarImpl*, Halide::Expr>> bound;
    // The variables of the innermost reduction around it, innermost first (none: not in one).
    std::vector<const VarImpl*> free;
    bool selected = false;  // inside a select
  };

  Halide::Expr expr(const Expr& e, const Context& c) {
    const ExprNode& n = e.node();
    auto arg = [&](int i) { return expr(n.args[size_t(i)], c); };
    switch (n.op) {
      case Op::Const:
        return n.type.boolean ? Halide::Expr(n.value != 0) : Halide::cast(halide_type(n.type.dtype), Halide::Expr(n.value));
      case Op::Var: return var(n, c);
      case Op::Input: return load(n, std::nullopt, c);
      case Op::Exterior: return exterior(n, c);
      case Op::Func: return func(n.func)(reversed(n.args, c));
      case Op::Cast:
        if (n.args[0].node().op == Op::Input) return load(n.args[0].node(), halide_type(n.type.dtype), c);
        return convert(halide_type(n.type.dtype), arg(0));
      case Op::Add: return in_f32(std::plus<>(), arg(0), arg(1));
      case Op::Sub: return in_f32(std::minus<>(), arg(0), arg(1));
      case Op::Mul: return in_f32(std::multiplies<>(), arg(0), arg(1));
      case Op::Div: return in_f32(std::divides<>(), arg(0), arg(1));
      case Op::Min: return ieee_max_min(false, arg(0), arg(1));
      case Op::Max: return ieee_max_min(true, arg(0), arg(1));
      case Op::Neg: return in_f32([](const Halide::Expr& x, const Halide::Expr&) { return -x; }, arg(0));
      case Op::Exp: return in_f32([](const Halide::Expr& x, const Halide::Expr&) { return ieee_exp(x); }, arg(0));
      case Op::Log: return in_f32([](const Halide::Expr& x, const Halide::Expr&) { return ieee_log(x); }, arg(0));
      case Op::Sqrt: return in_f32([](const Halide::Expr& x, const Halide::Expr&) { return Halide::sqrt(x); }, arg(0));
      case Op::Abs:
        if (is_f16(arg(0))) return in_f32([](const Halide::Expr& x, const Halide::Expr&) { return Halide::abs(x); }, arg(0));
        return Halide::cast(halide_type(n.type.dtype), Halide::abs(arg(0)));
      case Op::Lt: return arg(0) < arg(1);
      case Op::Le: return arg(0) <= arg(1);
      case Op::Gt: return arg(0) > arg(1);
      case Op::Ge: return arg(0) >= arg(1);
      case Op::Eq: return arg(0) == arg(1);
      case Op::Ne: return arg(0) != arg(1);
      case Op::Select: {
        Context inside = c;
        inside.selected = true;
        return Halide::select(expr(n.args[0], inside), expr(n.args[1], inside), expr(n.args[2], inside));
      }
      case Op::Sum: case Op::Maximum: case Op::Minimum: return reduction(n, c);
    }
    internal_error(__FILE__, __LINE__, "unhandled op", std::string(op_name(n.op)));
  }

  Halide::Expr var(const ExprNode& n, const Context& c) {
    for (const auto& [v, e] : c.bound)
      if (v == n.var.get()) return e;
    if (n.var->reduction)
      user_error("{}: the RVar {} is used outside sum(), maximum() and minimum(); reduce over it, or use a Var",
                 c.func->name, n.var->name);
    return pure(n.var);
  }

  // A Func over the variables the reduction's argument uses (the definition's, innermost first, then
  // RVars of reductions around it), updated over an RDom of its own RVars.
  Halide::Expr reduction(const ExprNode& n, const Context& c) {
    const Expr& body = n.args[0];
    std::vector<const VarImpl*> own, used;
    own_rvars(body, c.bound, own);
    in_domain_order(own);
    if (own.empty())
      user_error("{}: {}({}) has no RVar of its own (the reductions inside it reduce over all of them); reduce over "
                 "a different RDom", c.func->name, op_name(n.op), body.str());
    all_vars(body, used);
    auto uses = [&](const VarImpl* v) { return std::find(used.begin(), used.end(), v) != used.end(); };

    LoweredReduction r;
    Context inner{c.func, {}, {}};
    std::vector<Halide::Expr> call;
    const LoweredFunc& owner = out_.funcs.at(c.func);
    for (size_t i = 0; i < owner.vars.size(); ++i) {
      const VarImpl* v = c.func->args[owner.vars.size() - 1 - i].get();
      if (!uses(v)) continue;
      r.vars.push_back(owner.vars[i]);
      r.extents.push_back(owner.extents[i]);
      call.push_back(owner.vars[i]);
      inner.free.push_back(v);
    }
    // Computed at its owner's tiles, unless a select chooses where it is read: Halide's bounds
    // inference trims the region a Func is computed over by the select conditions around its
    // reads, so under a causal or sliding-window mask each tile's rows and vectors would be guarded
    // one by one, code that took LLVM minutes (attention with a window: 39 s to JIT). Unfused, it
    // is computed over the owner's whole extents, in whole tiles, as a root Func of its own.
    bool fused = c.bound.empty() && !c.selected && r.vars.size() == owner.vars.size();
    for (const auto& [v, e] : c.bound) {
      if (!uses(v)) continue;
      Halide::Var hv(unique(v->name));
      inner.bound.emplace_back(v, hv);
      r.vars.push_back(hv);
      r.extents.push_back(v->extent);
      call.push_back(e);
      inner.free.push_back(v);
    }
    std::vector<Halide::Range> ranges;
    for (const VarImpl* v : own) ranges.emplace_back(Halide::Expr(int(v->min)), Halide::Expr(int(v->extent)));
    r.rdom = Halide::RDom(ranges, unique("r"));
    for (size_t i = 0; i < own.size(); ++i) inner.bound.emplace_back(own[i], r.rdom[int(i)]);

    Halide::Expr value = expr(body, inner);
    // A 16-bit float sum accumulates in f32 and rounds once: summed in f16 in its RDom's order, a
    // long row stagnates (2048 + 0.7 is 2048 in f16), and the reference would be further from the
    // sum than the kernel it checks (a row of 4096 in [0, 1): off by 29, the vector unit by 1).
    const Halide::Type type = value.type();
    const bool widened = n.op == Op::Sum && is_f16(value);
    if (widened) value = widen(value);
    r.func = Halide::Func(unique(c.func->name + "_" + std::string(op_name(n.op))));
    r.func(r.vars) = initial_value(n.op, value.type());
    r.func(r.vars) = combine(n.op, r.func(r.vars), value);
    r.owner = fused ? c.func : nullptr;
    r.nested = !c.bound.empty();
    out_.reductions.push_back(r);
    return widened ? convert(type, r.func(call)) : r.func(call);
  }

  // An input element, cast to `to` if given. Inside a reduction that reads the input more than once
  // (some of the reduction's variables do not index it: a contraction's operand), the fast schedule
  // reads a root copy instead, converted once and stored with the reduction's vector lanes innermost.
  Halide::Expr load(const ExprNode& n, std::optional<Halide::Type> to, const Context& c) {
    std::vector<Halide::Expr> index = reversed(n.args, c);
    Halide::ImageParam& p = param(n.input);
    Halide::Type type = to ? *to : p.type();
    std::vector<const VarImpl*> indexing;
    for (const Expr& a : n.args) all_vars(a, indexing);
    bool reused = std::any_of(c.free.begin(), c.free.end(), [&](const VarImpl* v) {
      return std::find(indexing.begin(), indexing.end(), v) == indexing.end();
    });
    if (!copy_inputs_ || !reused) return convert(type, p(index));
    int rank = int(n.args.size()), inner = 0;
    for (int d = 0; d < rank; ++d)
      if (n.args[size_t(d)].node().op == Op::Var && n.args[size_t(d)].node().var.get() == c.free[0]) inner = rank - 1 - d;
    return copy(n.input, p, type, inner)(index);
  }

  // Halide's BoundaryConditions::constant_exterior: the input at the index clamped inside, where
  // the index is inside; the value elsewhere.
  Halide::Expr exterior(const ExprNode& n, const Context& c) {
    Halide::ImageParam& p = param(n.input);
    std::vector<Halide::Expr> index = reversed(n.args, c), clamped;
    Halide::Expr inside = Halide::Internal::const_true();
    for (size_t d = 0; d < index.size(); ++d) {
      index[d] = Halide::cast(Halide::Int(32), index[d]);  // an s8 index compares with any extent
      int extent = int(n.input->shape[n.input->shape.size() - 1 - d]);
      inside = inside && index[d] >= 0 && index[d] < extent;
      clamped.push_back(Halide::clamp(index[d], 0, extent - 1));
    }
    return Halide::select(inside, p(clamped), Halide::cast(p.type(), Halide::Expr(n.value)));
  }

  Halide::Func copy(const std::shared_ptr<InputImpl>& in, Halide::ImageParam& p, Halide::Type type, int inner) {
    for (const InputCopy& c : out_.copies)
      if (c.input == in.get() && c.func.output_types()[0] == type) return c.func;  // the first reader's layout
    InputCopy c;
    c.func = Halide::Func(unique(in->name + "_copy"));
    for (size_t d = 0; d < in->shape.size(); ++d) {
      c.vars.emplace_back(unique("d"));
      c.extents.push_back(in->shape[in->shape.size() - 1 - d]);
    }
    c.input = in.get();
    c.inner = inner;
    c.func(c.vars) = convert(type, p(c.vars));
    out_.copies.push_back(c);
    return c.func;
  }

  std::vector<Halide::Expr> reversed(const std::vector<Expr>& args, const Context& c) {
    std::vector<Halide::Expr> out;
    for (auto a = args.rbegin(); a != args.rend(); ++a) out.push_back(expr(*a, c));
    return out;
  }
  Halide::Var pure(const std::shared_ptr<VarImpl>& v) {
    auto it = vars_.find(v.get());
    if (it == vars_.end()) it = vars_.emplace(v.get(), Halide::Var(unique(v->name))).first;
    return it->second;
  }
  Halide::ImageParam& param(const std::shared_ptr<InputImpl>& in) {
    auto it = out_.params.find(in.get());
    if (it == out_.params.end())
      it = out_.params.emplace(in.get(), Halide::ImageParam(halide_type(in->dtype), int(in->shape.size()), in->name)).first;
    return it->second;
  }
  Halide::Func func(const std::shared_ptr<FuncImpl>& f) {
    Halide::Func hf = define(f);
    hf.compute_root();
    return hf;
  }
  // Halide tells Funcs and Vars apart by name; two DSL objects may share one.
  // (An RDom's RVars are named "r.x": Halide keeps '.' for its own names.)
  std::string unique(std::string name) {
    std::replace(name.begin(), name.end(), '.', '_');
    std::replace(name.begin(), name.end(), '[', '_');
    std::replace(name.begin(), name.end(), ']', '_');
    return name + "_" + std::to_string(++names_);
  }

  bool copy_inputs_;
  Lowered out_;
  std::map<const VarImpl*, Halide::Var> vars_;
  int names_ = 0;
};

}  // namespace

Lowered lower(const Func& output, bool copy_inputs) {
  Lowering lowering(copy_inputs);
  Halide::Func f = lowering.define(output.impl);
  Lowered out = std::move(lowering.result());
  out.output = f;
  return out;
}

}  // namespace cubekit::dsl::host
