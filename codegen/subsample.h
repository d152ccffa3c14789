// A convolution's second output at every s-th row and column (ContractionPlan::Subsampled,
// Func::store_with), made from a UB strip of the result on its way out:
//
//   for each image of the strip, each of its kept rows (rows y % s == 0, their positions in the
//   strip), each 8 kept columns:
//     vor.u16 G <- the kept positions (block stride s; one repeat per 16-channel block, or where
//                  the blocks lie too far apart, one per kept row of each block)               (V)
//   for each image:  copy_ub_gm  Ys <- G: the strip's kept positions of every block            (MTE3)
//
// The kept positions of a strip are contiguous in the second output (NC1HWC0), so each image's
// go out in one copy; G holds them block after block, each image's after the previous one's.
// A strip may start and end inside a row: where it does is a constant of the program.
// Not for use outside codegen.
#pragma once

#include "codegen/ir.h"
#include "schedules/contraction.h"

#include <vector>

namespace cubekit::codegen {

struct SubsampledStrip {
  int src = -1;         // UB buffer of the result strip: `blocks` blocks, `ld` positions apart (NZ16)
  int64_t ld = 0, blocks = 0;
  int64_t images = 1;   // images in the strip, `per` positions apart in src
  int64_t per = 0;
  int64_t first = 0;    // the strip's first position in its image, past `gm`'s
  int64_t count = 0;    // and its positions of each image
  Affine gm;            // elements: the second output's first block at the image's kept row 0 + the
                        // loop part of the strip's position (whole multiples of s rows)
};

// The gathers and copies of one strip into buffer `gather` and tensor `out`.
std::vector<Node> subsample_strip(const sched::ContractionPlan& p, int gather, int out, const SubsampledStrip& s);
// SubsampledStrip::gm for a strip at `at` positions into an image (its constant part is `first`)
// of `channels` into the output's channels, beside the result's batch offset `bc`.
Affine subsampled_base(const sched::ContractionPlan& p, const Affine& bc, const Affine& channels, const Affine& at);
// The second output's shape as the program stores it (NC1HWC0) and its host layout.
std::vector<int64_t> subsampled_tensor(const sched::ContractionPlan& p, std::vector<TensorLayout>& layouts);

}  // namespace cubekit::codegen
