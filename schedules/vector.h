// The vector path: a Func, and the Funcs it calls, computed on the Vector unit tile by tile in UB.
//
// The output's leading dimensions are flattened into rows and its last dimension is the columns.
// Per core (tiles spread over the cores with cores(), fills ahead with double_buffer() or
// multi_buffer(UB, n)):
//
//   for tile in my share of ceil(rows / tile_rows):
//     MTE2: the tile's rows of every full input, its element of every per-row input
//     V:    every called Func (per-row reductions, full intermediates), then the output
//     MTE3: the tile's rows of the output
//
// A value of a tile is Full (rows x columns), Row (one per row: reductions along the last
// dimension, inputs indexed by the leading variables only) or Col (one per column: inputs indexed
// by the last variable only, loaded once per core). An elementwise pipeline over same-shaped inputs
// is flat: the tensors are one array, cut into tiles of elements. An output that is itself a
// reduction along the last dimension (`out(r..) = sum(X(r.., k))`, and arithmetic on such values)
// is per-row: one value per row of the reduced rows, stored contiguously.
#pragma once

#include "dsl/func.h"
#include "emulator/chip_config.h"

#include <memory>
#include <string>
#include <vector>

namespace cubekit::sched {

enum class VecShape : uint8_t { Full, Row, Col };

struct VectorPlan {
  struct Stage {
    std::shared_ptr<dsl::FuncImpl> func;
    VecShape shape;
  };
  struct Operand {
    std::shared_ptr<dsl::InputImpl> input;
    VecShape shape;
  };
  std::string name;
  std::shared_ptr<dsl::FuncImpl> output;
  std::vector<Stage> stages;      // the called Funcs, producers first (the output is not one)
  std::vector<Operand> inputs;    // each input once
  std::vector<int64_t> shape;     // the output's
  int64_t rows = 1, cols = 1;     // leading dimensions flattened; the last one
  bool flat = false;              // no per-row or per-column values: tiles of elements
  bool row_output = false;        // the output is per-row (shape: the rows'; cols: the reduced extent)
  int64_t tile_rows = 0;          // tile_rows(n); 0: as many as UB holds
  bool cores = false;
  int core_limit = 0;             // with cores: spread over at most this many (0: all the chip's vector cores)
  int copies = 1;                 // of each tile buffer: tile w + copies - 1 is filled while w is used
  std::string fewer_copies;       // for messages (fewer_copies())
  std::string str() const;
};

// True when the Func is a contraction for the cube path (it is then no vector Func).
bool is_contraction(const dsl::Func& f);

// The copies of a vector-unit kernel's tile buffers (the vector path's, a pooling's) that its
// schedule asks for: double_buffer() is 2, multi_buffer(UB, n) is n, 1 .. the chip's event ids
// (one per copy); a user error for anything else.
int vector_copies(const dsl::Schedule& schedule, const std::string& name, const ChipConfig& chip);
// How a message says to use fewer of those copies: "drop double_buffer()", "use
// multi_buffer(UB, 2) or fewer"; empty when the schedule asks for one copy.
std::string fewer_copies(const dsl::Schedule& schedule);

// Checks the Func graph for the vector path and reads its schedule, or says why not (user error).
VectorPlan plan_vector(const dsl::Func& f, const ChipConfig& chip);

}  // namespace cubekit::sched
