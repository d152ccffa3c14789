// Matmul as a DSL Func, scheduled for the cube:
//   C(b, m, n) = sum_k cast(acc, A(b, m, k)) * cast(acc, B(b, k, n))      (b only when batched)
// A transposed is stored (b, k, m), B transposed (b, n, k). s8 needs B transposed (its fractals
// hold 32 consecutive k).
#pragma once

#include "dsl/func.h"
#include "emulator/chip_config.h"

#include <optional>
#include <string>

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
};

struct Matmul {
  dsl::Input a, b;
  dsl::Func c;
};

// Defines C and applies the schedule the options ask for.
Matmul matmul(const MatmulOptions& options, const ChipConfig& chip);

}  // namespace cubekit::kernels
