// Any Func, run on the host CPU through Halide's JIT: the golden reference of every test and check,
// and the CPU baseline of bench/. Halide.h is included only by the host backend's sources
// (host*.cpp), behind this small interface.
//
// IEEE semantics throughout (Halide's strict_float: no fast-math, no fused multiply-adds), and
// numpy's where Halide's differ: max/min and maximum/minimum propagate NaN, and maximum/minimum
// of a row of -inf/+inf is -inf/+inf in every float type.
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

// How the reference is computed; both give the same bits.
enum class HostSchedule {
  // Parallel over the cores, vectorised, reductions in register tiles, contraction operands
  // converted once into copies laid out for the tiles: as fast as the emulation it checks.
  Fast,
  // Halide's plain loop nest (every Func at root, each result's reduction in its innermost loop):
  // the definition as written, what Fast is tested against.
  Plain,
  // Plain when the work is small, Fast otherwise: Fast's JIT compile takes about twice as long
  // (0.17 s against 0.37 s for a softmax), which is more than it saves below about 16 M operations.
  Auto,
};

// The operations a Func costs on the host, roughly: for it and every Func it calls, its elements
// times the extents of the RVars its own definition reduces over (what Auto decides by).
double host_work(const Func& output);

class HostPipeline {
 public:
  // Compiles `output` (and every Func it calls) once.
  explicit HostPipeline(const Func& output, HostSchedule schedule = HostSchedule::Auto);
  ~HostPipeline();
  HostPipeline(HostPipeline&&) noexcept;

  // Runs on the given inputs (by name, shapes as declared); returns the output.
  HostTensor run(const std::map<std::string, const std::vector<uint8_t>*>& inputs) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One-shot convenience: compile and run.
HostTensor run_on_host(const Func& output, const std::map<std::string, const std::vector<uint8_t>*>& inputs,
                       HostSchedule schedule = HostSchedule::Auto);

}  // namespace cubekit::dsl
