// Matmul as a DSL Func, scheduled for the cube:
//   C(b, m, n) = sum_k cast(acc, A(b, m, k)) * cast(acc, B(b, k, n))      (b only when batched)
// A transposed is stored (b, k, m), B transposed (b, n, k). s8 needs B transposed (its fractals
// hold 32 consecutive k).
#pragma once

#include "dsl/func.h"
#include "emulator/chip_config.h"
#include "tune/database.h"

#include <optional>
#include <string>
#include <vector>

namespace cubekit::kernels {

struct MatmulOptions {
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 0;  // 0: no batch dimension
  DType in = DType::f16;
  DType out = DType::f32;
  bool transpose_a = false, transpose_b = false;
  enum class Schedule { Default, Naive } schedule = Schedule::Default;
  // Overrides of the default schedule (0: choose), for exploring schedules.
  int64_t tm = 0, tn = 0, tk_l0 = 0, tk_l1 = 0;
  int64_t core_group = 0;  // Func::cores group
  int l1_copies = 0;       // Func::multi_buffer(L1, n)
  std::optional<bool> double_buffer;
  std::optional<bool> use_cores;
  std::optional<bool> stagger;  // rotate each tile's k chunks (Func::stagger); default: with cores
  // A fused epilogue: its steps applied to A x B in the order listed, then cast to `out`. Steps:
  // "bias" (+ an f32 input per column), "scale" (* scale), "relu", "gelu" (tanh approximation);
  // {"scale", "bias", "relu"} is relu(scale * (A x B) + bias), {"relu", "bias"} is relu(A x B) +
  // bias, a step listed twice is applied twice (one bias input, added each time).
  std::vector<std::string> epilogue;
  double scale = 1.0;
  // Use the tuning database's schedule for this problem when it has one and no override is set
  // (kernels/tuned.h); off: the default schedule's heuristics.
  bool use_tuned = true;
};

struct Matmul {
  dsl::Input a, b;
  dsl::Func c;                      // A x B (f32 when there is an epilogue)
  std::optional<dsl::Input> bias;
  dsl::Func out;                    // what to compile: c, or the epilogue computed on c's way out
  std::optional<tune::Tuned> tuned; // the tuned schedule the options took, if any
};

// The epilogue alone, as a vector kernel over a GM tensor C (f32, [batch..] m x n): what runs
// after the matmul when it is not fused.
struct Epilogue {
  std::vector<dsl::Input> inputs;   // C, then the bias if any
  dsl::Func out;
};
Epilogue unfused_epilogue(const MatmulOptions& options, const ChipConfig& chip);

// Defines C and applies the schedule the options ask for.
Matmul matmul(const MatmulOptions& options, const ChipConfig& chip);

// The schedule the ready kernels use, for a Func the user defined, so that it compiles without
// writing one (`C.schedule() = default_schedule(C, chip)`, or codegen::compile(C, schedule, chip)):
// a contraction the cube can do (at most one batch dimension) gets matmul's default schedule
// (options.schedule = Naive: the naive one; tm, tn, tk_l0, tk_l1, core_group, l1_copies,
// double_buffer, use_cores and stagger override it as for matmul; shapes and types come from the
// Func); a convolution conv2d's, its tiles starting at the rows a second output stored with it keeps
// (Func::store_with on it or its epilogue, called before); any other Func the vector kernels'
// schedule (its outermost variable over the cores, double buffering). The Func itself is left as it is.
// A contraction takes the tuning database's schedule for matmul's problem of its shape and types
// when there is one and the options set no override (kernels/tuned.h); `tuned` (when given) says
// which.
[[nodiscard]] dsl::Schedule default_schedule(const dsl::Func& f, const ChipConfig& chip, const MatmulOptions& options = {});
[[nodiscard]] dsl::Schedule default_schedule(const dsl::Func& f, const ChipConfig& chip, const MatmulOptions& options,
                                             std::optional<tune::Tuned>* tuned);

}  // namespace cubekit::kernels
