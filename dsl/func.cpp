#include "dsl/func.h"

#include "emulator/error.h"
#include "emulator/program.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>
#include <atomic>
#include <cmath>

namespace cubekit::dsl {

namespace {

std::string fresh(std::string name, const char* prefix) {
  static std::atomic<int> counter{0};
  return name.empty() ? fmt::format("{}{}", prefix, ++counter) : name;
}

Expr var_expr(const std::shared_ptr<VarImpl>& v) {
  auto n = std::make_shared<ExprNode>();
  n->op = Op::Var;
  n->type = Type{DType::s32};
  n->var = v;
  return Expr(std::move(n));
}

// An index as the call keeps it: an integer expression, a plain number made an s32 constant.
Expr as_index(const Expr& e, const std::string& callee, size_t i) {
  if (!e.defined()) user_error("{}: index {} is an undefined expression", callee, i);
  if (e.node().untyped_const) {
    double v = e.node().value;
    if (v != std::floor(v) || v < INT32_MIN || v > INT32_MAX)
      user_error("{}: index {} is {}, but indices are 32-bit integers", callee, i, v);
    return cast(DType::s32, e);
  }
  if (e.type().boolean || is_float(e.type().dtype))
    user_error("{}: index {} `{}` is {}, but indices are integers (Vars, RDoms and integer arithmetic)", callee, i,
               e.str(), type_name(e.type()));
  return e;
}

// `seen`: the Funcs whose definitions were read already (each once: a chain of Funcs each calling
// the one before twice was read 2^N times).
void collect_inputs(const Expr& e, std::vector<std::shared_ptr<InputImpl>>& out, std::set<const FuncImpl*>& seen) {
  if (!e.defined()) return;
  const ExprNode& n = e.node();
  bool reads = n.op == Op::Input || n.op == Op::Exterior;
  if (reads && std::find(out.begin(), out.end(), n.input) == out.end()) out.push_back(n.input);
  if (n.op == Op::Func && seen.insert(n.func.get()).second) collect_inputs(n.func->value, out, seen);  // the Funcs it calls too
  for (const Expr& a : n.args) collect_inputs(a, out, seen);
}

// The shapes of the Funcs one shape_of call met, each worked out once: a chain of Funcs each calling
// the one before twice took 2^N shape_ofs (a chain of 13 compiled in 53 s).
using ShapeCache = std::map<const FuncImpl*, std::vector<int64_t>>;
std::vector<int64_t> shape_of(const std::shared_ptr<FuncImpl>& f, ShapeCache& cache);

// An extent a Var takes from indexing dimension `dim` of `*name`.
struct Implied {
  int64_t extent;
  const std::string* name;
  size_t dim;
  std::string where() const { return fmt::format("{}'s dimension {}", *name, dim); }
};

// The extents of the dimensions v indexes directly, in inputs and in the Funcs called.
void implied_extents(const Expr& e, const VarImpl* v, std::vector<Implied>& out, ShapeCache& cache) {
  if (!e.defined()) return;
  const ExprNode& n = e.node();
  if (n.op == Op::Input || n.op == Op::Exterior || n.op == Op::Func)
    for (size_t d = 0; d < n.args.size(); ++d)
      if (n.args[d].node().op == Op::Var && n.args[d].node().var.get() == v) {
        if (n.op != Op::Func) out.push_back({n.input->shape[d], &n.input->name, d});
        else out.push_back({shape_of(n.func, cache)[d], &n.func->name, d});
      }
  for (const Expr& a : n.args) implied_extents(a, v, out, cache);
}

void collect_vars(const Expr& e, std::vector<std::shared_ptr<VarImpl>>& out) {
  if (!e.defined()) return;
  const ExprNode& n = e.node();
  if (n.op == Op::Var && std::find(out.begin(), out.end(), n.var) == out.end()) out.push_back(n.var);
  for (const Expr& a : n.args) collect_vars(a, out);
}

std::string var_names(const std::vector<std::shared_ptr<VarImpl>>& vars) {
  std::string s;
  for (const auto& v : vars) s += (s.empty() ? "" : ", ") + v->name;
  return s;
}

void check_present(const VarImpl& v) {
  if (!v.absent.empty()) user_error("{}", v.absent);
}

void set_domain(VarImpl& v, int64_t min, int64_t extent, const std::string& what) {
  if (extent < 1) user_error("RDom {}: extent must be at least 1, got {}", what, extent);
  if (min < INT32_MIN || min > INT32_MAX || extent > INT32_MAX || extent - 1 > int64_t(INT32_MAX) - min)
    user_error("RDom {}: the domain of {} values from {} does not fit in 32 bits (the DSL's integers are s32)", what,
               extent, min);
  v.min = min;
  v.extent = extent;
}


}  // namespace

std::string_view level_name(Level l) {
  static constexpr std::string_view n[] = {"GM", "L1", "L0A", "L0B", "L0C", "UB"};
  CUBEKIT_ASSERT(uint8_t(l) <= uint8_t(Level::UB), "Level({}) names no buffer (the schedule calls refuse it)", int(l));
  return n[int(l)];
}

Var::Var(std::string name) : impl(std::make_shared<VarImpl>(VarImpl{fresh(std::move(name), "v")})) {}
Var::operator Expr() const { return var_expr(impl); }

RVar::RVar(std::string name) : impl(std::make_shared<VarImpl>(VarImpl{fresh(std::move(name), "r"), true})) {}
RVar::operator Expr() const {
  check_present(*impl);
  return var_expr(impl);
}


RDom::RDom(int64_t min, int64_t extent, std::string name) : RVar(std::move(name)) {
  set_domain(*impl, min, extent, impl->name);
  dims_ = {*this};
  x = *this;
  for (RVar* d : {&y, &z, &w})
    d->impl->absent = fmt::format("RDom {} has one dimension, {} itself; it has no .y, .z or .w", impl->name, impl->name);
}

RDom::RDom(const std::vector<std::pair<int64_t, int64_t>>& region, std::string name) : RVar(std::move(name)) {
  if (region.empty()) user_error("RDom {}: give at least one (min, extent) pair", impl->name);
  if (region.size() == 1) {
    *this = RDom(region[0].first, region[0].second, impl->name);
    return;
  }
  static constexpr const char* kDims = "xyzw";
  static std::atomic<int64_t> domains{0};
  const int64_t domain = ++domains;
  for (size_t i = 0; i < region.size(); ++i) {
    std::string dim = i < 4 ? fmt::format("{}.{}", impl->name, kDims[i]) : fmt::format("{}[{}]", impl->name, i);
    RVar r(dim);
    set_domain(*r.impl, region[i].first, region[i].second, dim);
    r.impl->domain = domain;
    r.impl->dimension = int(i);
    dims_.push_back(r);
  }
  RVar* named[] = {&x, &y, &z, &w};
  for (size_t i = 0; i < 4; ++i) {
    if (i < dims_.size()) *named[i] = dims_[i];
    else named[i]->impl->absent = fmt::format("RDom {} has {} dimensions; {}.{} is not one of them", impl->name,
                                              dims_.size(), impl->name, kDims[i]);
  }
  impl->absent = fmt::format("RDom {} has {} dimensions: use one of them ({}.x, {}.y, ... or {}[i]), not the RDom itself",
                             impl->name, dims_.size(), impl->name, impl->name, impl->name);
}

RVar RDom::operator[](int i) const {
  if (i < 0 || i >= dimensions())
    user_error("RDom {}: dimension {} does not exist; it has {} (0 to {})", impl->name, i, dimensions(), dimensions() - 1);
  return dims_[size_t(i)];
}

LoopVar::LoopVar(const RVar& v) : impl(v.impl) { check_present(*impl); }

namespace BoundaryConditions {

Exterior constant_exterior(const Input& input, double value) {
  DType t = input.dtype();
  if (std::isnan(value)) user_error("constant_exterior({}, nan): give the value outside as a number", input.name());
  if (!is_float(t)) {
    int bits = dtype_size(t) * 8;
    bool is_signed = t == DType::s8 || t == DType::s16 || t == DType::s32;
    double lo = is_signed ? -std::ldexp(1, bits - 1) : 0, hi = is_signed ? std::ldexp(1, bits - 1) - 1 : std::ldexp(1, bits) - 1;
    if (value != std::floor(value) || value < lo || value > hi)
      user_error("constant_exterior({}, {}): {} is {}, which holds the integers {} to {}; give one of them",
                 input.name(), value, input.name(), dtype_name(t), lo, hi);
  } else if (std::isfinite(value) && std::fabs(value) > largest_finite(t)) {
    user_error("constant_exterior({}, {}): the value is beyond the largest finite {}; give a smaller one or inf",
               input.name(), value, dtype_name(t));
  }
  return Exterior(input.impl, value);
}

Expr Exterior::call(std::vector<Expr> index) const {
  std::string what = fmt::format("constant_exterior({}, {})", input_->name, value_);
  if (index.size() != input_->shape.size())
    user_error("{} has {} dimensions but is called with {} indices", what, input_->shape.size(), index.size());
  for (size_t i = 0; i < index.size(); ++i) index[i] = as_index(index[i], what, i);
  auto n = std::make_shared<ExprNode>();
  n->op = Op::Exterior;
  n->type = Type{input_->dtype};
  n->input = input_;
  n->value = value_;
  n->args = std::move(index);
  set_depth(*n);
  return Expr(std::move(n));
}

}  // namespace BoundaryConditions

Input::Input(std::string name, DType dtype, std::vector<int64_t> shape)
    : impl(std::make_shared<InputImpl>(InputImpl{std::move(name), dtype, std::move(shape)})) {
  if (std::string problem = check_name(impl->name, "input"); !problem.empty()) user_error("{}", problem);
  if (std::string problem = check_not_a_buffer(impl->name); !problem.empty()) user_error("input {}", problem);
  if (impl->shape.empty()) user_error("input {}: give it a shape (at least one dimension)", impl->name);
  for (size_t i = 0; i < impl->shape.size(); ++i)
    if (impl->shape[i] < 1)
      user_error("input {}: dimension {} is {}; every dimension must be at least 1 (shape [{}])", impl->name, i,
                 impl->shape[i], fmt::join(impl->shape, ", "));
  if (std::string problem = check_tensor_bytes(impl->name, dtype, impl->shape); !problem.empty())
    user_error("input {}", problem);
}

Expr Input::call(std::vector<Expr> index) const {
  if (index.size() != impl->shape.size())
    user_error("{} has {} dimensions but is called with {} indices", impl->name, impl->shape.size(), index.size());
  for (size_t i = 0; i < index.size(); ++i) index[i] = as_index(index[i], impl->name, i);
  auto n = std::make_shared<ExprNode>();
  n->op = Op::Input;
  n->type = Type{impl->dtype};
  n->input = impl;
  n->args = std::move(index);
  set_depth(*n);
  return Expr(std::move(n));
}

void FuncRef::operator=(const Expr& value) {
  if (func_->value.defined()) user_error("{} is defined twice; a Func has one definition", func_->name);
  if (!value.defined()) user_error("{}: the definition is an undefined expression", func_->name);
  if (value.type().boolean) user_error("{}: the definition `{}` is a comparison; use select()", func_->name, value.str());
  if (args_.empty())
    user_error("{}: a Func is defined over at least one variable; a single value is a Func of one element, e.g. {}(x) = "
               "... with {}.bound(x, 0, 1)", func_->name, func_->name, func_->name);
  for (const Expr& a : args_) {
    if (a.node().op != Op::Var || a.node().var->reduction)
      user_error("{}: define it over plain Vars, e.g. {}(m, n) = ...; `{}` is not one", func_->name, func_->name, a.str());
    for (const auto& seen : func_->args)
      if (seen == a.node().var) user_error("{}: variable {} appears twice on the left", func_->name, seen->name);
    func_->args.push_back(a.node().var);
  }
  std::vector<std::shared_ptr<VarImpl>> used;
  collect_vars(value, used);
  for (const auto& v : used)
    if (!v->reduction && std::find(func_->args.begin(), func_->args.end(), v) == func_->args.end())
      user_error("{}: {} is used on the right but is not one of {}'s variables ({}); add it on the left or reduce "
                 "over an RDom instead", func_->name, v->name, func_->name, var_names(func_->args));
  func_->value = value;
}

FuncRef::operator Expr() const {
  if (!func_->value.defined()) user_error("{} is used before it is defined", func_->name);
  if (args_.size() != func_->args.size())
    user_error("{} has {} variables but is called with {}", func_->name, func_->args.size(), args_.size());
  auto n = std::make_shared<ExprNode>();
  n->op = Op::Func;
  n->type = func_->value.type();
  n->func = func_;
  for (size_t i = 0; i < args_.size(); ++i) n->args.push_back(as_index(args_[i], func_->name, i));
  set_depth(*n, func_->value.node().depth);  // consumers inline their producers
  return Expr(std::move(n));
}

Func::Func(std::string name) : impl(std::make_shared<FuncImpl>()) {
  impl->name = fresh(std::move(name), "f");
  if (std::string problem = check_name(impl->name, "Func"); !problem.empty()) user_error("{}", problem);
  if (std::string problem = check_not_a_buffer(impl->name); !problem.empty()) user_error("Func {}", problem);
}

Type Func::type() const {
  if (!defined()) user_error("{} has no definition yet", name());
  return impl->value.type();
}

std::vector<int64_t> Func::shape() const {
  ShapeCache cache;
  return shape_of(impl, cache);
}

namespace {

std::vector<int64_t> shape_of(const std::shared_ptr<FuncImpl>& impl, ShapeCache& cache) {
  if (auto it = cache.find(impl.get()); it != cache.end()) return it->second;
  auto name = [&] { return impl->name; };
  if (!impl->value.defined()) user_error("{} has no definition yet", name());
  std::vector<int64_t> out;
  for (const Bound& b : impl->bounds)
    if (std::find(impl->args.begin(), impl->args.end(), b.var) == impl->args.end())
      user_error("{}.{}: {} is not one of {}'s variables ({}); bound one of those (a Var of the same name is another Var)",
                 name(), b.text, b.var->name, name(), var_names(impl->args));
  for (const auto& v : impl->args) {
    auto bound = std::find_if(impl->bounds.begin(), impl->bounds.end(), [&](const Bound& b) { return b.var == v; });
    std::vector<Implied> extents;
    implied_extents(impl->value, v.get(), extents, cache);
    if (bound != impl->bounds.end()) {
      for (const Implied& e : extents)
        if (bound->extent > e.extent)
          user_error("{}.{}: {} indexes {} (extent {}); the bound must not exceed it", name(), bound->text, v->name,
                     e.where(), e.extent);
      out.push_back(bound->extent);
      continue;
    }
    if (extents.empty())
      user_error("{}: the extent of {} cannot be inferred (it indexes no input or Func directly); give it with "
                 "{}.bound({}, 0, EXTENT)", name(), v->name, name(), v->name);
    for (const Implied& e : extents)
      if (e.extent != extents[0].extent)
        user_error("{}: {} indexes {} (extent {}) and {} (extent {}); the inputs must agree on its extent", name(),
                   v->name, extents[0].where(), extents[0].extent, e.where(), e.extent);
    out.push_back(extents[0].extent);
  }
  cache[impl.get()] = out;
  return out;
}

}  // namespace

std::vector<std::shared_ptr<InputImpl>> Func::inputs() const { return inputs_of(impl->value); }

std::vector<std::shared_ptr<InputImpl>> inputs_of(const Expr& e) {
  std::vector<std::shared_ptr<InputImpl>> out;
  std::set<const FuncImpl*> seen;
  collect_inputs(e, out, seen);
  return out;
}

Func& Func::bound(const Var& v, int64_t min, int64_t extent) {
  if (min != 0) user_error("{}.bound({}, {}, {}): cubekit Funcs start at 0", name(), v.name(), min, extent);
  if (extent < 1) user_error("{}.bound({}, 0, {}): the extent must be at least 1", name(), v.name(), extent);
  std::string text = fmt::format("bound({}, {}, {})", v.name(), min, extent);
  for (const Bound& b : impl->bounds)
    if (b.var == v.impl) user_error("{}.{}: {} is bounded already ({})", name(), text, v.name(), b.text);
  impl->bounds.push_back({v.impl, extent, text});
  return *this;
}

}  // namespace cubekit::dsl
