// What the Halide host backend module (libcubekit_halide.so: host_halide.cpp, host_lowering.cpp,
// host_schedule.cpp, with Halide and LLVM behind them) gives the rest of cubekit. The module is
// loaded on the first use of the reference (host.cpp), so that a process that never computes one
// (a timing-only run, `cubekit run`, a `--no-check` kernel) does not pay Halide's start: loading
// libHalide and LLVM costs about 0.05 s and 57 MB before main().
#pragma once

#include "dsl/host.h"

namespace cubekit::dsl::host {

// Bumped whenever this struct or the types it passes change; the build id (a configure-time
// string of the tree that built both sides) must match as well.
inline constexpr int kBackendAbi = 2;

// What a call raised inside the module, carried back as a value: no exception crosses the
// boundary. The command line's executable has a C++ runtime of its own (static), which cannot
// unwind the module's frames: a reference that failed (Halide refusing a buffer) aborted it.
struct Failure {
  enum class Kind { None, User, Internal, OutOfMemory } kind = Kind::None;
  std::string message;
};

struct Backend {
  int abi;
  const char* build_id;
  // Compiles `output`: `fast` picks HostSchedule::Fast's schedule, `small` drops Halide's runtime
  // assertions (host.cpp decides both). Returns the pipeline, which `release` frees.
  // Each sets `failure` instead of throwing (and returns nothing useful then).
  void* (*compile)(const Func& output, bool fast, bool small, Failure& failure);
  HostTensor (*run)(void* pipeline, const std::map<std::string, const std::vector<uint8_t>*>& inputs, Failure& failure);
  void (*release)(void* pipeline);
};

}  // namespace cubekit::dsl::host

// The module's one exported symbol.
extern "C" const cubekit::dsl::host::Backend* cubekit_halide_backend();
