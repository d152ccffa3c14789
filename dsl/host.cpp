#include "dsl/host.h"

#include "emulator/error.h"

#include <Halide.h>

#include <cstring>

namespace cubekit::dsl {

namespace {

Halide::Type halide_type(DType t) {
  switch (t) {
    case DType::f16: return Halide::Float(16);
    case DType::f32: return Halide::Float(32);
    case DType::s8: return Halide::Int(8);
    case DType::u8: return Halide::UInt(8);
    case DType::s16: return Halide::Int(16);
    case DType::u16: return Halide::UInt(16);
    case DType::s32: return Halide::Int(32);
  }
  return Halide::Float(32);
}

// Translates DSL expressions to Halide. Dimensions are reversed: Halide's first dimension is the
// innermost, cubekit's last.
class Lowering {
 public:
  Halide::Expr expr(const Expr& e) {
    const ExprNode& n = e.node();
    auto arg = [&](int i) { return expr(n.args[size_t(i)]); };
    switch (n.op) {
      case Op::Const: return n.type.boolean ? Halide::Expr(n.value != 0) : Halide::cast(halide_type(n.type.dtype), Halide::Expr(n.value));
      case Op::Var: return var(n.var);
      case Op::Input: return input(n.input)(reversed(n.args));
      case Op::Func: return func(n.func)(reversed(n.args));
      case Op::Cast: return Halide::cast(halide_type(n.type.dtype), arg(0));
      case Op::Add: return arg(0) + arg(1);
      case Op::Sub: return arg(0) - arg(1);
      case Op::Mul: return arg(0) * arg(1);
      case Op::Div: return arg(0) / arg(1);
      case Op::Min: return Halide::min(arg(0), arg(1));
      case Op::Max: return Halide::max(arg(0), arg(1));
      case Op::Neg: return -arg(0);
      case Op::Exp: return Halide::exp(arg(0));
      case Op::Log: return Halide::log(arg(0));
      case Op::Sqrt: return Halide::sqrt(arg(0));
      case Op::Abs: return Halide::cast(halide_type(n.type.dtype), Halide::abs(arg(0)));
      case Op::Lt: return arg(0) < arg(1);
      case Op::Le: return arg(0) <= arg(1);
      case Op::Gt: return arg(0) > arg(1);
      case Op::Ge: return arg(0) >= arg(1);
      case Op::Eq: return arg(0) == arg(1);
      case Op::Ne: return arg(0) != arg(1);
      case Op::Select: return Halide::select(arg(0), arg(1), arg(2));
      case Op::Sum: return Halide::sum(arg(0));
      case Op::Maximum: return Halide::maximum(arg(0));
      case Op::Minimum: return Halide::minimum(arg(0));
    }
    internal_error(__FILE__, __LINE__, "unhandled op", std::string(op_name(n.op)));
  }

  Halide::Func define(const std::shared_ptr<FuncImpl>& f) {
    auto it = funcs_.find(f.get());
    if (it != funcs_.end()) return it->second;
    Halide::Func hf(f->name);
    funcs_.emplace(f.get(), hf);
    std::vector<Halide::Var> args;
    for (auto v = f->args.rbegin(); v != f->args.rend(); ++v) args.push_back(pure(*v));
    hf(args) = expr(f->value);
    return hf;
  }

  std::map<const InputImpl*, Halide::ImageParam> params;

 private:
  std::vector<Halide::Expr> reversed(const std::vector<Expr>& args) {
    std::vector<Halide::Expr> out;
    for (auto a = args.rbegin(); a != args.rend(); ++a) out.push_back(expr(*a));
    return out;
  }
  Halide::Var pure(const std::shared_ptr<VarImpl>& v) {
    auto it = vars_.find(v.get());
    if (it == vars_.end()) it = vars_.emplace(v.get(), Halide::Var(v->name)).first;
    return it->second;
  }
  Halide::Expr var(const std::shared_ptr<VarImpl>& v) {
    if (!v->reduction) return pure(v);
    auto it = rdoms_.find(v.get());
    if (it == rdoms_.end()) it = rdoms_.emplace(v.get(), Halide::RDom(int(v->min), int(v->extent), v->name)).first;
    return it->second.x;
  }
  Halide::ImageParam& input(const std::shared_ptr<InputImpl>& in) {
    auto it = params.find(in.get());
    if (it == params.end())
      it = params.emplace(in.get(), Halide::ImageParam(halide_type(in->dtype), int(in->shape.size()), in->name)).first;
    return it->second;
  }
  Halide::Func func(const std::shared_ptr<FuncImpl>& f) {
    Halide::Func hf = define(f);
    hf.compute_root();
    return hf;
  }

  std::map<const VarImpl*, Halide::Var> vars_;
  std::map<const VarImpl*, Halide::RDom> rdoms_;
  std::map<const FuncImpl*, Halide::Func> funcs_;
};

}  // namespace

struct HostPipeline::Impl {
  Lowering lowering;
  Halide::Func output;
  std::vector<std::shared_ptr<InputImpl>> inputs;
  DType dtype;
  std::vector<int64_t> shape;
  std::string name;
};

// The JIT target: the host's, less the features this CPU does not have. Halide 14 takes any CPU with
// AVX512-BF16 for a Sapphire Rapids and then emits AVX512-FP16 instructions for f16 pipelines, which
// AMD's Zen 4 and 5 lack (SIGILL). HL_JIT_TARGET, when set, is taken as it is.
static Halide::Target jit_target() {
  Halide::Target target = Halide::get_jit_target_from_environment();
#if defined(__x86_64__) || defined(__i386__)
  if (target.has_feature(Halide::Target::AVX512_SapphireRapids) && !__builtin_cpu_supports("avx512fp16"))
    target = target.without_feature(Halide::Target::AVX512_SapphireRapids);
#endif
  return target;
}

HostPipeline::HostPipeline(const Func& output, bool parallel) : impl_(std::make_unique<Impl>()) {
  impl_->inputs = output.inputs();
  impl_->name = output.name();
  impl_->dtype = output.type().dtype;
  impl_->shape = output.shape();
  try {
    impl_->output = impl_->lowering.define(output.impl);
  } catch (const Halide::Error& e) {
    throw InternalError(std::string("Halide rejected the definition of ") + output.name() + ": " + e.what());
  }
  if (parallel) {
    std::vector<Halide::Var> args = impl_->output.args();
    if (args.size() >= 2) impl_->output.parallel(args.back());
    int lanes = dtype_size(impl_->dtype) == 2 ? 16 : 8;
    if (impl_->shape.back() >= lanes) impl_->output.vectorize(args.front(), lanes, Halide::TailStrategy::GuardWithIf);
  }
  try {
    impl_->output.compile_jit(jit_target());
  } catch (const Halide::Error& e) {
    throw InternalError(std::string("Halide could not compile ") + output.name() + ": " + e.what());
  }
}

HostPipeline::~HostPipeline() = default;
HostPipeline::HostPipeline(HostPipeline&&) noexcept = default;

HostTensor HostPipeline::run(const std::map<std::string, const std::vector<uint8_t>*>& inputs) const {
  std::vector<Halide::Buffer<>> keep;
  for (const auto& in : impl_->inputs) {
    auto it = inputs.find(in->name);
    if (it == inputs.end()) user_error("the host reference needs input {}, which was not given", in->name);
    int64_t bytes = dtype_size(in->dtype);
    for (int64_t d : in->shape) bytes *= d;
    if (int64_t(it->second->size()) != bytes)
      user_error("input {} holds {} bytes, its shape needs {}", in->name, it->second->size(), bytes);
    std::vector<int> sizes(in->shape.rbegin(), in->shape.rend());
    keep.emplace_back(halide_type(in->dtype), const_cast<uint8_t*>(it->second->data()), sizes);
    impl_->lowering.params.at(in.get()).set(keep.back());
  }
  std::vector<int> sizes(impl_->shape.rbegin(), impl_->shape.rend());
  Halide::Buffer<> out(halide_type(impl_->dtype), sizes);
  try {
    impl_->output.realize(out);
  } catch (const Halide::RuntimeError& e) {  // an index expression reads outside an input
    user_error("the host reference of {}: {}; check its index expressions and bound()", impl_->name, e.what());
  }
  HostTensor t{impl_->dtype, impl_->shape, {}};
  t.data.resize(out.size_in_bytes());
  std::memcpy(t.data.data(), out.data(), t.data.size());
  return t;
}

HostTensor run_on_host(const Func& output, const std::map<std::string, const std::vector<uint8_t>*>& inputs) {
  return HostPipeline(output).run(inputs);
}

}  // namespace cubekit::dsl
