// The host reference's side in every process: what needs no Halide (the work estimate, the bounds
// proof), and the loading of the Halide backend module on first use (dsl/host_backend.h).
#include "dsl/host.h"

#include "emulator/plugin.h"

#include "dsl/bounds.h"
#include "dsl/host_backend.h"
#include "emulator/error.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <new>
#include <set>

namespace cubekit::dsl {

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

// The backend of `path`, or nullptr with `why` set.
const host::Backend* open_module(const std::string& path, std::string& why) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    why = dlerror();
    return nullptr;
  }
  auto entry = reinterpret_cast<const host::Backend* (*)()>(dlsym(handle, "cubekit_halide_backend"));
  const host::Backend* b = entry ? entry() : nullptr;
  if (!b) {
    why = fmt::format("{} has no cubekit_halide_backend()", path);
    return nullptr;
  }
  if (b->abi != host::kBackendAbi || std::string_view(b->build_id) != CUBEKIT_BUILD_ID) {
    why = fmt::format("{} was built by another cubekit build (abi {}, build {}; this one: abi {}, build {})", path,
                      b->abi, b->build_id, host::kBackendAbi, CUBEKIT_BUILD_ID);
    return nullptr;  // left loaded: its code may be mapped, but nothing of it is used
  }
  return b;
}

const host::Backend* load_backend() {
  CUBEKIT_ASSERT(can_load_modules(), "this executable is linked statically and cannot load the Halide host reference: "
                 "the command should have gone on in its dynamically linked twin (tools/twin.h)");
  if (const char* forced = std::getenv("CUBEKIT_HALIDE_MODULE")) {
    std::string why;
    if (const host::Backend* b = open_module(forced, why)) return b;
    user_error("the Halide host reference could not be loaded from CUBEKIT_HALIDE_MODULE={}: {}; point it at the "
               "{} of this cubekit build, or unset it",
               forced, why, CUBEKIT_HALIDE_MODULE_NAME);
  }
  std::string tried;
  if (const host::Backend* b = first_module(module_candidates(CUBEKIT_HALIDE_MODULE_NAME, reinterpret_cast<const void*>(&load_backend),
                                                              CUBEKIT_HALIDE_MODULE_INSTALLED, CUBEKIT_HALIDE_MODULE_BUILT),
                                            open_module, tried))
    return b;
  user_error("the Halide host reference ({}) was not found beside this program, in the install prefix or in the "
             "build tree{}: build it (cmake --build build) or install it with the libraries (cmake --install build), "
             "or set CUBEKIT_HALIDE_MODULE to its path",
             CUBEKIT_HALIDE_MODULE_NAME, tried);
}

const host::Backend& backend() {
  static const host::Backend* b = load_backend();  // a failed load throws, and the next use tries again
  return *b;
}

}  // namespace

double host_work(const Func& output) {
  std::set<const FuncImpl*> seen;
  double total = 0;
  add_work(output.impl, seen, total);
  return total;
}

namespace {

// What the module raised (host::Failure), raised here, on this side of the boundary.
void rethrow(const host::Failure& failure) {
  switch (failure.kind) {
    case host::Failure::Kind::None: return;
    case host::Failure::Kind::User: throw UserError(failure.message);
    case host::Failure::Kind::OutOfMemory: throw std::bad_alloc();
    case host::Failure::Kind::Internal: throw InternalError(failure.message);
  }
}

}  // namespace

struct HostPipeline::Impl {
  void* pipeline = nullptr;
  ~Impl() {
    if (pipeline) backend().release(pipeline);
  }
};

HostPipeline::HostPipeline(const Func& output, HostSchedule schedule) : impl_(std::make_unique<Impl>()) {
  check_reads_in_bounds(output);
  // 16 M operations: the plain loop nest does them in well under the 0.2 s the fast schedule's longer
  // compile costs (measured on a softmax and a matmul, tests/dsl/host_fast_test.cpp keeps both equal).
  constexpr double kFastFrom = 1 << 24;
  const bool small = host_work(output) <= kFastFrom;
  const bool fast = schedule == HostSchedule::Fast || (schedule == HostSchedule::Auto && !small);
  host::Failure failure;
  impl_->pipeline = backend().compile(output, fast, small, failure);
  rethrow(failure);
}

HostPipeline::~HostPipeline() = default;
HostPipeline::HostPipeline(HostPipeline&&) noexcept = default;

HostTensor HostPipeline::run(const std::map<std::string, const std::vector<uint8_t>*>& inputs) const {
  for (const auto& [name, bytes] : inputs)  // the plugin dereferences them
    if (!bytes) user_error("the host reference's input {} is a null pointer; give the address of its bytes", name);
  host::Failure failure;
  HostTensor t = backend().run(impl_->pipeline, inputs, failure);
  rethrow(failure);
  return t;
}

HostTensor run_on_host(const Func& output, const std::map<std::string, const std::vector<uint8_t>*>& inputs,
                       HostSchedule schedule) {
  return HostPipeline(output, schedule).run(inputs);
}

}  // namespace cubekit::dsl
