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

enum class Pipe : uint8_t;  // isa.h

// The kinds of core a chip has: one coupled kind (cube and vector behind one scalar unit, the
// Ascend 910), or cube cores (AIC) and vector cores (AIV) that meet only in GM (910B, 950).
enum class CoreKind : uint8_t { Coupled, Aic, Aiv };
inline constexpr int kNumCoreKinds = 3;
std::string_view core_kind_name(CoreKind k);  // "coupled", "aic", "aiv"

// A data path of a core kind, src -> dst, and its rate in bytes per cycle per core. Paths from or
// to GM are the core's port to the shared L2 (reads: the rate of L2 hits; misses are further
// bounded by TimingConfig::gm_read_hbm_rate and hbm_rate). A path whose far end is a buffer the
// kind lacks reaches the buffer of the partner core in its group (950: AIC L0C -> AIV UB).
struct DataPathRate {
  Space src, dst;
  double rate = 0;
  bool operator==(const DataPathRate&) const = default;
};
std::string path_text(Space src, Space dst);  // "l1->l0a"

// One kind of core: its pipes, its buffers and its data paths. How many the chip has follows from
// the chip's groups (ChipConfig::count).
struct CoreConfig {
  CoreKind kind = CoreKind::Coupled;
  uint32_t pipes = 0;              // bit (1 << Pipe) for each pipe it has; S always
  int64_t size[kNumSpaces] = {};   // indexed by Space; 0: the kind has no such buffer (GM: 0)
  int64_t align[kNumSpaces] = {};  // required alignment of every address into the buffer
  std::vector<DataPathRate> paths;

  bool has_pipe(Pipe p) const { return pipes >> int(p) & 1; }
  bool has_buffer(Space s) const { return s == Space::GM || size[int(s)] > 0; }
  const DataPathRate* path(Space src, Space dst) const;  // nullptr when the kind lacks it
};

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
  // The rates of GM reads (L2 hits) and writes, and of the local paths, are per core kind
  // (CoreConfig::paths).
  double gm_read_hbm_rate = 0;  // the most one core can pull from HBM (misses)
  int64_t l2_bytes = 0;
  int l2_line_bytes = 0;
  double hbm_rate = 0;          // bytes per cycle for the whole chip, shared by all cores
  // Vector unit: cycles per repeat by op class, before UB bank conflicts.
  int vector_simple_cycles = 0, vector_reduce_cycles = 0, vector_complex_cycles = 0;
  int ub_bank_groups = 0;       // 32 B blocks of one repeat in the same group are read one per cycle
  int window_cycles = 0;        // cores synchronise their view of L2, HBM and GM every window

  // ---- Effects measured on hardware (issue 11; docs/chips.md says each one's provenance) ----
  // MTE transfer efficiency. Every GM transfer instruction keeps its MTE busy this many cycles
  // beyond moving its bytes (request setup, not overlapped with the next transfer), so a short
  // transfer moves fewer bytes per cycle than a long one.
  int gm_transfer_overhead_cycles = 0;
  // A GM burst (one contiguous run of a transfer) that starts at a multiple of gm_aligned_bytes
  // moves at the full rate; one that starts elsewhere at gm_misaligned_efficiency of it.
  int gm_aligned_bytes = 0;
  double gm_misaligned_efficiency = 0;
  // HBM: the share of hbm_rate a sustained stream reaches, and the cycles HBM idles when it turns
  // from reading to writing or back.
  double hbm_efficiency = 0;
  int hbm_turnaround_cycles = 0;
  // HBM row-buffer locality: lines a read misses in runs shorter than hbm_page_bytes (the rows of
  // a strided tile, each opening a DRAM page of its own) move at hbm_scattered_efficiency of the
  // sustained rate; longer runs (streams) at the sustained rate.
  int hbm_page_bytes = 0;
  double hbm_scattered_efficiency = 0;
  // Launch: cycles from the launch until the first core can start, and before each block on a core.
  // The launch starts its cores one after another, core_start_cycles apart (a mixed launch: group
  // by group, each group's cube core, then its vector cores), so a kernel on many cores pays a
  // header that grows with their number.
  int launch_cycles = 0;
  int block_dispatch_cycles = 0;
  int core_start_cycles = 0;
  // L2: what all cores together can read from it per cycle (hits and merged fills), and how many
  // pseudo-randomly chosen lines the replacement compares (it evicts the least recently used of
  // them: 1 is random replacement, a large number approaches LRU and its steep capacity cliff).
  double l2_rate = 0;
  int l2_replacement_candidates = 0;
  // The share of their peak (one fractal step, one repeat per class cycles) the cube and the
  // vector unit sustain over a long run of work.
  double cube_efficiency = 0;
  double vector_efficiency = 0;
  // Split chips: cycles from a set_cross firing to its increment reaching the receivers' counters
  // (cross_core.h). 0 on a coupled chip, which has no cross-core flags (nor the JSON field).
  int cross_core_latency = 0;
};

struct ChipConfig {
  std::string name;
  std::string description;
  // Core groups: the coupled cores, or the cube cores each with its vector cores. A block of a
  // mixed kernel runs on one group.
  int cores = 0;
  int vector_cores_per_cube = 0;  // split chips: AIVs per AIC (2 on the 910B and 950); 0 when coupled
  double clock_mhz = 0;
  std::vector<CoreConfig> kinds;  // {coupled}, or {aic, aiv}

  int event_ids = 0;              // event ids per (src pipe, dst pipe) pair
  int vector_repeat_bytes = 256;  // bytes one vector repeat reads per operand
  int block_bytes = 32;           // the vector unit's and MTE's addressing unit
  int max_repeat = 255;
  std::vector<CubeFractal> cube;  // the input dtypes mmad accepts
  TimingConfig timing;

  bool split() const { return kind(CoreKind::Aic) != nullptr; }
  // Cores of a kind: `cores` coupled cores or AICs, cores x vector_cores_per_cube AIVs (0 when absent).
  int count(CoreKind k) const;
  // The cores that run vector programs: the coupled cores, or the AIVs.
  int vector_cores() const { return split() ? count(CoreKind::Aiv) : cores; }
  const CoreConfig* kind(CoreKind k) const;  // nullptr when the chip has no such core
  CoreConfig* kind(CoreKind k);
  // The kind whose cores have buffer `s` (the first one; nullptr when none has it).
  const CoreConfig* kind_with(Space s) const;
  // A buffer's size and alignment on the kind that has it (0 when no kind has it; GM: 0 and 1):
  // what codegen plans against.
  int64_t buffer_size(Space s) const;
  int64_t alignment(Space s) const;
  // Sets a buffer's size or alignment on every kind that has it (for variants built in C++).
  void set_buffer_size(Space s, int64_t bytes);
  void set_alignment(Space s, int64_t bytes);
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
