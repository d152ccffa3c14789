// Vector-unit operators written with the DSL: elementwise (add, sub, mul, div, maximum, minimum,
// relu, gelu, exp, tanh, sigmoid, silu, cast), along the last dimension (softmax, layernorm,
// rmsnorm) and reductions of the last dimension (sum, max, min, mean: one value per row).
// Statistics are computed in f32 whatever the input type; results come back in the input type
// (cast: in `to`; binary kernels: the wider of the two). layernorm is (x - mean) / sqrt(var + eps)
// * gamma + beta, rmsnorm x / sqrt(mean(x^2) + eps) * gamma: gamma (and beta) are Inputs of the
// last dimension's extent, in VectorKernel::inputs after X.
#pragma once

#include "dsl/func.h"
#include "emulator/chip_config.h"
#include "tune/database.h"

#include <optional>
#include <string>
#include <vector>

namespace cubekit::kernels {

struct VectorOptions {
  std::vector<int64_t> shape;   // X's: any rank >= 1; the last dimension is the one reduced
  DType dtype = DType::f16;     // inputs and result (f16 or f32)
  DType to = DType::f32;        // cast: the result type
  double eps = 1e-5;            // layernorm, rmsnorm
  enum class Schedule { Default, Naive } schedule = Schedule::Default;  // naive: one core, no double buffering
  int64_t tile_rows = 0;        // overrides (0 / unset: the schedule's choice)
  std::optional<bool> double_buffer, use_cores;
  int copies = 0;               // of each tile buffer (multi_buffer(UB, n)); 0: 2 (1 when naive or double_buffer off)
  // Binary kernels (add, sub, mul, div, maximum, minimum). Y's shape, broadcast with X's as numpy
  // does (empty: X's); Y's type (unset: dtype; the result is the wider of the two). See
  // broadcast_view for which broadcasts the vector path reads directly.
  std::vector<int64_t> y_shape;
  std::optional<DType> y_dtype;
  // Binary kernels: the constant `scalar` in place of Y (or of X with scalar_first: `2 - x`).
  std::optional<double> scalar;
  bool scalar_first = false;
  // Use the tuning database's schedule for this problem when it has one and no override is set
  // (kernels/tuned.h); off: the default schedule's heuristics.
  bool use_tuned = true;
};

struct VectorKernel {
  std::vector<dsl::Input> inputs;
  dsl::Func out;
  std::optional<tune::Tuned> tuned;  // the tuned schedule the options took, if any (the overload with a chip)
};

// The operator names `vector_kernel` knows, for the command line.
const std::vector<std::string>& vector_kernel_names();
// The binary (broadcasting) ones and the reductions among them.
bool is_binary_kernel(const std::string& name);
bool is_reduction_kernel(const std::string& name);
// The kernels that work along rows (the last dimension): softmax, the norms and the reductions;
// they take tile_rows, the elementwise ones tiles of elements.
bool is_row_kernel(const std::string& name);
// Defines the operator and applies the schedule the options ask for; unknown names are a user error.
// Reductions give one value per row: shape[:-1] ([1] for a 1-D shape). A binary kernel whose
// operands have the result's shape keeps it; a broadcast one is computed over a 2-D view of the
// broadcast shape, [rows, cols] (see broadcast_view): reshape its result to broadcast_shape().
VectorKernel vector_kernel(const std::string& name, const VectorOptions& options);
// The same, taking the tuning database's schedule for the problem on `chip` when it has one.
VectorKernel vector_kernel(const std::string& name, const VectorOptions& options, const ChipConfig& chip);

// numpy's broadcast of two shapes; a user error (naming `what`) when they do not broadcast.
std::vector<int64_t> broadcast_shape(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                                     const std::string& what);

// How a binary kernel reads X and Y on the vector path, for a broadcast result of shape `out`:
// the result is viewed as [rows, cols] split after dimension `split`, and each operand is read as
// the full tile, one value per row (its dimensions from `split` on are 1: a numpy column, e.g.
// [R, 1] against [R, C]) or one value per column (its dimensions before `split` are 1: a numpy
// row, e.g. [C] or [1, C], and leading 1s). `ok` is false when no split reads both: neither
// operand has the result's shape (an outer product such as [R, 1] + [1, C]), or an operand
// broadcasts in the middle ([A, 1, C] against [A, B, C]); broadcast it to the result first.
struct BroadcastView {
  enum class Read : uint8_t { Full, Row, Col };
  bool ok = false;
  int64_t rows = 1, cols = 1;
  size_t split = 0;
  Read x = Read::Full, y = Read::Full;
};
BroadcastView broadcast_view(const std::vector<int64_t>& x, const std::vector<int64_t>& y);

}  // namespace cubekit::kernels
