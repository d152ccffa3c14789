// The cube path for a 2-D convolution: recognising one written in the DSL and planning it as an
// implicit GEMM (M = OH*OW output positions per image, N = Cout, K = C1*KH*KW*C0), the feature
// map's img2col made in L0A by load3d from rows of it in L1, never as a matrix in GM.
//
//   O(n, k, y, x) = sum(cast(f32, P(n, r.x, y*sh + r.y*dh - ph, x*sw + r.z*dw - pw)) * cast(f32, W(k, r.x, r.y, r.z)))
//   P = BoundaryConditions::constant_exterior(I, 0)   (or I itself, when nothing reads past it)
//
// The loop nest a conv plan describes, per core (the contraction nest's, with other edges):
//   for tile in my share of (n, row tiles yo, channel tiles ko):    L0C: [rows * OW positions x tn channels]
//     for c1 chunk:                                                 L1: the input rows the tile reads, those channels
//       for k0 in the chunk's im2col columns (c1, kh, kw, c0):      L0A: load3d (set_fmatrix: the tile's padding)
//         mmad                                                      L0B: the weights' FRACTAL_Z fractals
//     L0C -> UB -> GM (NC1HWC0: the tile's rows of each 16-channel block, contiguous)
//
// The schedule: split(y, yo, yi, rows) sets the output rows per tile, split(k, ko, ki, tn) the
// output channels per tile, split(r.x, rxo, rxi, c) the input channels per L1 fill; cores(),
// double_buffer() and multi_buffer(L1, n) as for matmul. The L0 fill's depth is the deepest that
// fits L0A and L0B. The tensors are stored as the cube reads them (layouts in codegen/lower.h):
// I as NC1HWC0, W as FRACTAL_Z, O as NC1HWC0 with C0 = 16.
#pragma once

#include "schedules/contraction.h"

namespace cubekit::sched {

// Whether f has a convolution's form (a sum of products with a read at affine spatial indices);
// recognise_conv then says what is wrong, if anything.
bool is_conv(const dsl::Func& f);

// Recognises f as a convolution the chip's cube can do, or says why not (user error): the
// Contraction of its implicit GEMM with the geometry filled in.
Contraction recognise_conv(const dsl::Func& f, const ChipConfig& chip);

// Checks f's schedule for the conv path and sizes every buffer against the chip.
ContractionPlan plan_conv(const dsl::Func& f, const ChipConfig& chip);

// The L1 bytes of one copy of A's stage: `c1` channel blocks of the input rows `rows` output rows read
// (of each of g.images images).
int64_t conv_l1a_bytes(const ConvGeometry& g, int64_t rows, int64_t c1);
// Input rows an L1 fill holds for `rows` output rows (at most the map's height; one per output
// row where the kernel skips rows, ConvGeometry::skips_rows).
int64_t conv_input_rows(const ConvGeometry& g, int64_t rows);

}  // namespace cubekit::sched
