// Vector-unit operators written with the DSL: elementwise (add, mul, relu, gelu, cast) and along
// the last dimension (softmax, layernorm, rmsnorm). Statistics are computed in f32 whatever the
// input type; results come back in the input type (cast: in `to`).
#pragma once

#include "dsl/func.h"

#include <optional>
#include <string>
#include <vector>

namespace cubekit::kernels {

struct VectorOptions {
  std::vector<int64_t> shape;   // any rank >= 1; the last dimension is the one reduced
  DType dtype = DType::f16;     // inputs and result (f16 or f32)
  DType to = DType::f32;        // cast: the result type
  double eps = 1e-5;            // layernorm, rmsnorm
  enum class Schedule { Default, Naive } schedule = Schedule::Default;  // naive: one core, no double buffering
  int64_t tile_rows = 0;        // overrides (0 / unset: the schedule's choice)
  std::optional<bool> double_buffer, use_cores;
};

struct VectorKernel {
  std::vector<dsl::Input> inputs;
  dsl::Func out;
};

// The operator names `vector_kernel` knows, for the command line.
const std::vector<std::string>& vector_kernel_names();
// Defines the operator and applies the schedule the options ask for; unknown names are a user error.
VectorKernel vector_kernel(const std::string& name, const VectorOptions& options);

}  // namespace cubekit::kernels
