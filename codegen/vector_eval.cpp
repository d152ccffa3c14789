#include "codegen/vector_eval.h"

#include "dsl/func.h"
#include "emulator/error.h"
#include "emulator/rounding.h"

#include <cmath>

namespace cubekit::codegen {

using dsl::Expr;
using dsl::ExprNode;
using dsl::Op;

namespace {

// The shape of a result of operands of these shapes: a Row and a Col make a Full value.
VShape combine(std::initializer_list<VShape> shapes) {
  VShape s = VShape::Scalar;
  for (VShape x : shapes)
    if (x != VShape::Scalar) s = s == VShape::Scalar || s == x ? x : VShape::Full;
  return s;
}

// A constant as its type holds it: a constant tagged f16 is rounded when it is filled, and must
// compare the same after widening.
double held(DType t, double v) {
  if (t == DType::f16) return f16_to_f32(f64_to_f16(v));
  if (t == DType::f32) return double(float(v));
  return v;
}

double fold(VBinary op, double a, double b) {
  switch (op) {
    case VBinary::Add: return a + b;
    case VBinary::Sub: return a - b;
    case VBinary::Mul: return a * b;
    case VBinary::Div: return a / b;
    case VBinary::Min: return std::min(a, b);
    case VBinary::Max: return std::max(a, b);
  }
  return 0;
}

}  // namespace

VValue Evaluator::eval(const Expr& e, const VValue* into) {
  VValue v = value(e, into);
  if (!into) return v;
  return place(v, *into);
}

VValue Evaluator::place(const VValue& v, const VValue& into) {
  if (v.shape == into.shape && v.at.buffer == into.at.buffer && v.shape != VShape::Scalar) return v;
  if (v.shape == VShape::Scalar) ops_.fill(into, v.constant);
  else if (v.shape == into.shape) ops_.binary(VBinary::Add, into, v, VValue::scalar(v.dtype, 0));
  else ops_.broadcast(into, v);
  release(v);
  return into;
}

VValue Evaluator::materialize(const Expr& e, VShape s) {
  VValue v = value(e, nullptr);
  if (v.shape == s && owned_.count(v.at.buffer)) {
    owned_.erase(v.at.buffer);
    return v;
  }
  VValue target = ops_.temp(s, e.type().dtype);
  return place(v, target);
}

void Evaluator::release(const VValue& v) {
  if (v.shape == VShape::Scalar || !owned_.count(v.at.buffer)) return;
  owned_.erase(v.at.buffer);
  ops_.done(v);
}

VValue Evaluator::result(VShape s, DType t, const VValue* into, std::initializer_list<const VValue*> operands) {
  if (into && into->shape == s && into->dtype == t) return *into;
  for (const VValue* o : operands)  // in place, over an operand this evaluator made and no longer needs
    if (o->shape == s && o->dtype == t && (owned_.count(o->at.buffer) || scribble_.count(o->at.buffer))) return *o;
  VValue v = ops_.temp(s, t);
  owned_.insert(v.at.buffer);
  return v;
}

void Evaluator::release_unless(const VValue& v, const VValue& result) {
  if (v.shape == VShape::Scalar || v.at.buffer != result.at.buffer) release(v);
}

VValue Evaluator::value(const Expr& e, const VValue* into) {
  const ExprNode& n = e.node();
  DType t = n.type.dtype;
  switch (n.op) {
    case Op::Const: return VValue::scalar(t, n.value);
    case Op::Input: return inputs_.at(n.input.get());
    case Op::Func: return funcs_.at(n.func.get());
    case Op::Var: {
      auto it = vars_.find(n.var.get());
      CUBEKIT_ASSERT(it != vars_.end(), "the vector path has no value of the variable {}", n.var->name);
      return it->second;
    }
    case Op::Cast: {
      VValue a = value(n.args[0], nullptr);
      if (a.shape == VShape::Scalar) return VValue::scalar(t, a.constant);
      if (a.dtype == t) return a;
      VValue d = result(a.shape, t, into);
      ops_.cast(d, a);
      release(a);
      return d;
    }
    case Op::Neg: return math(n, into, "", -1);
    case Op::Exp: return math(n, into, "vexp", 0);
    case Op::Log: return math(n, into, "vln", 0);
    case Op::Sqrt: return math(n, into, "vsqrt", 0);
    case Op::Abs: return math(n, into, "vabs", 0);
    case Op::Add: return binary(n, into, VBinary::Add);
    case Op::Sub: return binary(n, into, VBinary::Sub);
    case Op::Mul: return binary(n, into, VBinary::Mul);
    case Op::Div: return binary(n, into, VBinary::Div);
    case Op::Min: return binary(n, into, VBinary::Min);
    case Op::Max: return binary(n, into, VBinary::Max);
    case Op::Select: return select(n, into);
    case Op::Sum: return reduce(n, into, VReduce::Sum);
    case Op::Maximum: return reduce(n, into, VReduce::Max);
    case Op::Minimum: return reduce(n, into, VReduce::Min);
    default: CUBEKIT_ASSERT(false, "the vector path cannot compute `{}` (the plan should have rejected it)", e.str());
  }
}

VValue Evaluator::math(const ExprNode& n, const VValue* into, const char* mnemonic, int negate) {
  VValue a = value(n.args[0], nullptr);
  if (a.shape == VShape::Scalar) {
    double c = a.constant;
    if (negate) return VValue::scalar(a.dtype, -c);
    std::string m = mnemonic;
    return VValue::scalar(a.dtype, m == "vexp" ? std::exp(c) : m == "vln" ? std::log(c) : m == "vsqrt" ? std::sqrt(c) : std::fabs(c));
  }
  VValue d = result(a.shape, a.dtype, into, {&a});
  if (negate) ops_.binary(VBinary::Mul, d, a, VValue::scalar(a.dtype, -1));
  else ops_.unary(mnemonic, d, a);
  release_unless(a, d);
  return d;
}

VValue Evaluator::binary(const ExprNode& n, const VValue* into, VBinary op) {
  // 1 / sqrt(x): one instruction
  if (op == VBinary::Div && n.args[0].node().op == Op::Const && n.args[0].node().value == 1 &&
      n.args[1].node().op == Op::Sqrt) {
    VValue x = value(n.args[1].node().args[0], nullptr);
    if (x.shape != VShape::Scalar) {
      VValue d = result(x.shape, x.dtype, into, {&x});
      ops_.unary("vrsqrt", d, x);
      release_unless(x, d);
      return d;
    }
    release(x);
  }
  VValue a = value(n.args[0], nullptr), b = value(n.args[1], nullptr);
  if (a.shape == VShape::Scalar && b.shape == VShape::Scalar) return VValue::scalar(a.dtype, fold(op, a.constant, b.constant));
  // x / (a per-row or per-column value) is a vdiv by the broadcast value: a reciprocal per row and
  // a multiply was an ulp off, and inf or NaN where the divisor is below 2.9e-39 (its reciprocal
  // overflows: [0, 1e-38, 3e-39] / 1e-39 gave [nan, inf, inf], not [0, 10, 3]).
  VValue d = result(combine({a.shape, b.shape}), n.type.dtype, into, {&a, &b});
  ops_.binary(op, d, a, b);
  release_unless(a, d), release_unless(b, d);
  return d;
}

VValue Evaluator::select(const ExprNode& n, const VValue* into) {
  const ExprNode& cond = n.args[0].node();
  VValue x = value(cond.args[0], nullptr), y = value(cond.args[1], nullptr);
  VValue t = value(n.args[1], nullptr), f = value(n.args[2], nullptr);
  DType rt = n.type.dtype, ct = cond.args[0].type().dtype;
  // Compare and pick in the wider of the comparison's and the result's types: widening f16 to f32
  // is exact, so the comparison is the one Halide makes (not one rounded to f16), and vcmp's mask
  // has the layout vsel reads (bits per repeat depend on the element width).
  DType w = dtype_size(ct) >= dtype_size(rt) ? ct : rt;
  auto widen = [&](VValue v, DType from) {
    if (v.shape == VShape::Scalar) return VValue::scalar(w, held(from, v.constant));
    if (v.dtype == w) return v;
    VValue c = result(v.shape, w, nullptr);
    ops_.cast(c, v);
    release(v);
    return c;
  };
  x = widen(x, ct), y = widen(y, ct), t = widen(t, rt), f = widen(f, rt);
  static const std::map<Op, VCompare> cmp = {{Op::Lt, VCompare::Lt}, {Op::Le, VCompare::Le}, {Op::Gt, VCompare::Gt},
                                             {Op::Ge, VCompare::Ge}, {Op::Eq, VCompare::Eq}, {Op::Ne, VCompare::Ne}};
  VShape s = combine({x.shape, y.shape, t.shape, f.shape});
  VValue d = result(s, w, w == rt ? into : nullptr);
  ops_.select(cmp.at(cond.op), d, x, y, t, f);
  for (const VValue& v : {x, y, t, f}) release(v);
  if (w == rt) return d;
  VValue narrow = result(s, rt, into);
  ops_.cast(narrow, d);  // exact: d holds values of rt
  release(d);
  return narrow;
}

VValue Evaluator::reduce(const ExprNode& n, const VValue* into, VReduce op) {
  const ExprNode& arg = n.args[0].node();
  if (op == VReduce::Sum && arg.op == Op::Mul) {  // a sum of products: multiply inside the reduction
    VValue a = value(arg.args[0], nullptr), b = value(arg.args[1], nullptr);
    if (a.shape == VShape::Full && b.shape == VShape::Full) {
      VValue d = result(VShape::Row, a.dtype, into);
      ops_.reduce(op, d, a, &b);
      release(a), release(b);
      return d;
    }
    release(a), release(b);
  }
  VValue a = value(n.args[0], nullptr);
  VValue d = result(VShape::Row, a.dtype, into);
  ops_.reduce(op, d, a);
  release(a);
  return d;
}

}  // namespace cubekit::codegen
