#include "kernels/vector.h"

#include "emulator/dtype.h"
#include "kernels/tuned.h"

#include "emulator/error.h"

#include <fmt/format.h>

#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

namespace cubekit::kernels {

namespace {

using dsl::Expr;
using dsl::Func;
using dsl::FuncRef;
using dsl::Input;

// The variables of an operator over `shape`: rows.. (every dimension but the last) and the last,
// plus the reduction over the last.
struct Dims {
  std::vector<dsl::Var> v;
  dsl::RDom k;
  Dims(const std::vector<int64_t>& shape) : k(0, shape.back(), "k") {
    for (size_t i = 0; i < shape.size(); ++i) v.emplace_back(i + 1 == shape.size() ? "c" : fmt::format("r{}", i));
  }
  std::vector<Expr> rows() const {
    std::vector<Expr> r;
    for (size_t i = 0; i + 1 < v.size(); ++i) r.push_back(v[i]);
    return r;
  }
  std::vector<Expr> all() const {
    std::vector<Expr> a = rows();
    a.push_back(v.back());
    return a;
  }
  std::vector<Expr> along_k() const {
    std::vector<Expr> a = rows();
    a.push_back(k);
    return a;
  }
  int64_t cols = 0;
};

FuncRef at(const Func& f, std::vector<Expr> args) { return FuncRef(f.impl, std::move(args)); }
Expr f32(const Expr& e) { return dsl::cast(DType::f32, e); }

using Define = std::function<VectorKernel(const VectorOptions&, Dims&)>;
using Op2 = Expr (*)(const Expr&, const Expr&);

Expr as(DType t, const Expr& e) { return e.type().dtype == t ? e : dsl::cast(t, e); }

// A numpy broadcast read on the vector path (BroadcastView): one Input per operand over the view.
Expr broadcast_read(const char* name, DType t, BroadcastView::Read how, const BroadcastView& v, const dsl::Var& r,
                    const dsl::Var& c, std::vector<Input>& inputs) {
  using Read = BroadcastView::Read;
  std::vector<int64_t> shape = how == Read::Full ? std::vector<int64_t>{v.rows, v.cols}
                             : how == Read::Row  ? std::vector<int64_t>{v.rows}
                                                 : std::vector<int64_t>{v.cols};
  inputs.emplace_back(name, t, shape);
  if (how == Read::Full) return inputs.back()(r, c);
  return how == Read::Row ? inputs.back()(r) : inputs.back()(c);
}

VectorKernel binary(const VectorOptions& o, Dims& d, const char* name, Op2 op) {
  DType yt = o.y_dtype.value_or(o.dtype);
  if (yt != DType::f16 && yt != DType::f32)
    user_error("{}: Y is {}; the vector kernels take f16 or f32", name, dtype_name(yt));
  DType rt = dtype_size(yt) > dtype_size(o.dtype) ? yt : o.dtype;  // numpy's promotion of f16 and f32
  Func out(name);
  if (o.scalar) {  // a constant operand: an immediate of vadds, vmuls, ... (in the result's type)
    if (!o.y_shape.empty()) user_error("{}: give Y's shape or a scalar, not both", name);
    Input x("X", o.dtype, o.shape);
    Expr xe = as(rt, x.call(d.all())), k = dsl::cast(rt, Expr(*o.scalar));
    at(out, d.all()) = o.scalar_first ? op(k, xe) : op(xe, k);
    return {{x}, out};
  }
  std::vector<int64_t> ys = o.y_shape.empty() ? o.shape : o.y_shape;
  for (int64_t e : ys)
    if (e < 1) user_error("{}: every dimension of Y must be at least 1, got [{}]", name, fmt::join(ys, ", "));
  std::vector<int64_t> shape = broadcast_shape(o.shape, ys, name);
  if (o.shape == ys) {
    Input x("X", o.dtype, o.shape), y("Y", yt, ys);
    at(out, d.all()) = op(as(rt, x.call(d.all())), as(rt, y.call(d.all())));
    return {{x, y}, out};
  }
  BroadcastView v = broadcast_view(o.shape, ys);
  const auto one_element = [](const std::vector<int64_t>& s) {
    return std::all_of(s.begin(), s.end(), [](int64_t e) { return e == 1; });
  };
  if (!v.ok && one_element(ys) && ys.size() <= o.shape.size())
    user_error("{}: Y [{}] is one value for every element of X [{}]: give it as a constant (--scalar VALUE; in Python a "
               "number)", name, fmt::join(ys, ", "), fmt::join(o.shape, ", "));
  if (!v.ok)
    user_error("{}: X [{}] and Y [{}] broadcast to [{}], which the vector path does not read directly: it reads an "
               "operand of the result's shape with the other as one value per row (trailing 1s) or per column "
               "(leading 1s); broadcast one of them to [{}] first", name, fmt::join(o.shape, ", "), fmt::join(ys, ", "),
               fmt::join(shape, ", "), fmt::join(shape, ", "));
  dsl::Var r("r"), c("c");
  std::vector<Input> inputs;
  Expr xe = broadcast_read("X", o.dtype, v.x, v, r, c, inputs), ye = broadcast_read("Y", yt, v.y, v, r, c, inputs);
  out(r, c) = op(as(rt, xe), as(rt, ye));
  return {inputs, out};
}

// An elementwise function computed in f32, the result in the input's type.
VectorKernel unary_f32(const VectorOptions& o, Dims& d, const char* name, Expr (*f)(const Expr&)) {
  Input x("X", o.dtype, o.shape);
  // A Func named "tanh" clashes with the C library's tanh in Halide's JIT ("Symbol not found: tanh.buffer").
  Func out(std::string(name) == "tanh" ? "tanh_out" : name);
  at(out, d.all()) = dsl::cast(o.dtype, f(f32(x.call(d.all()))));
  return {{x}, out};
}

// tanh(y) = 1 - 2 / (e^2y + 1): finite for every y (e^2y overflows to inf, giving 1)
Expr tanh_of(const Expr& y) { return 1.0f - 2.0f / (dsl::exp(2.0f * y) + 1.0f); }
Expr sigmoid_of(const Expr& x) { return 1.0f / (dsl::exp(-x) + 1.0f); }

// One value per row of the last dimension: sum and mean in f32, max and min exact in the input type.
VectorKernel reduction(const VectorOptions& o, const char* name) {
  std::vector<int64_t> shape = o.shape.size() == 1 ? std::vector<int64_t>{1, o.shape[0]} : o.shape;
  Dims d(shape);
  Input x("X", o.dtype, shape);
  Expr xk = x.call(d.along_k());
  std::string n = name;
  Expr value = n == "max" ? dsl::maximum(xk)
             : n == "min" ? dsl::minimum(xk)
             : n == "sum" ? dsl::cast(o.dtype, dsl::sum(f32(xk)))
                          : dsl::cast(o.dtype, dsl::sum(f32(xk)) / float(shape.back()));
  Func out(name);
  at(out, d.rows()) = value;
  return {{x}, out};
}

Define binary_op(const char* name, Op2 op) {
  return [=](const VectorOptions& o, Dims& d) { return binary(o, d, name, op); };
}
Define unary_op(const char* name, Expr (*f)(const Expr&)) {
  return [=](const VectorOptions& o, Dims& d) { return unary_f32(o, d, name, f); };
}
Define reduction_op(const char* name) {
  return [=](const VectorOptions& o, Dims&) { return reduction(o, name); };
}

VectorKernel gelu(const VectorOptions& o, Dims& d) {
  // tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  return unary_f32(o, d, "gelu", [](const Expr& xf) {
    return 0.5f * xf * (1.0f + tanh_of(0.7978845608f * (xf + 0.044715f * xf * xf * xf)));
  });
}

VectorKernel softmax(const VectorOptions& o, Dims& d) {
  // max, subtract, exp, sum, divide: exp never sees a positive argument
  Input x("X", o.dtype, o.shape);
  Func mx("row_max"), e("exp_shifted"), s("row_sum"), out("softmax");
  at(mx, d.rows()) = f32(dsl::maximum(x.call(d.along_k())));  // max is exact in the input type
  at(e, d.all()) = dsl::exp(f32(x.call(d.all())) - at(mx, d.rows()));
  at(s, d.rows()) = dsl::sum(Expr(at(e, d.along_k())));
  // Times the row sum's reciprocal, not divided by it: the sum is at least 1 (the max's exp), so its
  // reciprocal is a normal number, and one reciprocal a row with a multiply (within an ulp of the
  // division) costs the 910's vector-bound softmax of 4096^2 22% less than a vdiv of every element.
  at(out, d.all()) = dsl::cast(o.dtype, at(e, d.all()) * (1.0f / at(s, d.rows())));
  return {{x}, out};
}

VectorKernel layernorm(const VectorOptions& o, Dims& d, bool rms) {
  Input x("X", o.dtype, o.shape), gamma("gamma", o.dtype, {o.shape.back()}), beta("beta", o.dtype, {o.shape.back()});
  float n = float(o.shape.back()), eps = float(o.eps);
  Func xf("x_f32"), out(rms ? "rmsnorm" : "layernorm");
  at(xf, d.all()) = f32(x.call(d.all()));
  Expr g = f32(gamma.call({d.v.back()}));
  if (rms) {
    Func ms("mean_square"), rinv("inv_rms");
    Expr xk = at(xf, d.along_k());
    at(ms, d.rows()) = dsl::sum(xk * xk) / n;
    at(rinv, d.rows()) = 1.0f / dsl::sqrt(Expr(at(ms, d.rows())) + eps);
    at(out, d.all()) = dsl::cast(o.dtype, at(xf, d.all()) * at(rinv, d.rows()) * g);
    return {{x, gamma}, out};
  }
  Func mean("mean"), dev("deviation"), var("variance"), rstd("inv_std");
  at(mean, d.rows()) = dsl::sum(Expr(at(xf, d.along_k()))) / n;
  at(dev, d.all()) = at(xf, d.all()) - at(mean, d.rows());
  Expr dk = at(dev, d.along_k());
  at(var, d.rows()) = dsl::sum(dk * dk) / n;
  at(rstd, d.rows()) = 1.0f / dsl::sqrt(Expr(at(var, d.rows())) + eps);
  at(out, d.all()) = dsl::cast(o.dtype, at(dev, d.all()) * at(rstd, d.rows()) * g + f32(beta.call({d.v.back()})));
  return {{x, gamma, beta}, out};
}

const std::map<std::string, Define>& table() {
  static const std::map<std::string, Define> t = {
      {"add", binary_op("add", [](const Expr& a, const Expr& b) { return a + b; })},
      {"sub", binary_op("sub", [](const Expr& a, const Expr& b) { return a - b; })},
      {"mul", binary_op("mul", [](const Expr& a, const Expr& b) { return a * b; })},
      {"div", binary_op("div", [](const Expr& a, const Expr& b) { return a / b; })},
      {"maximum", binary_op("maximum", [](const Expr& a, const Expr& b) { return dsl::max(a, b); })},
      {"minimum", binary_op("minimum", [](const Expr& a, const Expr& b) { return dsl::min(a, b); })},
      {"exp", unary_op("exp", [](const Expr& x) { return dsl::exp(x); })},
      {"tanh", unary_op("tanh", tanh_of)},
      {"sigmoid", unary_op("sigmoid", sigmoid_of)},
      {"silu", unary_op("silu", [](const Expr& x) { return x * sigmoid_of(x); })},
      {"sum", reduction_op("sum")}, {"max", reduction_op("max")}, {"min", reduction_op("min")},
      {"mean", reduction_op("mean")},
      {"relu",
       [](const VectorOptions& o, Dims& d) {
         Input x("X", o.dtype, o.shape);
         Func out("relu");
         at(out, d.all()) = dsl::max(x.call(d.all()), 0);
         return VectorKernel{{x}, out};
       }},
      {"gelu", gelu},
      {"cast",
       [](const VectorOptions& o, Dims& d) {
         Input x("X", o.dtype, o.shape);
         Func out("cast");
         at(out, d.all()) = dsl::cast(o.to, x.call(d.all()));
         return VectorKernel{{x}, out};
       }},
      {"softmax", softmax},
      {"layernorm", [](const VectorOptions& o, Dims& d) { return layernorm(o, d, false); }},
      {"rmsnorm", [](const VectorOptions& o, Dims& d) { return layernorm(o, d, true); }},
  };
  return t;
}

}  // namespace

const std::vector<std::string>& vector_kernel_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& [name, f] : table()) n.push_back(name);
    return n;
  }();
  return names;
}

bool is_binary_kernel(const std::string& name) {
  for (const char* b : {"add", "sub", "mul", "div", "maximum", "minimum"})
    if (name == b) return true;
  return false;
}

bool is_reduction_kernel(const std::string& name) {
  return name == "sum" || name == "max" || name == "min" || name == "mean";
}

bool is_row_kernel(const std::string& name) {
  return name == "softmax" || name == "layernorm" || name == "rmsnorm" || is_reduction_kernel(name);
}

std::vector<int64_t> broadcast_shape(const std::vector<int64_t>& a, const std::vector<int64_t>& b, const std::string& what) {
  size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {  // aligned from the last dimension, as numpy
    int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())], y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (x != y && x != 1 && y != 1)
      user_error("{}: shapes [{}] and [{}] do not broadcast: dimension {} is {} and {} (numpy's rule: equal, or one of "
                 "them 1)", what, fmt::join(a, ", "), fmt::join(b, ", "), i, x, y);
    out[i] = std::max(x, y);
  }
  return out;
}

BroadcastView broadcast_view(const std::vector<int64_t>& x, const std::vector<int64_t>& y) {
  using Read = BroadcastView::Read;
  std::vector<int64_t> s = broadcast_shape(x, y, "broadcast");
  size_t n = s.size();
  auto padded = [n](const std::vector<int64_t>& a) {
    std::vector<int64_t> p(n - a.size(), 1);
    p.insert(p.end(), a.begin(), a.end());
    return p;
  };
  auto ones = [](const std::vector<int64_t>& a, size_t from, size_t to) {
    return std::all_of(a.begin() + long(from), a.begin() + long(to), [](int64_t e) { return e == 1; });
  };
  auto same = [&s](const std::vector<int64_t>& a, size_t from, size_t to) {
    return std::equal(a.begin() + long(from), a.begin() + long(to), s.begin() + long(from));
  };
  std::vector<int64_t> px = padded(x), py = padded(y);
  // The largest split that reads both (the fewest columns: a per-column operand stays in UB).
  for (size_t p = n - 1; p >= 1; --p) {
    auto read = [&](const std::vector<int64_t>& a) -> std::optional<Read> {
      if (a == s) return Read::Full;
      if (same(a, 0, p) && ones(a, p, n)) return Read::Row;
      if (ones(a, 0, p) && same(a, p, n)) return Read::Col;
      return std::nullopt;
    };
    std::optional<Read> rx = read(px), ry = read(py);
    if (rx && ry && (*rx == Read::Full || *ry == Read::Full)) {
      BroadcastView v{.ok = true, .split = p, .x = *rx, .y = *ry};
      for (size_t i = 0; i < n; ++i) (i < p ? v.rows : v.cols) *= s[i];
      return v;
    }
  }
  return {};
}

VectorKernel vector_kernel(const std::string& name, const VectorOptions& o) {
  auto it = table().find(name);
  if (it == table().end())
    user_error("no vector kernel '{}'; the kernels are {}", name, fmt::join(vector_kernel_names(), ", "));
  if (o.shape.empty()) user_error("{}: give a shape (at least one dimension)", name);
  // The Halide reference's compile time grows with the rank (rank 16 of extent-1 dimensions took
  // 4 s, rank 25 25 s, rank 40 over 2 minutes), while the kernel itself runs on the rows anyway.
  constexpr size_t kMostDims = 16;
  for (const auto& [what, shape] : {std::pair<const char*, const std::vector<int64_t>&>{"X", o.shape}, {"Y", o.y_shape}})
    if (shape.size() > kMostDims)
      user_error("{}: {} has {} dimensions; the vector kernels take at most {}: reshape it (merge dimensions, or drop "
                 "those of extent 1)", name, what, shape.size(), kMostDims);
  for (int64_t e : o.shape)
    if (e < 1) user_error("{}: every dimension must be at least 1, got [{}]", name, fmt::join(o.shape, ", "));
  if (o.dtype != DType::f16 && o.dtype != DType::f32)
    user_error("{}: the vector kernels take f16 or f32, not {}", name, dtype_name(o.dtype));
  if (o.tile_rows < 0) user_error("{}: tile_rows must be at least 1 (or 0 to choose), got {}", name, o.tile_rows);
  if (o.copies < 0) user_error("{}: copies must be at least 1 (or 0 to choose), got {}", name, o.copies);
  if (o.copies && o.double_buffer)  // copies 3 with double buffering off said two things
    user_error("{}: give the copies of its tile buffers or double buffering (on or off), not both (2 copies is double "
               "buffering, 1 is none)", name);
  if ((name == "layernorm" || name == "rmsnorm") && !(o.eps >= 0 && o.eps <= largest_finite(DType::f32)))
    user_error("{}: eps {} must be a finite number from 0 to 3.4e38 (it is added to the variance in f32)", name, o.eps);
  bool rows = name == "softmax" || name == "layernorm" || name == "rmsnorm";
  if (rows && o.shape.size() < 2)
    user_error("{}: give at least 2 dimensions (rows.., columns); it works along the last one, got [{}]", name,
               fmt::join(o.shape, ", "));
  if (!is_row_kernel(name) && o.tile_rows)
    user_error("{}: tile_rows applies to the row kernels (softmax, layernorm, rmsnorm, sum, max, min, mean); {} is "
               "elementwise, in tiles of elements", name, name);
  if (!is_binary_kernel(name) && (!o.y_shape.empty() || o.y_dtype || o.scalar))
    user_error("{}: Y's shape and type and a scalar operand are for the binary kernels (add, sub, mul, div, maximum, "
               "minimum)", name);
  for (const auto* shape : {&o.shape, &o.y_shape})  // the RDom over the last dim would name itself
    for (size_t i = 0; i < shape->size(); ++i)
      if ((*shape)[i] > INT32_MAX)
        user_error("{}: dim {} of {} [{}] is {}, past 2^31 - 1: the DSL's indices are s32; use a smaller shape", name, i,
                   shape == &o.shape ? "X" : "Y", fmt::join(*shape, ", "), (*shape)[i]);
  Dims d(o.shape);
  VectorKernel k = it->second(o, d);
  bool naive = o.schedule == VectorOptions::Schedule::Naive;
  if (o.use_cores.value_or(!naive)) k.out.cores({dsl::Var(k.out.impl->args[0])});  // the outermost variable
  if (o.copies) k.out.multi_buffer(dsl::Level::UB, o.copies);
  else if (o.double_buffer.value_or(!naive)) k.out.double_buffer();
  if (o.tile_rows) k.out.tile_rows(o.tile_rows);
  return k;
}

VectorKernel vector_kernel(const std::string& name, const VectorOptions& options, const ChipConfig& chip) {
  check_chip(chip);  // a config changed in C++: its figures divide the schedule's sizes
  VectorOptions o = options;
  std::optional<tune::Tuned> tuned = take_tuned(name, o, chip);
  VectorKernel k = vector_kernel(name, o);
  k.tuned = tuned;
  return k;
}

}  // namespace cubekit::kernels
