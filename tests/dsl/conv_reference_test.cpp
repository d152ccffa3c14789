// Convolution and pooling written in the DSL (multi-dimensional RDoms, affine reads, boundary
// conditions), computed by the Halide host reference, against naive loops written here.
#include "dsl/host.h"
#include "emulator/rounding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

namespace cubekit::dsl {
namespace {

using BoundaryConditions::constant_exterior;

std::vector<float> random_floats(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> out(n);
  for (float& x : out) x = f16_to_f32(f64_to_f16(d(rng)));  // values f16 holds exactly
  return out;
}

std::vector<uint8_t> as_f16(const std::vector<float>& v) {
  std::vector<uint8_t> out(v.size() * 2);
  for (size_t i = 0; i < v.size(); ++i) {
    uint16_t h = f64_to_f16(v[i]);
    std::memcpy(&out[2 * i], &h, 2);
  }
  return out;
}

float f32_at(const HostTensor& t, size_t i) {
  float f;
  std::memcpy(&f, &t.data[4 * i], 4);
  return f;
}

float f16_at(const HostTensor& t, size_t i) {
  uint16_t h;
  std::memcpy(&h, &t.data[2 * i], 2);
  return f16_to_f32(h);
}

// Reductions over several RVars of one RDom loop its dimensions r.x innermost, whatever order the
// expression names them in: f32 sums whose order changes the result tell.
TEST(MultiDimRDom, SumsInDimensionOrder) {
  const int A = 3, B = 4;
  Input X("X", DType::f32, {B, A});
  Var i("i");
  RDom r({{0, A}, {0, B}}, "r");
  Func F("F");
  F(i) = sum(X(r.y, r.x) * cast(DType::f32, i + 1));
  F.bound(i, 0, 2);
  std::vector<float> x = {1e8f, 1, -1e8f, 3, 0.5f, 1e-3f, -7, 1e7f, 2, -1e7f, 0.25f, 1};
  std::vector<uint8_t> bytes(x.size() * 4);
  std::memcpy(bytes.data(), x.data(), bytes.size());
  HostTensor got = run_on_host(F, {{"X", &bytes}});
  for (int ii = 0; ii < 2; ++ii) {
    float want = 0;
    for (int y = 0; y < B; ++y)
      for (int xx = 0; xx < A; ++xx) want = want + x[size_t(y * A + xx)] * float(ii + 1);
    EXPECT_EQ(f32_at(got, size_t(ii)), want) << ii;
  }
}

struct ConvCase {
  int n, c, h, w, k, kh, kw, stride, pad, dilation, groups;
};

// torch.nn.functional.conv2d's meaning, NCHW in and out, f16 in and f32 out, summing over
// (channel innermost, then kernel row, then kernel column) as the DSL's RDom does.
std::vector<float> naive_conv(const ConvCase& p, const std::vector<float>& x, const std::vector<float>& wt, int oh, int ow) {
  int cg = p.c / p.groups, kg = p.k / p.groups;
  std::vector<float> out(size_t(p.n * p.k * oh * ow));
  for (int n = 0; n < p.n; ++n)
    for (int k = 0; k < p.k; ++k)
      for (int y = 0; y < oh; ++y)
        for (int xo = 0; xo < ow; ++xo) {
          float acc = 0;
          for (int s = 0; s < p.kw; ++s)
            for (int r = 0; r < p.kh; ++r)
              for (int c = 0; c < cg; ++c) {
                int ih = y * p.stride + r * p.dilation - p.pad, iw = xo * p.stride + s * p.dilation - p.pad;
                int ci = k / kg * cg + c;
                float v = ih >= 0 && ih < p.h && iw >= 0 && iw < p.w ? x[size_t(((n * p.c + ci) * p.h + ih) * p.w + iw)] : 0;
                acc = acc + v * wt[size_t(((k * cg + c) * p.kh + r) * p.kw + s)];
              }
          out[size_t(((n * p.k + k) * oh + y) * ow + xo)] = acc;
        }
  return out;
}

class Conv2d : public testing::TestWithParam<ConvCase> {};

TEST_P(Conv2d, MatchesNaiveLoops) {
  const ConvCase p = GetParam();
  const int cg = p.c / p.groups, kg = p.k / p.groups;
  const int oh = (p.h + 2 * p.pad - p.dilation * (p.kh - 1) - 1) / p.stride + 1;
  const int ow = (p.w + 2 * p.pad - p.dilation * (p.kw - 1) - 1) / p.stride + 1;
  Input I("I", DType::f16, {p.n, p.c, p.h, p.w}), W("W", DType::f16, {p.k, cg, p.kh, p.kw});
  Var n("n"), k("k"), y("y"), x("x");
  RDom r({{0, cg}, {0, p.kh}, {0, p.kw}}, "r");
  auto padded = constant_exterior(I, 0);
  Func O("O");
  O(n, k, y, x) = sum(cast(DType::f32, padded(n, k / kg * cg + r.x, y * p.stride + r.y * p.dilation - p.pad,
                                              x * p.stride + r.z * p.dilation - p.pad)) *
                      cast(DType::f32, W(k, r.x, r.y, r.z)));
  O.bound(y, 0, oh).bound(x, 0, ow);
  EXPECT_EQ(O.shape(), (std::vector<int64_t>{p.n, p.k, oh, ow}));
  auto xi = random_floats(size_t(p.n * p.c * p.h * p.w), 1), wi = random_floats(size_t(p.k * cg * p.kh * p.kw), 2);
  auto xb = as_f16(xi), wb = as_f16(wi);
  std::vector<float> want = naive_conv(p, xi, wi, oh, ow);
  for (HostSchedule s : {HostSchedule::Fast, HostSchedule::Plain}) {
    HostTensor got = run_on_host(O, {{"I", &xb}, {"W", &wb}}, s);
    ASSERT_EQ(got.data.size(), want.size() * 4);
    for (size_t e = 0; e < want.size(); ++e) ASSERT_EQ(f32_at(got, e), want[e]) << "element " << e;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, Conv2d,
    testing::Values(ConvCase{1, 3, 9, 9, 4, 3, 3, 1, 1, 1, 1},    // same padding
                    ConvCase{2, 4, 11, 8, 6, 3, 3, 2, 1, 1, 2},   // stride 2, two groups
                    ConvCase{1, 4, 10, 10, 4, 3, 3, 1, 2, 2, 4},  // dilation 2, depthwise
                    ConvCase{1, 3, 12, 12, 2, 7, 7, 2, 3, 1, 1},  // a 7x7 stem
                    ConvCase{1, 8, 5, 6, 5, 1, 1, 1, 0, 1, 1},    // 1x1, no padding
                    ConvCase{1, 2, 7, 5, 3, 2, 3, 3, 0, 1, 1}));  // a kernel wider than tall, stride 3

// Max pool 3x3 stride 2 padding 1 (ResNet-50's), padded with -inf as torch pads it.
TEST(Pooling, MaxPool3x3Stride2) {
  const int N = 2, C = 3, H = 9, W = 8, OH = (H + 2 - 3) / 2 + 1, OW = (W + 2 - 3) / 2 + 1;
  Input I("I", DType::f16, {N, C, H, W});
  Var n("n"), c("c"), y("y"), x("x");
  RDom r({{0, 3}, {0, 3}}, "r");
  Func P("P");
  P(n, c, y, x) = maximum(constant_exterior(I, -INFINITY)(n, c, y * 2 + r.y - 1, x * 2 + r.x - 1));
  P.bound(y, 0, OH).bound(x, 0, OW);
  auto xi = random_floats(size_t(N * C * H * W), 3);
  auto xb = as_f16(xi);
  HostTensor got = run_on_host(P, {{"I", &xb}});
  for (int nn = 0; nn < N; ++nn)
    for (int cc = 0; cc < C; ++cc)
      for (int yy = 0; yy < OH; ++yy)
        for (int xx = 0; xx < OW; ++xx) {
          float want = -INFINITY;
          for (int dy = 0; dy < 3; ++dy)
            for (int dx = 0; dx < 3; ++dx) {
              int ih = yy * 2 + dy - 1, iw = xx * 2 + dx - 1;
              if (ih >= 0 && ih < H && iw >= 0 && iw < W) want = std::max(want, xi[size_t(((nn * C + cc) * H + ih) * W + iw)]);
            }
          size_t e = size_t(((nn * C + cc) * OH + yy) * OW + xx);
          EXPECT_EQ(f16_at(got, e), want) << e;
        }
}

// Global average pool: a sum over a 2-D RDom, scaled.
TEST(Pooling, GlobalAveragePool) {
  const int N = 2, C = 5, H = 7, W = 7;
  Input I("I", DType::f16, {N, C, H, W});
  Var n("n"), c("c");
  RDom r({{0, W}, {0, H}}, "r");
  Func G("G");
  G(n, c) = sum(cast(DType::f32, I(n, c, r.y, r.x))) / float(H * W);
  auto xi = random_floats(size_t(N * C * H * W), 4);
  auto xb = as_f16(xi);
  HostTensor got = run_on_host(G, {{"I", &xb}});
  for (int e = 0; e < N * C; ++e) {
    float acc = 0;
    for (int yy = 0; yy < H; ++yy)
      for (int xx = 0; xx < W; ++xx) acc = acc + xi[size_t((e * H + yy) * W + xx)];
    EXPECT_EQ(f32_at(got, size_t(e)), acc / float(H * W)) << e;
  }
}

// Reads through a boundary condition that stay inside the tensor read it; those outside get the value.
TEST(Exterior, InsideReadsTheInputOutsideTheValue) {
  Input A("A", DType::s32, {5});
  Var i("i");
  Func F("F");
  F(i) = constant_exterior(A, -7)(i - 2);
  F.bound(i, 0, 9);
  std::vector<int32_t> a = {10, 11, 12, 13, 14};
  std::vector<uint8_t> bytes(20);
  std::memcpy(bytes.data(), a.data(), 20);
  HostTensor got = run_on_host(F, {{"A", &bytes}});
  std::vector<int32_t> want = {-7, -7, 10, 11, 12, 13, 14, -7, -7}, have(9);
  std::memcpy(have.data(), got.data.data(), 36);
  EXPECT_EQ(have, want);
}

// An index read from 8-bit data, through a boundary condition; and a plain number as an index.
TEST(Exterior, NarrowIndicesAndConstantIndices) {
  Input T("T", DType::s32, {100}), Idx("Idx", DType::u8, {6}), M("M", DType::s32, {3, 4});
  Var i("i");
  Func F("F"), G("G");
  F(i) = constant_exterior(T, -1)(Idx(i)) + M(2, 1);
  std::vector<int32_t> t(100), m(12);
  for (int k = 0; k < 100; ++k) t[size_t(k)] = 1000 + k;
  for (int k = 0; k < 12; ++k) m[size_t(k)] = k;
  std::vector<uint8_t> idx = {0, 99, 100, 255, 7, 42};
  std::vector<uint8_t> tb(400), mb(48);
  std::memcpy(tb.data(), t.data(), 400);
  std::memcpy(mb.data(), m.data(), 48);
  HostTensor got = run_on_host(F, {{"T", &tb}, {"Idx", &idx}, {"M", &mb}});
  std::vector<int32_t> have(6), want = {1009, 1108, 8, 8, 1016, 1051};
  std::memcpy(have.data(), got.data.data(), 24);
  EXPECT_EQ(have, want);
}

}  // namespace
}  // namespace cubekit::dsl
