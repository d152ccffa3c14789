// layout.h's fractal layouts: each is a bijection of its coordinates onto [0, size), coord() inverts
// offset(), and each matches its written definition (emulator/README.md, docs/isa.md).
#include "emulator/layout.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace cubekit {
namespace {

enum class Kind { l1_nz, l0a, l0b, l0c };

struct Case {
  Kind kind;
  int64_t c0;      // elements per 32 B row: 16 (f16) or 32 (s8); L0C is always 16 x 16
  int64_t g1, g2;  // grid: l1_nz (rows/16, column blocks), l0a (mf, kf), l0b (kf, nf), l0c (mf, nf)
};

std::string name_of(const testing::TestParamInfo<Case>& info) {
  static const char* kNames[] = {"l1_nz", "l0a", "l0b", "l0c"};
  const Case& c = info.param;
  return std::string(kNames[int(c.kind)]) + "_c" + std::to_string(c.c0) + "_" + std::to_string(c.g1) + "x" +
         std::to_string(c.g2);
}

layout::Fractal make(const Case& c) {
  switch (c.kind) {
    case Kind::l1_nz: return layout::l1_nz(c.g1 * 16, c.g2, c.c0);
    case Kind::l0a: return layout::l0a(c.g1, c.g2, c.c0);
    case Kind::l0b: return layout::l0b(c.g1, c.g2, c.c0);
    case Kind::l0c: return layout::l0c(c.g1, c.g2);
  }
  return {};
}

// The matrix each layout stores, and where its written definition puts element (r, c).
struct Definition {
  int64_t rows, cols;
  std::function<int64_t(int64_t, int64_t)> offset;
};

Definition definition(const Case& c) {
  int64_t c0 = c.c0;
  switch (c.kind) {
    case Kind::l1_nz: {
      // nd2nz: element (r, c) at byte ((c/C0)*dst_rows + r)*32 + (c%C0)*size, i.e. element
      // ((c/C0)*dst_rows + r)*C0 + c%C0; the matrix is dst_rows x (blocks*C0).
      int64_t dst_rows = c.g1 * 16;
      return {dst_rows, c.g2 * c0, [=](int64_t r, int64_t col) { return ((col / c0) * dst_rows + r) * c0 + col % c0; }};
    }
    case Kind::l0a: {
      // zZ: A (m x k) as fractals of 16 x k0 in row-major order, row-major inside.
      int64_t kf = c.g2;
      return {c.g1 * 16, kf * c0, [=](int64_t i, int64_t k) {
                return ((i / 16) * kf + k / c0) * 16 * c0 + (i % 16) * c0 + k % c0;
              }};
    }
    case Kind::l0b: {
      // zN: B (k x n) as fractals of k0 x 16 in row-major order, element (k, n) of a fractal at n*k0 + k.
      int64_t nf = c.g2;
      return {c.g1 * c0, nf * 16, [=](int64_t k, int64_t n) {
                return ((k / c0) * nf + n / 16) * c0 * 16 + (n % 16) * c0 + k % c0;
              }};
    }
    case Kind::l0c: {
      // NZ: C (m x n) as 16 x 16 fractals in column-major order, row-major inside.
      int64_t mf = c.g1;
      return {mf * 16, c.g2 * 16, [=](int64_t i, int64_t j) {
                return ((j / 16) * mf + i / 16) * 256 + (i % 16) * 16 + j % 16;
              }};
    }
  }
  return {};
}

class LayoutFractal : public testing::TestWithParam<Case> {};

TEST_P(LayoutFractal, ShapeMatchesDefinition) {
  layout::Fractal f = make(GetParam());
  Definition d = definition(GetParam());
  EXPECT_EQ(f.rows(), d.rows);
  EXPECT_EQ(f.cols(), d.cols);
  EXPECT_EQ(f.size(), d.rows * d.cols);
}

TEST_P(LayoutFractal, OffsetIsABijectionOntoItsSize) {
  layout::Fractal f = make(GetParam());
  Definition d = definition(GetParam());
  std::vector<int> hits(size_t(d.rows * d.cols), 0);
  int64_t bad = 0;
  for (int64_t r = 0; r < d.rows; ++r)
    for (int64_t c = 0; c < d.cols; ++c) {
      int64_t o = f.offset(r, c);
      if (o < 0 || o >= d.rows * d.cols) {
        if (++bad <= 5) ADD_FAILURE() << "offset(" << r << ", " << c << ") = " << o << " outside [0, " << d.rows * d.cols << ")";
        continue;
      }
      ++hits[size_t(o)];
    }
  EXPECT_EQ(bad, 0);
  for (size_t o = 0; o < hits.size(); ++o)
    if (hits[o] != 1) {
      ADD_FAILURE() << "offset " << o << " is hit " << hits[o] << " times";
      break;
    }
}

TEST_P(LayoutFractal, CoordInvertsOffset) {
  layout::Fractal f = make(GetParam());
  Definition d = definition(GetParam());
  int64_t bad = 0;
  for (int64_t r = 0; r < d.rows; ++r)
    for (int64_t c = 0; c < d.cols; ++c) {
      auto [rr, cc] = f.coord(f.offset(r, c));
      if ((rr != r || cc != c) && ++bad <= 5)
        ADD_FAILURE() << "coord(offset(" << r << ", " << c << ")) = (" << rr << ", " << cc << ")";
    }
  for (int64_t o = 0; o < d.rows * d.cols; ++o) {
    auto [r, c] = f.coord(o);
    if (f.offset(r, c) != o && ++bad <= 5) ADD_FAILURE() << "offset(coord(" << o << ")) = " << f.offset(r, c);
  }
  EXPECT_EQ(bad, 0);
}

TEST_P(LayoutFractal, OffsetMatchesWrittenDefinition) {
  layout::Fractal f = make(GetParam());
  Definition d = definition(GetParam());
  int64_t bad = 0;
  for (int64_t r = 0; r < d.rows; ++r)
    for (int64_t c = 0; c < d.cols; ++c)
      if (f.offset(r, c) != d.offset(r, c) && ++bad <= 5)
        ADD_FAILURE() << "offset(" << r << ", " << c << ") = " << f.offset(r, c) << ", definition " << d.offset(r, c);
  EXPECT_EQ(bad, 0);
}

std::vector<Case> cases() {
  std::vector<Case> out;
  const std::pair<int64_t, int64_t> grids[] = {{1, 1}, {1, 3}, {3, 1}, {2, 5}, {4, 4}, {7, 3}};
  for (Kind k : {Kind::l1_nz, Kind::l0a, Kind::l0b})
    for (int64_t c0 : {16, 32})
      for (auto [g1, g2] : grids) out.push_back({k, c0, g1, g2});
  for (auto [g1, g2] : grids) out.push_back({Kind::l0c, 16, g1, g2});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Layout, LayoutFractal, testing::ValuesIn(cases()), name_of);

// A few offsets written out by hand from the definitions, independent of any formula above.
TEST(LayoutSpot, HandComputedOffsets) {
  // L0A f16, 2 x 3 fractals: (17, 20) is fractal (1, 1) = 4th, inner (1, 4): 4*256 + 1*16 + 4.
  EXPECT_EQ(layout::l0a(2, 3, 16).offset(17, 20), 4 * 256 + 16 + 4);
  // L0B s8, 2 x 2 fractals of 32 x 16: (33, 18) is fractal (1, 1) = 3rd, inner n=2, k=1: 3*512 + 2*32 + 1.
  EXPECT_EQ(layout::l0b(2, 2, 32).offset(33, 18), 3 * 512 + 2 * 32 + 1);
  // L0C 3 x 2: (35, 17) is fractal (2, 1), column-major: 1*3 + 2 = 5th, inner (3, 1): 5*256 + 3*16 + 1.
  EXPECT_EQ(layout::l0c(3, 2).offset(35, 17), 5 * 256 + 3 * 16 + 1);
  // L1 NZ f16, 48 rows: (40, 37) is column block 2, row 40, column 5: (2*48 + 40)*16 + 5.
  EXPECT_EQ(layout::l1_nz(48, 3, 16).offset(40, 37), (2 * 48 + 40) * 16 + 5);
}

}  // namespace
}  // namespace cubekit
