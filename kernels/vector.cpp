#include "kernels/vector.h"

#include "emulator/error.h"

#include <fmt/format.h>

#include <functional>
#include <map>

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

VectorKernel binary(const VectorOptions& o, Dims& d, const char* name, Expr (*op)(const Expr&, const Expr&)) {
  Input x("X", o.dtype, o.shape), y("Y", o.dtype, o.shape);
  Func out(name);
  at(out, d.all()) = op(x.call(d.all()), y.call(d.all()));
  return {{x, y}, out};
}

VectorKernel gelu(const VectorOptions& o, Dims& d) {
  // tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), tanh(y) = 1 - 2 / (e^2y + 1)
  Input x("X", o.dtype, o.shape);
  Expr xf = f32(x.call(d.all()));
  Expr y = 0.7978845608f * (xf + 0.044715f * xf * xf * xf);
  Expr tanh = 1.0f - 2.0f / (dsl::exp(2.0f * y) + 1.0f);
  Func out("gelu");
  at(out, d.all()) = dsl::cast(o.dtype, 0.5f * xf * (1.0f + tanh));
  return {{x}, out};
}

VectorKernel softmax(const VectorOptions& o, Dims& d) {
  // max, subtract, exp, sum, divide: exp never sees a positive argument
  Input x("X", o.dtype, o.shape);
  Func mx("row_max"), e("exp_shifted"), s("row_sum"), out("softmax");
  at(mx, d.rows()) = f32(dsl::maximum(x.call(d.along_k())));  // max is exact in the input type
  at(e, d.all()) = dsl::exp(f32(x.call(d.all())) - at(mx, d.rows()));
  at(s, d.rows()) = dsl::sum(Expr(at(e, d.along_k())));
  at(out, d.all()) = dsl::cast(o.dtype, at(e, d.all()) / at(s, d.rows()));
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
      {"add", [](const VectorOptions& o, Dims& d) { return binary(o, d, "add", [](const Expr& a, const Expr& b) { return a + b; }); }},
      {"mul", [](const VectorOptions& o, Dims& d) { return binary(o, d, "mul", [](const Expr& a, const Expr& b) { return a * b; }); }},
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

VectorKernel vector_kernel(const std::string& name, const VectorOptions& o) {
  auto it = table().find(name);
  if (it == table().end())
    user_error("no vector kernel '{}'; the kernels are {}", name, fmt::join(vector_kernel_names(), ", "));
  if (o.shape.empty()) user_error("{}: give a shape (at least one dimension)", name);
  for (int64_t e : o.shape)
    if (e < 1) user_error("{}: every dimension must be at least 1, got [{}]", name, fmt::join(o.shape, ", "));
  if (o.dtype != DType::f16 && o.dtype != DType::f32)
    user_error("{}: the vector kernels take f16 or f32, not {}", name, dtype_name(o.dtype));
  if (o.tile_rows < 0) user_error("{}: tile_rows must be at least 1 (or 0 to choose), got {}", name, o.tile_rows);
  bool rows = name == "softmax" || name == "layernorm" || name == "rmsnorm";
  if (rows && o.shape.size() < 2)
    user_error("{}: give at least 2 dimensions (rows.., columns); it works along the last one, got [{}]", name,
               fmt::join(o.shape, ", "));
  if (!rows && o.tile_rows)
    user_error("{}: tile_rows applies to the row kernels (softmax, layernorm, rmsnorm); {} is elementwise, in tiles of "
               "elements", name, name);
  Dims d(o.shape);
  VectorKernel k = it->second(o, d);
  bool naive = o.schedule == VectorOptions::Schedule::Naive;
  if (o.use_cores.value_or(!naive)) k.out.cores({d.v[0]});
  if (o.double_buffer.value_or(!naive)) k.out.double_buffer();
  if (o.tile_rows) k.out.tile_rows(o.tile_rows);
  return k;
}

}  // namespace cubekit::kernels
