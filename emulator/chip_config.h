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

  int64_t buffer_size(Space s) const { return size[int(s)]; }
  int64_t alignment(Space s) const { return align[int(s)]; }
  const CubeFractal* fractal(DType input) const;
  int scalar_registers() const { return 32; }
};

// Presets by name; load_chip also accepts a path to a JSON file. Unknown names are a user error.
const std::vector<ChipConfig>& chip_presets();
ChipConfig load_chip(std::string_view name_or_path);

std::string chip_to_json(const ChipConfig& chip, int indent = 2);
ChipConfig chip_from_json(std::string_view json_text, std::string_view origin = "<json>");

}  // namespace cubekit
