// Fractal layouts as functions from matrix coordinates to element offsets (CuTe-style: a layout
// is a function, and tests check every coordinate of it).
//
// A fractal layout tiles a matrix into fractals of fr x fc elements; `grid_col_major` orders the
// fractals down columns first (N) or along rows first (Z), `inner_col_major` orders the elements
// inside a fractal likewise. Ascend's names read outer-then-inner: NZ = N grid, z inside.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

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

// NC1HWC0: the feature-map layout of the cube's convolutions, what load3d reads from L1 (and CANN's
// TransData makes of NCHW). Channels are cut into C1 = ceil(C / C0) blocks of C0 (32 bytes: 16
// 16-bit or 32 8-bit values), innermost; then w, h, c1 and n outermost. Channels past C are zeros.
struct FeatureMap {
  int64_t n, c, h, w, c0;

  int64_t c1() const { return (c + c0 - 1) / c0; }
  int64_t size() const { return n * c1() * h * w * c0; }
  int64_t offset(int64_t in, int64_t ic, int64_t ih, int64_t iw) const {
    return (((in * c1() + ic / c0) * h + ih) * w + iw) * c0 + ic % c0;
  }
  // (n, c, h, w) of an element; c >= this->c in the padding channels.
  std::array<int64_t, 4> coord(int64_t offset) const {
    int64_t c0i = offset % c0, rest = offset / c0;
    int64_t iw = rest % w, ih = rest / w % h, c1i = rest / (w * h) % c1(), in = rest / (w * h * c1());
    return {in, c1i * c0 + c0i, ih, iw};
  }
};

// FRACTAL_Z: convolution weights (Cout, Cin, KH, KW) as the B operand of the implicit GEMM that
// load3d's img2col makes: K = (c1, kh, kw, c0) down, the order of load3d's columns, and Cout across,
// in L0B's fractals (l0b: k0 x 16, rows of k0 inside; CANN's shape (C1*KH*KW, N1, N0, C0)). Cout
// is padded to a multiple of 16 and Cin to one of C0, with zeros.
struct ConvWeights {
  int64_t k, c, kh, kw, c0;

  int64_t c1() const { return (c + c0 - 1) / c0; }
  int64_t gemm_k() const { return c1() * kh * kw * c0; }  // the GEMM's K
  Fractal fractals() const { return l0b(c1() * kh * kw, (k + 15) / 16, c0); }
  int64_t size() const { return fractals().size(); }
  int64_t offset(int64_t ik, int64_t ic, int64_t ih, int64_t iw) const {
    return fractals().offset(((ic / c0 * kh + ih) * kw + iw) * c0 + ic % c0, ik);
  }
};

// TransData on the host: NCHW (row-major, `bytes` per element) into NC1HWC0 and back, and
// (Cout, Cin, KH, KW) into FRACTAL_Z; padding is zero bytes.
// Visits a row-major 4-D array's elements in order, with the layout's offset of each.
template <class Offset>
void for_each_element(const std::array<int64_t, 4>& dims, Offset layout_offset, auto visit) {
  int64_t e = 0;
  for (int64_t a = 0; a < dims[0]; ++a)
    for (int64_t b = 0; b < dims[1]; ++b)
      for (int64_t c = 0; c < dims[2]; ++c)
        for (int64_t d = 0; d < dims[3]; ++d) visit(e++, layout_offset(a, b, c, d));
}

inline std::vector<uint8_t> nchw_to_nc1hwc0(const uint8_t* nchw, const FeatureMap& f, int bytes) {
  std::vector<uint8_t> out(size_t(f.size() * bytes), 0);
  for_each_element({f.n, f.c, f.h, f.w}, [&](auto... i) { return f.offset(i...); },
                   [&](int64_t e, int64_t o) { std::memcpy(&out[size_t(o * bytes)], nchw + e * bytes, size_t(bytes)); });
  return out;
}

inline std::vector<uint8_t> nc1hwc0_to_nchw(const uint8_t* nc1hwc0, const FeatureMap& f, int bytes) {
  std::vector<uint8_t> out(size_t(f.n * f.c * f.h * f.w * bytes));
  for_each_element({f.n, f.c, f.h, f.w}, [&](auto... i) { return f.offset(i...); },
                   [&](int64_t e, int64_t o) { std::memcpy(&out[size_t(e * bytes)], nc1hwc0 + o * bytes, size_t(bytes)); });
  return out;
}

inline std::vector<uint8_t> kchw_to_fractal_z(const uint8_t* kchw, const ConvWeights& wt, int bytes) {
  std::vector<uint8_t> out(size_t(wt.size() * bytes), 0);
  for_each_element({wt.k, wt.c, wt.kh, wt.kw}, [&](auto... i) { return wt.offset(i...); },
                   [&](int64_t e, int64_t o) { std::memcpy(&out[size_t(o * bytes)], kchw + e * bytes, size_t(bytes)); });
  return out;
}

inline std::vector<uint8_t> fractal_z_to_kchw(const uint8_t* fractal_z, const ConvWeights& wt, int bytes) {
  std::vector<uint8_t> out(size_t(wt.k * wt.c * wt.kh * wt.kw * bytes));
  for_each_element({wt.k, wt.c, wt.kh, wt.kw}, [&](auto... i) { return wt.offset(i...); },
                   [&](int64_t e, int64_t o) { std::memcpy(&out[size_t(e * bytes)], fractal_z + o * bytes, size_t(bytes)); });
  return out;
}

}  // namespace cubekit::layout
