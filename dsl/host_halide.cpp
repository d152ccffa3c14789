// The Halide host backend module (dsl/host_backend.h): a Func compiled by Halide's JIT and run.
// Built as libcubekit_halide.so, loaded by host.cpp on the first reference a process computes.
#include "dsl/host_backend.h"

#include "dsl/host_lowering.h"
#include "emulator/error.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <set>

namespace cubekit::dsl {

namespace {

struct Pipeline {
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
Halide::Target jit_target() {
  Halide::Target target = Halide::get_jit_target_from_environment();
#if defined(__x86_64__) || defined(__i386__)
  if (target.has_feature(Halide::Target::AVX512_SapphireRapids) && !__builtin_cpu_supports("avx512fp16"))
    target = target.without_feature(Halide::Target::AVX512_SapphireRapids);
#endif
  return target.with_feature(Halide::Target::StrictFloat);
}

int64_t bytes_of(DType dtype, const std::vector<int64_t>& shape) {
  int64_t bytes = dtype_size(dtype);
  for (int64_t d : shape) bytes *= d;
  return bytes;
}

// The largest buffer of the pipeline: an input (as the copy a fast schedule stages of it, in a type
// of 4 bytes at most), or a Func of it (the output, an intermediate).
void largest_buffer(const Expr& e, std::set<const FuncImpl*>& seen, int64_t& bytes) {
  const ExprNode& n = e.node();
  if (n.input) bytes = std::max(bytes, bytes_of(DType::f32, n.input->shape));  // its copy, converted to f32 at most
  if (n.op == Op::Func && seen.insert(n.func.get()).second) {
    const Func f(n.func);
    bytes = std::max(bytes, bytes_of(f.type().dtype, f.shape()));
    largest_buffer(n.func->value, seen, bytes);
  }
  for (const Expr& a : n.args) largest_buffer(a, seen, bytes);
}

void* compile(const Func& output, bool fast, bool small) {
  auto p = std::make_unique<Pipeline>();
  p->inputs = output.inputs();
  p->name = output.name();
  p->dtype = output.type().dtype;
  p->shape = output.shape();
  Halide::Target target = jit_target();
  // A small pipeline compiles without Halide's runtime assertions, a fifth of its JIT's LLVM time
  // (two codegen test shards: 22.7 -> 18.5 s, 10.8 -> 8.7 s): every read is proved within its input
  // first (check_reads_in_bounds, host.cpp) and run() makes the buffers to the declared shapes. A big
  // one keeps them, for what they still catch there: an intermediate buffer the host cannot allocate.
  if (small) target = target.with_feature(Halide::Target::NoAsserts);
  // Halide indexes a buffer with 32-bit offsets unless told otherwise: past 2 GiB its code read
  // outside the buffer (a matmul's 2.2 GB input segfaulted in the reference's copy of it).
  std::set<const FuncImpl*> seen;
  int64_t largest = bytes_of(p->dtype, p->shape);
  largest_buffer(output.impl->value, seen, largest);
  if (largest > INT32_MAX) target = target.with_feature(Halide::Target::LargeBuffers);
  try {
    p->lowered = host::lower(output, fast);
    if (fast) host::schedule_fast(p->lowered, target);
  } catch (const Halide::Error& e) {
    throw InternalError(std::string("Halide rejected the definition of ") + output.name() + ": " + e.what());
  }
  try {
    p->lowered.output.compile_jit(target);
  } catch (const Halide::Error& e) {
    throw InternalError(std::string("Halide could not compile ") + output.name() + ": " + e.what());
  }
  return p.release();
}

HostTensor run(void* pipeline, const std::map<std::string, const std::vector<uint8_t>*>& inputs) {
  Pipeline* p = static_cast<Pipeline*>(pipeline);
  std::vector<Halide::Buffer<>> keep;
  for (const auto& in : p->inputs) {
    auto it = inputs.find(in->name);
    if (it == inputs.end()) user_error("the host reference needs input {}, which was not given", in->name);
    int64_t bytes = dtype_size(in->dtype);
    for (int64_t d : in->shape) bytes *= d;
    if (int64_t(it->second->size()) != bytes)
      user_error("input {} holds {} bytes, its shape needs {}", in->name, it->second->size(), bytes);
    std::vector<int> sizes(in->shape.rbegin(), in->shape.rend());
    keep.emplace_back(host::halide_type(in->dtype), const_cast<uint8_t*>(it->second->data()), sizes);
    p->lowered.params.at(in.get()).set(keep.back());
  }
  std::vector<int> sizes(p->shape.rbegin(), p->shape.rend());
  Halide::Buffer<> out(host::halide_type(p->dtype), sizes);
  try {
    p->lowered.output.realize(out);
  } catch (const Halide::RuntimeError& e) {  // with the assertions: an allocation that failed, ...
    user_error("the host reference of {}: {}", p->name, e.what());
  }
  HostTensor t{p->dtype, p->shape, {}};
  t.data.resize(out.size_in_bytes());
  std::memcpy(t.data.data(), out.data(), t.data.size());
  return t;
}

void release(void* pipeline) { delete static_cast<Pipeline*>(pipeline); }

// f(), any exception it raises turned into `failure` (host::Failure).
template <class F>
auto guarded(host::Failure& failure, F f) -> decltype(f()) {
  using Kind = host::Failure::Kind;
  try {
    return f();
  } catch (const UserError& e) {
    failure = {Kind::User, e.what()};
  } catch (const std::bad_alloc&) {
    failure = {Kind::OutOfMemory, {}};
  } catch (const std::exception& e) {
    failure = {Kind::Internal, e.what()};
  }
  return {};
}

void* guarded_compile(const Func& output, bool fast, bool small, host::Failure& failure) {
  return guarded(failure, [&] { return compile(output, fast, small); });
}

HostTensor guarded_run(void* pipeline, const std::map<std::string, const std::vector<uint8_t>*>& inputs,
                       host::Failure& failure) {
  return guarded(failure, [&] { return run(pipeline, inputs); });
}

}  // namespace

}  // namespace cubekit::dsl

extern "C" __attribute__((visibility("default"))) const cubekit::dsl::host::Backend* cubekit_halide_backend() {
  using namespace cubekit::dsl;
  static const host::Backend backend{host::kBackendAbi, CUBEKIT_BUILD_ID, guarded_compile, guarded_run, release};
  return &backend;
}
