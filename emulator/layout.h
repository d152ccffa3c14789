// Fractal layouts as functions from matrix coordinates to element offsets (CuTe-style: a layout
// is a function, and tests check every coordinate of it).
//
// A fractal layout tiles a matrix into fractals of fr x fc elements; `grid_col_major` orders the
// fractals down columns first (N) or along rows first (Z), `inner_col_major` orders the elements
// inside a fractal likewise. Ascend's names read outer-then-inner: NZ = N grid, z inside.
#pragma once

#include <cstdint>
#include <utility>

namespace cubekit::layout {

struct Fractal {
  int64_t grid_rows, grid_cols;  // fractals down and across
  int64_t fr, fc;                // elements per fractal, down and across
  bool grid_col_major;
  bool inner_col_major;

  int64_t rows() const { return grid_rows * fr; }
  int64_t cols() const { return grid_cols * fc; }
  int64_t size() const { return rows() * cols(); }

  int64_t offset(int64_t r, int64_t c) const {
    int64_t gr = r / fr, gc = c / fc, ir = r % fr, ic = c % fc;
    int64_t fractal = grid_col_major ? gc * grid_rows + gr : gr * grid_cols + gc;
    int64_t inner = inner_col_major ? ic * fr + ir : ir * fc + ic;
    return fractal * fr * fc + inner;
  }

  std::pair<int64_t, int64_t> coord(int64_t offset) const {
    int64_t fractal = offset / (fr * fc), inner = offset % (fr * fc);
    int64_t gr = grid_col_major ? fractal % grid_rows : fractal / grid_cols;
    int64_t gc = grid_col_major ? fractal / grid_rows : fractal % grid_cols;
    int64_t ir = inner_col_major ? inner % fr : inner / fc;
    int64_t ic = inner_col_major ? inner / fr : inner % fc;
    return {gr * fr + ir, gc * fc + ic};
  }
};

// L1 after copy_gm_l1_nd2nz: column blocks of c0 elements, each `rows` (a multiple of 16) high.
inline Fractal l1_nz(int64_t rows, int64_t col_blocks, int64_t c0) { return {rows / 16, col_blocks, 16, c0, true, false}; }
// L0A (zZ): A is mf x kf fractals of 16 x k0.
inline Fractal l0a(int64_t mf, int64_t kf, int64_t k0) { return {mf, kf, 16, k0, false, false}; }
// L0B (zN): B is kf x nf fractals of k0 x 16, each column-major.
inline Fractal l0b(int64_t kf, int64_t nf, int64_t k0) { return {kf, nf, k0, 16, false, true}; }
// L0C (NZ): C is mf x nf fractals of 16 x 16 in column-major order.
inline Fractal l0c(int64_t mf, int64_t nf) { return {mf, nf, 16, 16, true, false}; }

}  // namespace cubekit::layout
