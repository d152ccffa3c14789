#include "dsl/bounds.h"

#include "emulator/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace cubekit::dsl {

namespace {

// The range of a value of integer type t (the whole of 64 bits for the others).
Interval range_of(DType t) {
  switch (t) {
    case DType::s8: return {-128, 127};
    case DType::u8: return {0, 255};
    case DType::s16: return {-32768, 32767};
    case DType::u16: return {0, 65535};
    case DType::s32: return {INT32_MIN, INT32_MAX};
    default: return Interval::everything();
  }
}

// [min, max] of the values given, or unbounded if one of them leaves 64 bits.
Interval hull(std::initializer_list<__int128> values) {
  __int128 lo = *std::min_element(values.begin(), values.end()), hi = *std::max_element(values.begin(), values.end());
  if (lo < INT64_MIN || hi > INT64_MAX) return Interval::everything();
  return {int64_t(lo), int64_t(hi)};
}

__int128 floor_div(__int128 a, __int128 b) {
  __int128 q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// Halide's integer division: Euclidean (the remainder is never negative), so it rounds down for a
// positive divisor and up for a negative one (-7 / -2 is 4).
__int128 euclid_div(__int128 a, __int128 b) { return b > 0 ? floor_div(a, b) : -floor_div(a, -b); }

Interval combine(Op op, const Interval& a, const Interval& b) {
  if (!a.bounded || !b.bounded) return Interval::everything();
  using W = __int128;
  switch (op) {
    case Op::Add: return hull({W(a.min) + b.min, W(a.max) + b.max});
    case Op::Sub: return hull({W(a.min) - b.max, W(a.max) - b.min});
    case Op::Mul: return hull({W(a.min) * b.min, W(a.min) * b.max, W(a.max) * b.min, W(a.max) * b.max});
    case Op::Div:
      if (b.min <= 0 && b.max >= 0) return Interval::everything();
      return hull({euclid_div(a.min, b.min), euclid_div(a.min, b.max), euclid_div(a.max, b.min), euclid_div(a.max, b.max)});
    case Op::Min: return {std::min(a.min, b.min), std::min(a.max, b.max)};
    case Op::Max: return {std::max(a.min, b.min), std::max(a.max, b.max)};
    default: return Interval::everything();
  }
}

Interval unite(const Interval& a, const Interval& b) {
  if (!a.bounded || !b.bounded) return Interval::everything();
  return {std::min(a.min, b.min), std::max(a.max, b.max)};
}

// Within t's range, or t's whole range (a cast that may wrap).
Interval fit(const Interval& i, DType t) {
  Interval r = range_of(t);
  if (!r.bounded || (i.bounded && i.min >= r.min && i.max <= r.max)) return i;
  return r;
}

}  // namespace

Interval bounds_of(const Expr& e, const VarRanges& ranges) {
  const ExprNode& n = e.node();
  auto arg = [&](size_t i) { return bounds_of(n.args[i], ranges); };
  if (n.type.boolean || is_float(n.type.dtype)) return Interval::everything();  // not an index
  switch (n.op) {
    case Op::Const: {
      double v = std::trunc(n.value);  // Halide casts a number to an integer toward zero
      if (!(std::fabs(v) < 9e18)) return Interval::everything();
      return fit(Interval::point(int64_t(v)), n.type.dtype);  // cast(s8, 200) wraps: any s8
    }
    case Op::Var: {
      std::optional<Interval> r = ranges(*n.var);
      return r ? *r : Interval::everything();
    }
    case Op::Cast: return is_float(n.args[0].type().dtype) ? range_of(n.type.dtype) : fit(arg(0), n.type.dtype);
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Min: case Op::Max:
      return fit(combine(n.op, arg(0), arg(1)), n.type.dtype);
    case Op::Neg: return fit(combine(Op::Sub, Interval::point(0), arg(0)), n.type.dtype);
    case Op::Abs: {
      Interval a = arg(0);
      if (!a.bounded) return fit(a, n.type.dtype);
      int64_t hi = std::max(std::abs(a.min == INT64_MIN ? INT64_MAX : a.min), std::abs(a.max));
      return fit({a.min >= 0 ? a.min : a.max <= 0 ? -a.max : 0, hi}, n.type.dtype);
    }
    case Op::Select: return fit(unite(arg(1), arg(2)), n.type.dtype);
    default: return range_of(n.type.dtype);  // a value read from data, a reduction: anything of its type
  }
}

namespace {

bool reads_data(const Expr& e) {
  const ExprNode& n = e.node();
  if (n.op == Op::Input || n.op == Op::Exterior || n.op == Op::Func) return true;
  return std::any_of(n.args.begin(), n.args.end(), reads_data);
}

// Walks one Func's definition; Funcs it calls are checked once each, over their own variables.
class BoundsCheck {
 public:
  void func(const std::shared_ptr<FuncImpl>& f) {
    if (!done_.insert(f.get()).second) return;
    std::vector<int64_t> shape = Func(f).shape();
    const FuncImpl* saved = current_;
    std::vector<int64_t> saved_shape = std::move(shape_);
    current_ = f.get();
    shape_ = std::move(shape);
    walk(f->value);
    current_ = saved;
    shape_ = std::move(saved_shape);
  }

 private:
  void walk(const Expr& e) {
    const ExprNode& n = e.node();
    if (n.op == Op::Input) read(e, n.input->name, n.input->shape, true);
    if (n.op == Op::Func) {
      read(e, n.func->name, Func(n.func).shape(), false);
      func(n.func);
    }
    for (const Expr& a : n.args) walk(a);
  }

  std::optional<Interval> range(const VarImpl& v) const {
    if (v.reduction) return v.extent > 0 ? std::optional<Interval>(Interval{v.min, v.min + v.extent - 1}) : std::nullopt;
    for (size_t i = 0; i < current_->args.size(); ++i)
      if (current_->args[i].get() == &v) return Interval{0, shape_[i] - 1};
    return std::nullopt;
  }

  void read(const Expr& e, const std::string& name, const std::vector<int64_t>& shape, bool input) {
    const ExprNode& n = e.node();
    for (size_t d = 0; d < n.args.size(); ++d) {
      Interval r = bounds_of(n.args[d], [&](const VarImpl& v) { return range(v); });
      if (r.bounded && r.min >= 0 && r.max < shape[d]) continue;
      std::string reach = r.bounded ? fmt::format("reaches {}..{}", r.min, r.max)
                                    : std::string("cannot be bounded (it divides by a range that holds 0, or overflows)");
      if (reads_data(n.args[d])) reach += " (it depends on data read by the kernel)";
      std::string fix = input ? fmt::format("; to read a value outside (padding), read through "
                                            "BoundaryConditions::constant_exterior({}, value) (Python: "
                                            "ck.constant_exterior({}, value))", name, name)
                              : std::string("; a Func is computed only over its shape");
      user_error("{}: the read `{}` can leave {}: its index {} `{}` {}, and {}'s dimension {} is 0..{}. Bound {}'s "
                 "variables (bound()) or the RDom so that it stays inside{}", current_->name, e.str(), name, d,
                 n.args[d].str(), reach, name, d, shape[d] - 1, current_->name, fix);
    }
  }

  std::set<const FuncImpl*> done_;
  const FuncImpl* current_ = nullptr;
  std::vector<int64_t> shape_;
};

}  // namespace

void check_reads_in_bounds(const Func& output) {
  if (!output.defined()) user_error("{} has no definition yet", output.name());
  BoundsCheck().func(output.impl);
}

}  // namespace cubekit::dsl
