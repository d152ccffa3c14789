// bfloat16: the conversions against a reference that picks the nearer of the two neighbouring bf16
// values in double (no bit tricks), over every f32 pattern near a tie and random ones; vconv
// f32 <-> bf16; mmad bf16 x bf16 -> f32 against a naive loop; fixpipe f32 -> bf16.
#include "harness.h"

#include "emulator/rounding.h"

#include <bit>
#include <cmath>

namespace cubekit::test {
namespace {

constexpr const char* kChip = "ascend910b2";  // a split chip: its cube cores take bf16, its vector cores convert it

// A chip whose cube takes bf16 (the ascend910's does not; the split chips' presets list it).
ChipConfig with_bf16(ChipConfig chip) {
  if (!chip.fractal(DType::bf16)) chip.cube.push_back({DType::bf16, DType::f32, 16, 16, 16});
  return chip;
}

// ---- the reference ----------------------------------------------------------------------------------

double bf16_value(uint16_t b) {  // decoded from its fields
  int e = (b >> 7) & 0xff, m = b & 0x7f;
  double v = e == 0 ? std::ldexp(double(m), -133) : std::ldexp(double(128 + m), e - 134);
  if (e == 0xff) v = m ? NAN : INFINITY;
  return (b & 0x8000) ? -v : v;
}

// Round to nearest, ties to even, by comparing distances to the two bf16 values around x.
uint16_t reference_bf16(double x) {
  if (std::isnan(x)) return 0x7fc0;
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  double a = std::fabs(x);
  // The largest bf16 magnitude <= a (0x7f7f is the largest finite).
  uint16_t lo = 0;
  for (int step = 1 << 14; step; step >>= 1)
    if (lo + step <= 0x7f7f && bf16_value(uint16_t(lo + step)) <= a) lo = uint16_t(lo + step);
  if (bf16_value(lo) == a) return sign | lo;
  uint16_t hi = uint16_t(lo + 1);
  double hi_value = hi == 0x7f80 ? std::ldexp(1.0, 128) : bf16_value(hi);  // past the largest: towards 2^128
  double dlo = a - bf16_value(lo), dhi = hi_value - a;
  uint16_t pick = dlo < dhi ? lo : dhi < dlo ? hi : ((lo & 1) ? hi : lo);
  return sign | pick;
}

TEST(Bf16, ToF32IsExactForEveryPattern) {
  for (uint32_t b = 0; b < 65536; ++b) {
    float f = bf16_to_f32(uint16_t(b));
    double want = bf16_value(uint16_t(b));
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(f)) << b;
      continue;
    }
    ASSERT_EQ(double(f), want) << std::hex << b;
    ASSERT_EQ(std::signbit(f), bool(b & 0x8000)) << std::hex << b;
  }
}

// Every f32 whose dropped half is at or next to a tie (0x7fff, 0x8000, 0x8001), or is 0, 1 or
// 0xffff, for every upper half: all exponents, subnormals, the edge to infinity, both signs.
TEST(Bf16, FromF32RoundsToNearestEvenAtEveryTie) {
  const uint32_t lows[] = {0x0000, 0x0001, 0x7ffe, 0x7fff, 0x8000, 0x8001, 0xfffe, 0xffff};
  for (uint32_t high = 0; high < 65536; ++high)
    for (uint32_t low : lows) {
      float f = std::bit_cast<float>(high << 16 | low);
      uint16_t got = f32_to_bf16(f);
      if (std::isnan(f)) {
        ASSERT_EQ(got & 0x7fc0, 0x7fc0) << "NaN stays a quiet NaN: " << std::hex << (high << 16 | low);
        ASSERT_EQ(got & 0x8000, high & 0x8000);
        ASSERT_EQ(got & 0x3f, high & 0x3f) << "top payload bits kept";
        continue;
      }
      ASSERT_EQ(got, reference_bf16(f)) << std::hex << (high << 16 | low);
      ASSERT_EQ(double_to_bf16(f, RoundMode::rint), got) << std::hex << (high << 16 | low);
    }
}

TEST(Bf16, FromF32RandomPatterns) {
  std::mt19937_64 rng(21);
  for (int i = 0; i < 200000; ++i) {
    float f = std::bit_cast<float>(uint32_t(rng()));
    if (std::isnan(f)) continue;
    ASSERT_EQ(f32_to_bf16(f), reference_bf16(f)) << std::hex << std::bit_cast<uint32_t>(f);
  }
}

// The directed modes of vconv, from doubles (exact values the vector unit computes).
TEST(Bf16, DoubleWithEveryRoundMode) {
  std::mt19937_64 rng(4);
  for (int i = 0; i < 20000; ++i) {
    double x = std::ldexp(std::uniform_real_distribution<double>(-2, 2)(rng), int(rng() % 300) - 150);
    uint16_t near = reference_bf16(x);
    double v = bf16_value(near);
    // floor / ceil / trunc: the neighbour on the mode's side.
    auto below = [&] { return v <= x ? near : uint16_t(near & 0x8000 ? near + 1 : near - 1); };
    auto above = [&] { return v >= x ? near : uint16_t(near & 0x8000 ? near - 1 : near + 1); };
    auto clean = [](uint16_t b) { return (b & 0x7fff) == 0 ? uint16_t(b) : b; };
    ASSERT_EQ(double_to_bf16(x, RoundMode::rint), near) << x;
    ASSERT_EQ(bf16_value(double_to_bf16(x, RoundMode::floor)), bf16_value(clean(below()))) << x;
    ASSERT_EQ(bf16_value(double_to_bf16(x, RoundMode::ceil)), bf16_value(clean(above()))) << x;
    ASSERT_EQ(bf16_value(double_to_bf16(x, RoundMode::trunc)), bf16_value(x > 0 ? clean(below()) : clean(above()))) << x;
  }
  EXPECT_EQ(double_to_bf16(1e39, RoundMode::rint), 0x7f80);    // overflow: infinity
  EXPECT_EQ(double_to_bf16(1e39, RoundMode::trunc), 0x7f7f);   // ... or the largest finite
  EXPECT_EQ(double_to_bf16(-1e39, RoundMode::floor), 0xff80);
  EXPECT_EQ(double_to_bf16(-0.0, RoundMode::rint), 0x8000);
  EXPECT_EQ(double_to_bf16(1e-50, RoundMode::rint), 0x0000);   // below half the smallest subnormal
  EXPECT_EQ(double_to_bf16(1e-50, RoundMode::ceil), 0x0001);
}

// ---- vconv ------------------------------------------------------------------------------------------

TEST(Bf16, VconvBothWays) {
  // 64 f32 -> 64 bf16 per repeat; then back.
  Harness h("vconv.bf16.f32 ub[4096], ub[0], repeat=2, dst_rep=4\nvconv.f32.bf16 ub[8192], ub[4096], repeat=2, "
            "dst_rep=8, src_rep=4",
            kChip);
  std::mt19937_64 rng(8);
  std::vector<float> in(128);
  for (float& f : in) f = std::bit_cast<float>(uint32_t(rng()));
  in[0] = INFINITY, in[1] = -0.0f, in[2] = 3.0f + 0x1p-8f, in[3] = 1e-40f;
  for (float& f : in)
    if (std::isnan(f)) f = 1.0f;
  h.put(Space::UB, 0, in);
  h.run_clean();
  std::vector<uint16_t> bf = h.get<uint16_t>(Space::UB, 4096, 128);
  std::vector<float> back = h.get<float>(Space::UB, 8192, 128);
  for (size_t i = 0; i < 128; ++i) {
    ASSERT_EQ(bf[i], reference_bf16(in[i])) << i << " " << in[i];
    ASSERT_EQ(double(back[i]), bf16_value(bf[i])) << i;
  }
}

// ---- mmad -------------------------------------------------------------------------------------------

// bf16 values over a wide range of exponents, so products also under- and overflow f32's normals.
std::vector<uint16_t> random_bf16(size_t n, uint64_t seed, int spread) {
  std::mt19937_64 rng(seed);
  std::vector<uint16_t> v(n);
  for (auto& b : v)
    b = uint16_t(((rng() & 1) << 15) | ((127 - spread + rng() % (2 * spread + 1)) << 7) | (rng() & 0x7f));
  return v;
}

class Bf16Mmad : public testing::TestWithParam<std::tuple<int, int, int, int>> {};

TEST_P(Bf16Mmad, MatchesTheNaiveLoop) {
  auto [m, n, k, spread] = GetParam();
  int mf = (m + 15) / 16, nf = (n + 15) / 16, kf = (k + 15) / 16;
  Harness h("mmad.bf16 l0c[0], l0a[0], l0b[0], m=" + std::to_string(m) + ", n=" + std::to_string(n) +
                ", k=" + std::to_string(k),
            kChip);
  h.chip = with_bf16(h.chip);
  std::vector<uint16_t> a = random_bf16(size_t(mf * kf * 256), 1 + m, spread), b = random_bf16(size_t(kf * nf * 256), 2 + n, spread);
  std::vector<float> c0 = random_f32(size_t(mf * nf * 256), 3);
  h.put(Space::L0A, 0, a);
  h.put(Space::L0B, 0, b);
  h.put(Space::L0C, 0, c0);
  h.run_clean();
  std::vector<float> got = h.get<float>(Space::L0C, 0, size_t(mf * nf * 256));
  for (int i = 0; i < mf * 16; ++i)
    for (int j = 0; j < nf * 16; ++j) {
      // L0C NZ: fractal (i/16, j/16) in column-major order; L0A zZ; L0B zN (each fractal column-major).
      float c = c0[size_t(((j / 16) * mf + i / 16) * 256 + (i % 16) * 16 + j % 16)];
      for (int kk = 0; kk < k; ++kk) {
        float x = float(bf16_value(a[size_t(((i / 16) * kf + kk / 16) * 256 + (i % 16) * 16 + kk % 16)]));
        float y = float(bf16_value(b[size_t(((kk / 16) * nf + j / 16) * 256 + (j % 16) * 16 + kk % 16)]));
        c = std::fmaf(x, y, c);
      }
      float g = got[size_t(((j / 16) * mf + i / 16) * 256 + (i % 16) * 16 + j % 16)];
      if (std::isnan(c)) {
        ASSERT_TRUE(std::isnan(g)) << i << "," << j;
        continue;
      }
      ASSERT_EQ(std::bit_cast<uint32_t>(g), std::bit_cast<uint32_t>(c)) << i << "," << j << ": " << g << " vs " << c;
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, Bf16Mmad,
                         testing::Values(std::tuple{16, 16, 16, 8}, std::tuple{32, 48, 64, 20},
                                         std::tuple{20, 17, 40, 4}, std::tuple{16, 32, 48, 70}));

// On a chip whose cube does not list bf16, mmad.bf16 is a fault naming the chip.
TEST(Bf16, MmadOnAChipWithoutBf16IsAFault) {
  Harness h("mmad.bf16 l0c[0], l0a[0], l0b[0], m=16, n=16, k=16", "ascend910");
  ASSERT_EQ(h.chip.fractal(DType::bf16), nullptr);
  std::vector<Diagnostic> d = h.run();
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].kind, Diagnostic::Kind::Fault);
  EXPECT_NE(d[0].message.find("the cube of ascend910 does not take bf16 inputs"), std::string::npos) << d[0].message;
}

// ---- fixpipe ----------------------------------------------------------------------------------------

TEST(Bf16, FixpipeF32ToBf16WithRelu) {
  for (bool relu : {false, true}) {
    Harness h(std::string(".tensor C bf16 [40, 24] out\nfixpipe.f32.bf16 C[0], l0c[0], m=35, n=20, src_stride=48, "
                          "dst_stride=24") + (relu ? ", relu" : ""),
              kChip);
    std::mt19937_64 rng(6);
    std::vector<float> acc(48 * 32);
    for (float& f : acc) f = std::bit_cast<float>(uint32_t(rng()));
    acc[0] = -0.0f, acc[1] = -INFINITY, acc[2] = 0x1.fffffep127f;
    h.put(Space::L0C, 0, acc);
    h.run_clean();
    const uint8_t* out = h.tensor("C");
    for (int r = 0; r < 40; ++r)
      for (int c = 0; c < 24; ++c) {
        uint16_t got;
        std::memcpy(&got, out + (r * 24 + c) * 2, 2);
        if (r >= 35 || c >= 20) {
          ASSERT_EQ(got, 0) << "untouched " << r << "," << c;
          continue;
        }
        float x = acc[size_t(((c / 16) * 48 + r) * 16 + c % 16)];
        if (std::isnan(x)) {
          ASSERT_EQ(got & 0x7fc0, 0x7fc0);
          continue;
        }
        uint16_t want = reference_bf16(x);
        if (relu && (want & 0x8000)) want = 0;
        ASSERT_EQ(got, want) << r << "," << c << ": " << x;
      }
  }
}

}  // namespace
}  // namespace cubekit::test
