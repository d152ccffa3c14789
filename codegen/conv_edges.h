// The conv path's edges into the cube (schedules/conv.h), for the contraction nest:
//
//   A: GM (NC1HWC0) --copy_gm_l1: the tile's input rows of the chunk's channel blocks--> L1
//      L1 --set_fmatrix (the tile's padding) + load3d (img2col of the tile's positions)--> L0A
//   B: GM (FRACTAL_Z) --copy_gm_l1: the chunk's k fractals of the tile's channels--> L1 --load2d--> L0B
//
// A row tile's input rows and padding differ at the map's top and bottom edges: the nest
// specialises each of its row classes (row_classes.h).
#pragma once

#include "codegen/ir.h"
#include "codegen/row_classes.h"
#include "schedules/contraction.h"

#include <vector>

namespace cubekit::codegen {

struct ConvEdges {
  const sched::ContractionPlan& p;
  int a_tensor, b_tensor, l1a, l1b, l0a, l0b;
  int64_t tk_l0;  // the L0 steps of an L1 chunk

  // GM -> L1 for the k chunk [k1, k1 + kt1) of the tile at (batch offset `ba` elements of A, first
  // input row `in_row0`, channels from n0).
  std::vector<Node> fill_a(const RowClass& r, const Affine& ba, const Affine& in_row0, const Affine& k1, int64_t kt1) const;
  std::vector<Node> fill_skipping_rows(const RowClass& r, const Affine& src, int64_t c1n) const;
  Node fill_b(const Affine& bb, const Affine& n0, int64_t nt, const Affine& k1, int64_t kt1) const;
  // The L0 fills and mmads of one L1 chunk of kt1 columns (its first mmad starting the sum when
  // `first`), into L0C buffer `l0c`.
  std::vector<Node> use(const RowClass& r, int64_t mt, int64_t nt, int64_t kt1, bool first, int l0c) const;
};

// The shapes a conv's program stores its tensors in (A: NC1HWC0, B: FRACTAL_Z, the output:
// NC1HWC0 with C0 = 16, each group's channels padded on their own), and the host conversions
// from the Func's shapes they need (layouts.h).
void conv_tensors(const sched::ContractionPlan& p, std::vector<int64_t>& a, std::vector<int64_t>& b,
                  std::vector<int64_t>& out, std::vector<TensorLayout>& layouts);
// A conv epilogue's input as the program stores it: per channel, padded to whole 16-channel
// blocks; a full-tile one as the output.
std::vector<int64_t> conv_input_tensor(const sched::ContractionPlan& p, const sched::ContractionPlan::EpilogueInput& e,
                                       std::vector<TensorLayout>& layouts);

// a / den * num for an Affine whose every part is a multiple of den.
Affine rescale(const Affine& a, int64_t den, int64_t num);

}  // namespace cubekit::codegen
