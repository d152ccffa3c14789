#include "dsl/host.h"

#include "dsl/bounds.h"
#include "dsl/host_lowering.h"
#include "emulator/error.h"

#include <cstring>
#include <set>

namespace cubekit::dsl {

struct HostPipeline::Impl {
  host::Lowered lowered;
  std::vector<std::shared_ptr<InputImpl>> inputs;
  DType dtype;
  std::vector<int64_t> shape;
  std::string name;
};

// The JIT target: the host's, less the features this CPU does not have. Halide 14 takes any CPU with
// AVX512-BF16 for a Sapphire Rapids and then emits AVX512-FP16 instructions for f16 pipelines, which
// AMD's Zen 4 and 5 lack (SIGILL). HL_JIT_TARGET, when set, is taken as it is. Always strict_float:
// the reference computes what IEEE says (no fast-math assumptions that NaN and inf never occur, no
// fused multiply-adds, no reassociation).
static Halide::Target jit_target() {
  Halide::Target target = Halide::get_jit_target_from_environment();
#if defined(__x86_64__) || defined(__i386__)
  if (target.has_feature(Halide::Target::AVX512_SapphireRapids) && !__builtin_cpu_supports("avx512fp16"))
    target = target.without_feature(Halide::Target::AVX512_SapphireRapids);
#endif
  return target.with_feature(Halide::Target::StrictFloat);
}

namespace {

void add_work(const std::shared_ptr<FuncImpl>& f, std::set<const FuncImpl*>& seen, double& total);

void add_called(const Expr& e, std::set<const FuncImpl*>& seen, double& total) {
  const ExprNode& n = e.node();
  if (n.op == Op::Func) add_work(n.func, seen, total);
  for (const Expr& a : n.args) add_called(a, seen, total);
}

void add_work(const std::shared_ptr<FuncImpl>& f, std::set<const FuncImpl*>& seen, double& total) {
  if (!seen.insert(f.get()).second) return;
  double elements = 1, reduced = 1;
  for (int64_t e : Func(f).shape()) elements *= double(e);
  for (const auto& r : rvars_of(f->value)) reduced *= double(std::max<int64_t>(r->extent, 1));
  total += elements * reduced;
  add_called(f->value, seen, total);
}

}  // namespace

double host_work(const Func& output) {
  std::set<const FuncImpl*> seen;
  double total = 0;
  add_work(output.impl, seen, total);
  return total;
}

HostPipeline::HostPipeline(const Func& output, HostSchedule schedule) : impl_(std::make_unique<Impl>()) {
  check_reads_in_bounds(output);
  impl_->inputs = output.inputs();
  impl_->name = output.name();
  impl_->dtype = output.type().dtype;
  impl_->shape = output.shape();
  Halide::Target target = jit_target();
  // 16 M operations: the plain loop nest does them in well under the 0.2 s the fast schedule's longer
  // compile costs (measured on a softmax and a matmul, tests/dsl/host_fast_test.cpp keeps both equal).
  constexpr double kFastFrom = 1 << 24;
  const bool small = host_work(output) <= kFastFrom;
  bool fast = schedule == HostSchedule::Fast || (schedule == HostSchedule::Auto && !small);
  // A small pipeline compiles without Halide's runtime assertions, a fifth of its JIT's LLVM time
  // (two codegen test shards: 22.7 -> 18.5 s, 10.8 -> 8.7 s): every read is proved within its input
  // first (check_reads_in_bounds, above) and run() makes the buffers to the declared shapes. A big
  // one keeps them, for what they still catch there: an intermediate buffer the host cannot allocate.
  if (small) target = target.with_feature(Halide::Target::NoAsserts);
  try {
    impl_->lowered = host::lower(output, fast);
    if (fast) host::schedule_fast(impl_->lowered, target);
  } catch (const Halide::Error& e) {
    throw InternalError(std::string("Halide rejected the definition of ") + output.name() + ": " + e.what());
  }
  try {
    impl_->lowered.output.compile_jit(target);
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
    keep.emplace_back(host::halide_type(in->dtype), const_cast<uint8_t*>(it->second->data()), sizes);
    impl_->lowered.params.at(in.get()).set(keep.back());
  }
  std::vector<int> sizes(impl_->shape.rbegin(), impl_->shape.rend());
  Halide::Buffer<> out(host::halide_type(impl_->dtype), sizes);
  try {
    impl_->lowered.output.realize(out);
  } catch (const Halide::RuntimeError& e) {  // with the assertions: an allocation that failed, ...
    user_error("the host reference of {}: {}", impl_->name, e.what());
  }
  HostTensor t{impl_->dtype, impl_->shape, {}};
  t.data.resize(out.size_in_bytes());
  std::memcpy(t.data.data(), out.data(), t.data.size());
  return t;
}

HostTensor run_on_host(const Func& output, const std::map<std::string, const std::vector<uint8_t>*>& inputs,
                       HostSchedule schedule) {
  return HostPipeline(output, schedule).run(inputs);
}

}  // namespace cubekit::dsl
