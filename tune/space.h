// What the tuner searches: a problem (a kernel and its shape, types and options) and its schedule
// space (each parameter's candidate values), with the schedule's own validators as constraints.
//
//   matmul     tm, tn (the L0C tile), tk_l0, tk_l1 (k per L0 / L1 fill), l1_copies, group (m tiles
//              handed to the cores at a time), stagger
//   conv2d     rows (output rows per tile), tn (output channels per tile), channels (input
//              channels per L1 fill), l1_copies, images (stacked per tile: 1x1 convolutions)
//   attention  tile_q, tile_kv (flash() tiles)
//   vector     tile_rows (the row kernels; 0: as many as UB holds), copies (of each tile buffer)
//
// Every list holds the default schedule's own choice, so the default is a point of the space and
// the search starts from it. A point is valid when the kernel builds and its schedule plans
// (sched::plan_*: buffer capacities, alignment, event ids) without lowering: what fails there is
// pruned before any compile.
#pragma once

#include "dsl/func.h"
#include "emulator/chip_config.h"
#include "kernels/attention.h"
#include "kernels/conv.h"
#include "kernels/matmul.h"
#include "kernels/vector.h"
#include "tune/database.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cubekit::tune {

struct Problem {
  std::string kernel;  // matmul, conv2d, attention, or a vector kernel's name (add, softmax, ...)
  std::string label;   // for tables: a layer's name, or empty (the shape is shown)
  kernels::MatmulOptions matmul;
  kernels::Conv2dOptions conv;
  kernels::AttentionOptions attention;
  kernels::VectorOptions vector;

  std::string key() const;    // the database's problem key (kernels::problem_key)
  std::string shape() const;  // "1024x1024x1024 f16", "8x64x56x56 -> 64 3x3/1 +bn,relu", "[4096,1024] f16", ...
  // The Funcs to compile with these schedule parameters (empty: the default schedule), never
  // taking a tuned schedule. A user error when the kernel or its schedule rejects them.
  std::vector<dsl::Func> build(const Params& p, const ChipConfig& chip) const;
  // build, then the schedule's planner over the outputs: a user error when the point is invalid.
  void validate(const Params& p, const ChipConfig& chip) const;
  double flops() const;  // 0 for the vector kernels
};

// A user error unless `kernel` is one the tuner knows (matmul, conv2d, attention, a vector kernel).
void check_tunable(const std::string& kernel);

struct Param {
  std::string name;
  std::vector<int64_t> values;  // ascending
};

struct Space {
  std::vector<Param> params;
  std::vector<int> start;  // the default schedule's point (an index per parameter)
  uint64_t grid() const;   // the product of the list sizes
  Params at(const std::vector<int>& point) const;
  // The point as a number in [0, grid()) and back (mixed radix, the first parameter slowest).
  uint64_t ordinal(const std::vector<int>& point) const;
  std::vector<int> point(uint64_t ordinal) const;
};

// The space of the problem on the chip. A user error when the default schedule itself does not
// build (the problem is one the kernel rejects).
Space space_of(const Problem& problem, const ChipConfig& chip);

}  // namespace cubekit::tune
