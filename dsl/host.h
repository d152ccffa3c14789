// Any Func, run on the host CPU through Halide's JIT: the golden reference of every test and the
// CPU baseline of bench/. Halide.h is included only by host.cpp, behind this small interface.
#pragma once

#include "dsl/func.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace cubekit::dsl {

struct HostTensor {
  DType dtype;
  std::vector<int64_t> shape;  // row-major, the last dimension contiguous
  std::vector<uint8_t> data;
};

class HostPipeline {
 public:
  // Compiles `output` (and every Func it calls) once. `parallel` gives it a CPU schedule
  // (parallel outer loop, vectorised inner loop) for baselines; the default is Halide's plain
  // loop nest, which sums reductions in order.
  explicit HostPipeline(const Func& output, bool parallel = false);
  ~HostPipeline();
  HostPipeline(HostPipeline&&) noexcept;

  // Runs on the given inputs (by name, shapes as declared); returns the output.
  HostTensor run(const std::map<std::string, const std::vector<uint8_t>*>& inputs) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One-shot convenience: compile and run.
HostTensor run_on_host(const Func& output, const std::map<std::string, const std::vector<uint8_t>*>& inputs);

}  // namespace cubekit::dsl
