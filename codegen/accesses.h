// The memory an instruction of the IR touches, as the sync pass orders it: for each operand, the
// bytes relative to its Ref's address (from the ISA table's footprint, the one description the
// emulator's checker uses too).
#pragma once

#include "codegen/ir.h"
#include "emulator/chip_config.h"

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace cubekit::codegen {

// The bytes an access touches, relative to its Ref's address: sorted, disjoint [lo, hi) chunks
// (a strided footprint, e.g. a load2d that skips fractals, is not one range).
using Chunks = std::shared_ptr<const std::vector<std::pair<int64_t, int64_t>>>;

// Whether the chunks of `a` shifted by `shift` bytes meet those of `b`.
bool chunks_meet(const Chunks& a, int64_t shift, const Chunks& b);

// One memory access of an instruction.
struct Access {
  int ref;  // into the node's refs
  bool write;
  Chunks chunks;
};

// The accesses of an instruction node (after instruction selection).
std::vector<Access> accesses_of(const Kernel& k, const Node& n, const ChipConfig& chip);

}  // namespace cubekit::codegen
