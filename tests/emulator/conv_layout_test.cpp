// The convolution layouts of layout.h (NC1HWC0 feature maps, FRACTAL_Z weights) against CANN's
// definitions written here, as functions over every coordinate; and examples/asm/conv2d_f16.s, a
// convolution by load3d + load2d + mmad on data converted to them, against naive loops.
#include "emulator/layout.h"
#include "harness.h"

#include <bit>
#include <filesystem>
#include <set>

namespace cubekit::test {
namespace {

struct FmCase {
  int64_t n, c, h, w, c0;
};

class FeatureMapLayout : public testing::TestWithParam<FmCase> {};

// A bijection of the real elements onto distinct offsets in [0, size), inverted by coord(); every
// other offset is a padding channel; the offset is CANN's (N, C1, H, W, C0) row-major index.
TEST_P(FeatureMapLayout, IsCannsAndInvertible) {
  const FmCase p = GetParam();
  layout::FeatureMap f{p.n, p.c, p.h, p.w, p.c0};
  const int64_t c1 = (p.c + p.c0 - 1) / p.c0;
  ASSERT_EQ(f.size(), p.n * c1 * p.h * p.w * p.c0);
  std::set<int64_t> seen;
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t c = 0; c < p.c; ++c)
      for (int64_t y = 0; y < p.h; ++y)
        for (int64_t x = 0; x < p.w; ++x) {
          int64_t o = f.offset(n, c, y, x);
          ASSERT_EQ(o, (((n * c1 + c / p.c0) * p.h + y) * p.w + x) * p.c0 + c % p.c0);
          ASSERT_TRUE(seen.insert(o).second) << "offset " << o << " twice";
          ASSERT_EQ(f.coord(o), (std::array<int64_t, 4>{n, c, y, x}));
        }
  for (int64_t o = 0; o < f.size(); ++o)
    if (!seen.count(o)) {
      auto [n, c, y, x] = f.coord(o);
      ASSERT_GE(c, p.c) << "offset " << o << " holds no element but is not a padding channel";
      ASSERT_EQ(f.offset(n, c, y, x), o);
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, FeatureMapLayout,
                         testing::Values(FmCase{1, 16, 4, 4, 16}, FmCase{2, 20, 3, 5, 16}, FmCase{1, 3, 7, 2, 16},
                                         FmCase{3, 64, 2, 2, 32}, FmCase{1, 33, 1, 1, 32}));

struct WtCase {
  int64_t k, c, kh, kw, c0;
};

class FractalZLayout : public testing::TestWithParam<WtCase> {};

// Weight (k, c, y, x) at CANN's FRACTAL_Z index (C1*KH*KW, N1, N0, C0), each at a distinct offset.
TEST_P(FractalZLayout, IsCanns) {
  const WtCase p = GetParam();
  layout::ConvWeights wt{p.k, p.c, p.kh, p.kw, p.c0};
  const int64_t c1 = (p.c + p.c0 - 1) / p.c0, n1 = (p.k + 15) / 16;
  ASSERT_EQ(wt.size(), c1 * p.kh * p.kw * n1 * 16 * p.c0);
  ASSERT_EQ(wt.gemm_k(), c1 * p.kh * p.kw * p.c0);
  std::set<int64_t> seen;
  for (int64_t k = 0; k < p.k; ++k)
    for (int64_t c = 0; c < p.c; ++c)
      for (int64_t y = 0; y < p.kh; ++y)
        for (int64_t x = 0; x < p.kw; ++x) {
          int64_t o = wt.offset(k, c, y, x);
          int64_t row = (c / p.c0 * p.kh + y) * p.kw + x;
          ASSERT_EQ(o, ((row * n1 + k / 16) * 16 + k % 16) * p.c0 + c % p.c0) << k << " " << c << " " << y << " " << x;
          ASSERT_TRUE(seen.insert(o).second);
          ASSERT_LT(o, wt.size());
        }
}

INSTANTIATE_TEST_SUITE_P(Shapes, FractalZLayout,
                         testing::Values(WtCase{24, 20, 3, 3, 16}, WtCase{16, 16, 1, 1, 16}, WtCase{5, 3, 7, 7, 16},
                                         WtCase{64, 40, 3, 1, 32}));

TEST(FeatureMapLayout, ConversionsRoundTripWithZeroPadding) {
  layout::FeatureMap f{2, 21, 3, 4, 16};
  std::vector<uint16_t> x = random_f16(size_t(2 * 21 * 3 * 4), 5);
  auto packed = layout::nchw_to_nc1hwc0(reinterpret_cast<const uint8_t*>(x.data()), f, 2);
  ASSERT_EQ(packed.size(), size_t(f.size() * 2));
  for (int64_t o = 0; o < f.size(); ++o)
    if (f.coord(o)[1] >= f.c) {
      ASSERT_EQ(packed[size_t(2 * o)] | packed[size_t(2 * o + 1)], 0) << o;
    }
  auto back = layout::nc1hwc0_to_nchw(packed.data(), f, 2);
  ASSERT_EQ(back.size(), x.size() * 2);
  EXPECT_EQ(std::memcmp(back.data(), x.data(), back.size()), 0);
}

// The example convolution: 20 channels 8 x 8, 24 filters 3 x 3, stride 1, padding 1. mmad sums K
// in order, so naive loops over (c1, kh, kw, c0), padding included, give the same bits.
TEST(ConvExample, Conv2dF16MatchesNaiveLoops) {
  const int64_t C = 20, H = 8, W = 8, K = 24, R = 3, OH = 8, OW = 8, KP = 32;
  std::filesystem::path path = std::filesystem::path(CUBEKIT_SOURCE_DIR) / "examples/asm/conv2d_f16.s";
  Program program = load_program(path.string());
  GlobalMemory gm = GlobalMemory::for_program(program);
  std::vector<uint16_t> x = random_f16(size_t(C * H * W), 31, 2.0), w = random_f16(size_t(K * C * R * R), 32, 2.0);
  layout::FeatureMap f{1, C, H, W, 16};
  layout::ConvWeights wt{K, C, R, R, 16};
  auto xp = layout::nchw_to_nc1hwc0(reinterpret_cast<const uint8_t*>(x.data()), f, 2);
  auto wp = layout::kchw_to_fractal_z(reinterpret_cast<const uint8_t*>(w.data()), wt, 2);
  ASSERT_EQ(xp.size(), gm.bytes("X").size());
  ASSERT_EQ(wp.size(), gm.bytes("W").size());
  std::memcpy(gm.bytes("X").data(), xp.data(), xp.size());
  std::memcpy(gm.bytes("W").data(), wp.data(), wp.size());
  RunResult r = run_in_order(load_chip("ascend910"), program, gm);
  for (const Diagnostic& d : r.diagnostics) ADD_FAILURE() << format_diagnostic(program, d);
  std::vector<float> y(size_t(OH * OW * KP));
  std::memcpy(y.data(), gm.bytes("Y").data(), y.size() * 4);
  int bad = 0;
  for (int64_t oy = 0; oy < OH; ++oy)
    for (int64_t ox = 0; ox < OW; ++ox)
      for (int64_t k = 0; k < KP; ++k) {
        float acc = 0;
        for (int64_t c1 = 0; c1 < f.c1(); ++c1)
          for (int64_t i = 0; i < R; ++i)
            for (int64_t j = 0; j < R; ++j)
              for (int64_t c0 = 0; c0 < 16; ++c0) {
                int64_t c = c1 * 16 + c0, iy = oy + i - 1, ix = ox + j - 1;
                bool real = k < K && c < C && iy >= 0 && iy < H && ix >= 0 && ix < W;
                float v = real ? half(x[size_t((c * H + iy) * W + ix)]) * half(w[size_t(((k * C + c) * R + i) * R + j)]) : 0.0f;
                acc = acc + v;
              }
        float got = y[size_t((oy * OW + ox) * KP + k)];
        if (std::bit_cast<uint32_t>(got) != std::bit_cast<uint32_t>(acc) && ++bad <= 5)
          ADD_FAILURE() << "Y[" << oy * OW + ox << "][" << k << "] = " << got << ", want " << acc;
      }
  EXPECT_EQ(bad, 0);
}

}  // namespace
}  // namespace cubekit::test
