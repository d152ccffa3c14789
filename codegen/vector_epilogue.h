// The fused epilogue of a matmul on a split chip's vector cores (AIV). The cube core's FixPipe
// writes each f32 tile to a slot of a GM workspace (two slots per group, so the cube computes the
// next tile while the vector cores finish this one); both AIVs of the group take half of its rows:
//
//   wait_cross MTE2, id=ready                         the AIC's fixpipe of this tile is in the slot
//   if subblock_idx == 0: rows [0, h) else [h, mt)    h = ceil(mt / 2)
//     scope [E_..]  E_.. <- the inputs' columns [n0, n0 + nt)
//       for each strip of `strip_rows` rows:          scope [OUT] { scope [ACC] { ACC <- W[slot, row..]
//                                                                                  OUT <- epilogue(ACC, E_..) }
//                                                                   C[m0 + row.., n0..] <- OUT
//                                                                   [a second output: subsample.h] }
//   set_cross MTE2, mode=2, id=free                   the slot may take another tile (once both AIVs set)
//
// The AIVs give the cube core `kSlots` credits at the start; the cube core waits for one before
// each fixpipe into the workspace and for all of them at its end.
//
// A convolution's slot holds the tile as 16-channel blocks of tm rows (NZ16), as its output
// (NC1HWC0) and residual are stored: a strip of rows is then one burst per block each way.
#pragma once

#include "codegen/ir.h"
#include "codegen/vector_ops.h"
#include "schedules/contraction.h"
#include "schedules/stages.h"

#include <map>
#include <memory>

namespace cubekit::codegen {

class VectorEpilogue {
 public:
  static constexpr int kSlots = 2;            // workspace slots per group
  static constexpr int kReady = 0, kFree = 1;  // cross-core flag ids

  // One output tile and its workspace slot (a byte offset into the workspace tensor).
  struct Tile {
    Affine m0, n0, bc;  // origin in C (elements) and C's batch offset
    int64_t mt = 0, nt = 0;
    Affine slot;
    Affine bg;  // a grouped conv: the group's first channel in the per-channel inputs
    int64_t images = 1;  // a conv's stacked images: mt / images rows each, one after the other
  };

  // `workspace` and `out` are tensor indices of the kernel; rows of a slot are `ws_pitch` f32
  // apart; `strip_rows` rows go through UB at a time. The UB buffers are the graph's stages on
  // the vector cores, each sized by its stage.
  // `sub`: the tensor of a conv's second output (ContractionPlan::subsampled), or -1.
  VectorEpilogue(Kernel& k, const sched::StageGraph& g, int workspace, int64_t ws_pitch, int out, int64_t strip_rows,
                 int sub = -1);

  // The AIV program's part for one tile (both AIVs run it; subblock_idx picks the rows).
  std::vector<Node> tile(const Tile& t);
  // Run once at the start of the AIV program, after every tile was built: the scratch and the
  // per-column inputs' padding zeroed (a padding element read by a vector instruction is defined).
  std::vector<Node> zeroed();

  // Columns of a workspace row the FixPipe writes for a tile nt wide: whole fractals, so that
  // the vector cores read rows without gaps.
  static int64_t padded(int64_t nt) { return (nt + 15) / 16 * 16; }

 private:
  std::vector<Node> rows(const Tile& t, int64_t row0, int64_t count);
  std::vector<Node> strip(const Tile& t, const Affine& row, int64_t r, const std::vector<int>& inputs);
  const std::vector<int>& input_buffers(int64_t nt);

  // The UB stage the cross-core edge fills (the accumulator's strips), the one computed from it
  // (the result's), and the one holding an input.
  int stage_of(const dsl::InputImpl* input) const;
  int buffer(const std::string& name, const sched::GraphStage& stage);

  Kernel& k_;
  const sched::StageGraph& g_;
  const sched::ContractionPlan& p_;
  int workspace_, out_tensor_;
  int64_t ws_pitch_, strip_rows_;
  int acc_ = -1, out_ = -1;
  int sub_tensor_ = -1, gather_ = -1;  // the second output and its UB gather
  std::map<int64_t, std::vector<int>> inputs_;  // per tile width: a buffer per epilogue input
  std::vector<int> tiles_;                      // a conv's full-tile inputs: a strip each
  std::unique_ptr<ScratchPool> pool_;
};

}  // namespace cubekit::codegen
