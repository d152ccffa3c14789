// ChipConfig: everything the emulator knows about a chip, as data. Presets are compiled in; any
// config can be saved to and loaded from JSON, so a user can model a variant without rebuilding.
#pragma once

#include "emulator/dtype.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cubekit {

enum class Space : uint8_t { GM, L1, L0A, L0B, L0C, UB };
inline constexpr int kNumSpaces = 6;
std::string_view space_name(Space s);  // "gm", "l1", ...

// The cube's fractal for one input dtype: one mmad step multiplies an m0 x k0 by a k0 x n0 tile.
struct CubeFractal {
  DType input;
  DType accumulator;
  int m0, k0, n0;
};

// Everything the timing model needs. Rates are bytes per cycle per core unless named otherwise.
struct TimingConfig {
  int queue_depth = 0;          // entries in each pipe's instruction queue; S stalls when one is full
  int scalar_cycles = 0;        // per scalar instruction, and per dispatch of a pipe instruction
  // Startup latency of an instruction on each pipe (cycles before its data starts to flow).
  int mte1_latency = 0, cube_latency = 0, vector_latency = 0;
  // GM: reads hit or miss the shared L2; writes go to L2 and are written back to HBM.
  int l2_hit_latency = 0, l2_miss_latency = 0, gm_write_latency = 0;
  double gm_read_l2_rate = 0;   // L2 -> core (hits)
  double gm_read_hbm_rate = 0;  // the most one core can pull from HBM (misses)
  double gm_write_rate = 0;     // core -> L2
  double l1_to_l0a_rate = 0, l1_to_l0b_rate = 0, l1_to_ub_rate = 0, l0c_to_ub_rate = 0;
  int64_t l2_bytes = 0;
  int l2_line_bytes = 0;
  double hbm_rate = 0;          // bytes per cycle for the whole chip, shared by all cores
  // Vector unit: cycles per repeat by op class, before UB bank conflicts.
  int vector_simple_cycles = 0, vector_reduce_cycles = 0, vector_complex_cycles = 0;
  int ub_bank_groups = 0;       // 32 B blocks of one repeat in the same group are read one per cycle
  int window_cycles = 0;        // cores synchronise their view of L2, HBM and GM every window
  // The FixPipe (split cube cores): accumulators L0C -> GM and L0C -> L1, bytes leaving L0C per
  // cycle. 0 = the chip has no such path (the coupled ascend910 moves L0C out through UB). Its GM
  // writes also pay the L2 write path; its startup latency is mte1_latency.
  double l0c_to_gm_rate = 0, l0c_to_l1_rate = 0;
};

struct ChipConfig {
  std::string name;
  std::string description;
  std::string core_kind;  // "coupled": cube and vector share one scalar unit (the only kind modelled)
  int cores = 0;
  double clock_mhz = 0;

  // Per-core buffer sizes and the alignment every address into them must have, in bytes.
  int64_t size[kNumSpaces] = {};   // indexed by Space; GM is unbounded (0)
  int64_t align[kNumSpaces] = {};  // GM: 1 (tensor element alignment is checked per operand)

  int event_ids = 0;              // event ids per (src pipe, dst pipe) pair
  int vector_repeat_bytes = 256;  // bytes one vector repeat reads per operand
  int block_bytes = 32;           // the vector unit's and MTE's addressing unit
  int max_repeat = 255;
  std::vector<CubeFractal> cube;  // the input dtypes mmad accepts
  TimingConfig timing;

  int64_t buffer_size(Space s) const { return size[int(s)]; }
  int64_t alignment(Space s) const { return align[int(s)]; }
  const CubeFractal* fractal(DType input) const;
  int scalar_registers() const { return 32; }
};

// Presets by name; load_chip also accepts a path to a JSON file. Unknown names are a user error.
const std::vector<ChipConfig>& chip_presets();
ChipConfig load_chip(std::string_view name_or_path);

std::string chip_to_json(const ChipConfig& chip, int indent = 2);
// The checks chip_from_json makes, for a config built or changed in C++ (the runs call it): a user
// error naming the field when the chip is not one the emulator can model.
void check_chip(const ChipConfig& chip);
ChipConfig chip_from_json(std::string_view json_text, std::string_view origin = "<json>");

}  // namespace cubekit
