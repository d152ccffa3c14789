// rounding.h against the x86 F16C conversions (round to nearest even) and against an independent
// reference for every RoundMode that rounds with exact integer arithmetic on the quantum.
#include "emulator/rounding.h"

#include <gtest/gtest.h>
#include <immintrin.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace cubekit {
namespace {

// ---- the hardware reference ---------------------------------------------------------------------
bool have_f16c() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("f16c");
}
__attribute__((target("avx,f16c"))) uint16_t hw_to_f16(float f) { return _cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT); }
__attribute__((target("avx,f16c"))) float hw_to_f32(uint16_t h) { return _cvtsh_ss(h); }
__attribute__((target("avx,f16c"))) void hw_to_f16_x8(const float* in, uint16_t* out) {
  __m128i r = _mm256_cvtps_ph(_mm256_loadu_ps(in), _MM_FROUND_TO_NEAREST_INT);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), r);
}

// Collects mismatches and reports the first few (a sweep must not print millions of lines).
struct Mismatches {
  int64_t count = 0;
  void add(const std::string& what) {
    if (++count <= 10) ADD_FAILURE() << what;
  }
  ~Mismatches() { EXPECT_EQ(count, 0) << "mismatches in all"; }
};

std::string dstr(double x) {
  char b[64];
  std::snprintf(b, sizeof b, "%a", x);
  return b;
}

std::string hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

void check_f32_pattern(uint32_t bits, uint16_t want, Mismatches& bad) {
  float f = std::bit_cast<float>(bits);
  uint16_t got32 = f32_to_f16(f), got64 = f64_to_f16(double(f));
  if (got32 != want) bad.add("f32_to_f16(" + hex(bits) + ") = " + hex(got32) + ", F16C gives " + hex(want));
  if (got64 != want) bad.add("f64_to_f16(" + hex(bits) + " as double) = " + hex(got64) + ", F16C gives " + hex(want));
}

// Float patterns near every f16 value and every midpoint between neighbours (both signs).
std::vector<uint32_t> near_f16_patterns() {
  std::vector<uint32_t> out;
  auto around = [&](float f) {
    uint32_t b = std::bit_cast<uint32_t>(f);
    for (int d = -3; d <= 3; ++d)
      for (uint32_t sign : {0u, 0x80000000u}) out.push_back((b + uint32_t(d)) ^ sign);
  };
  for (uint32_t h = 0; h <= 0x7c00; ++h) {
    float v = hw_to_f32(uint16_t(h));
    around(v);
    if (h < 0x7bff) around((v + hw_to_f32(uint16_t(h + 1))) / 2);  // exact in f32
  }
  around(65520.0f);  // midpoint between the largest finite value and 2^16
  return out;
}

TEST(Rounding, F32AndF64ToF16MatchF16cOnASweepOfFloatPatterns) {
  if (!have_f16c()) GTEST_SKIP() << "no F16C on this host";
  Mismatches bad;
  constexpr uint64_t kStride = 61;
  float in[8];
  uint16_t want[8];
  uint32_t bits[8];
  int n = 0;
  for (uint64_t p = 7; p < (uint64_t(1) << 32); p += kStride) {
    bits[n] = uint32_t(p);
    in[n] = std::bit_cast<float>(bits[n]);
    if (++n == 8) {
      hw_to_f16_x8(in, want);
      for (int i = 0; i < 8; ++i) check_f32_pattern(bits[i], want[i], bad);
      n = 0;
    }
  }
  for (int i = 0; i < n; ++i) check_f32_pattern(bits[i], hw_to_f16(in[i]), bad);
}

TEST(Rounding, F32AndF64ToF16MatchF16cNearEveryF16ValueAndMidpoint) {
  if (!have_f16c()) GTEST_SKIP() << "no F16C on this host";
  Mismatches bad;
  for (uint32_t b : near_f16_patterns()) check_f32_pattern(b, hw_to_f16(std::bit_cast<float>(b)), bad);
  // Specials.
  for (uint32_t b : {0x0u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u, 0x7f802000u, 0x7fbfffffu,
                     0x00000001u, 0x807fffffu, 0x477fefffu, 0x477ff000u, 0x33000000u, 0x33000001u, 0xb3000000u})
    check_f32_pattern(b, hw_to_f16(std::bit_cast<float>(b)), bad);
}

// Doubles that no float can hold: one double ulp either side of every f16 midpoint must round to
// the nearer neighbour (rounding through f32 first would turn them into ties).
TEST(Rounding, F64ToF16RoundsOnceNearMidpoints) {
  if (!have_f16c()) GTEST_SKIP() << "no F16C on this host";
  Mismatches bad;
  for (uint32_t h = 0; h < 0x7c00; ++h) {
    double lo = hw_to_f32(uint16_t(h)), hi = h == 0x7bff ? 65536.0 : double(hw_to_f32(uint16_t(h + 1)));
    double mid = (lo + hi) / 2;
    const double xs[] = {std::nextafter(mid, 0.0), mid, std::nextafter(mid, 1e300), mid - (hi - lo) * 0x1p-30,
                         mid + (hi - lo) * 0x1p-30};
    const uint16_t want[] = {uint16_t(h), uint16_t((h & 1) ? h + 1 : h), uint16_t(h + 1), uint16_t(h), uint16_t(h + 1)};
    for (int i = 0; i < 5; ++i)
      for (uint16_t sign : {uint16_t(0), uint16_t(0x8000)}) {
        double x = sign ? -xs[i] : xs[i];
        uint16_t got = f64_to_f16(x);
        if (got != (want[i] | sign)) bad.add("f64_to_f16(" + dstr(x) + ") = " + hex(got) + ", want " + hex(want[i] | sign));
      }
  }
  EXPECT_EQ(f64_to_f16(std::numeric_limits<double>::denorm_min()), 0);
  EXPECT_EQ(f64_to_f16(-std::numeric_limits<double>::max()), 0xfc00);
  EXPECT_EQ(f64_to_f16(std::numeric_limits<double>::infinity()), 0x7c00);
  uint16_t nan = f64_to_f16(std::numeric_limits<double>::quiet_NaN());
  EXPECT_TRUE((nan & 0x7c00) == 0x7c00 && (nan & 0x3ff) != 0) << hex(nan);
}

TEST(Rounding, F16ToF32IsExactForAllNonNanPatterns) {
  if (!have_f16c()) GTEST_SKIP() << "no F16C on this host";
  Mismatches bad;
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) continue;
    uint32_t got = std::bit_cast<uint32_t>(f16_to_f32(uint16_t(h)));
    uint32_t want = std::bit_cast<uint32_t>(hw_to_f32(uint16_t(h)));
    if (got != want) bad.add("f16_to_f32(" + hex(h) + ") = " + hex(got) + ", F16C gives " + hex(want));
  }
}

// NaNs keep sign and payload and come out quiet (IEEE 754 and F16C quiet a signaling NaN on
// conversion, as f32_to_f16 does in the other direction).
TEST(Rounding, F16ToF32NanPatternsMatchF16c) {
  if (!have_f16c()) GTEST_SKIP() << "no F16C on this host";
  Mismatches bad;
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7c00) != 0x7c00 || !(h & 0x3ff)) continue;
    uint32_t got = std::bit_cast<uint32_t>(f16_to_f32(uint16_t(h)));
    uint32_t want = std::bit_cast<uint32_t>(hw_to_f32(uint16_t(h)));
    if (got != want) bad.add("f16_to_f32(" + hex(h) + ") = " + hex(got) + ", F16C gives " + hex(want));
  }
}

// ---- the reference for every RoundMode ----------------------------------------------------------
constexpr RoundMode kModes[] = {RoundMode::none, RoundMode::rint, RoundMode::floor, RoundMode::ceil,
                                RoundMode::round, RoundMode::trunc, RoundMode::odd};

// |x| = (n + f) * 2^q with integer n and 0 <= f < 1; where f stands against 1/2.
enum class Rest { zero, below_half, half, above_half };
struct Quantized {
  bool neg;
  uint64_t n;
  Rest rest;
};

Quantized quantize(double x, int q) {
  bool neg = std::signbit(x);
  int e2;
  double f = std::frexp(std::fabs(x), &e2);  // |x| = f * 2^e2, f in [0.5, 1)
  uint64_t m = uint64_t(std::ldexp(f, 53));   // |x| = m * 2^e exactly
  int e = e2 - 53;
  if (m == 0) return {neg, 0, Rest::zero};
  if (e >= q) return {neg, m << (e - q), Rest::zero};  // callers keep this below 2^64
  int s = q - e;
  if (s > 60) return {neg, 0, Rest::below_half};  // m < 2^53 is far below half of 2^s
  uint64_t n = m >> s, r = m & ((uint64_t(1) << s) - 1), half = uint64_t(1) << (s - 1);
  return {neg, n, r == 0 ? Rest::zero : r < half ? Rest::below_half : r == half ? Rest::half : Rest::above_half};
}

// The magnitude in quanta after rounding with the mode.
uint64_t apply(const Quantized& v, RoundMode mode) {
  bool inexact = v.rest != Rest::zero;
  switch (mode) {
    case RoundMode::none:
    case RoundMode::rint: return v.n + (v.rest == Rest::above_half || (v.rest == Rest::half && (v.n & 1)));
    case RoundMode::round: return v.n + (v.rest == Rest::above_half || v.rest == Rest::half);
    case RoundMode::floor: return v.n + (inexact && v.neg);
    case RoundMode::ceil: return v.n + (inexact && !v.neg);
    case RoundMode::trunc: return v.n;
    case RoundMode::odd: return inexact ? (v.n | 1) : v.n;
  }
  return v.n;
}

// x rounded to a binary format with `mant` fraction bits, minimum normal exponent `emin` and
// largest finite value `max`; overflow to infinity or to max as the mode directs.
double ref_round(double x, int mant, int emin, double max, RoundMode mode) {
  if (std::isnan(x) || std::isinf(x) || x == 0) return x;
  int e2;
  std::frexp(x, &e2);
  int q = std::max(e2 - 1, emin) - mant;
  Quantized v = quantize(x, q);
  double r = std::ldexp(double(apply(v, mode)), q);
  if (r > max) {
    bool to_max = mode == RoundMode::trunc || mode == RoundMode::odd || (mode == RoundMode::floor && !v.neg) ||
                  (mode == RoundMode::ceil && v.neg);
    r = to_max ? max : std::numeric_limits<double>::infinity();
  }
  return v.neg ? -r : r;  // keeps the sign of a zero result
}

// The binary16 encoding of a value that binary16 holds exactly.
uint16_t encode_f16(double v) {
  uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  double a = std::fabs(v);
  if (std::isinf(a)) return sign | 0x7c00;
  if (a < 0x1p-14) return sign | uint16_t(a * 0x1p24);
  int e2;
  std::frexp(a, &e2);
  int e = e2 - 1;
  return sign | uint16_t((e + 15) << 10) | uint16_t((std::ldexp(a, -e) - 1.0) * 1024);
}

int64_t ref_int(double x, RoundMode mode, int64_t lo, int64_t hi) {
  if (std::isnan(x)) return 0;
  if (std::fabs(x) >= 0x1p63) return x > 0 ? hi : lo;
  Quantized v = quantize(x, 0);
  __int128 r = __int128(apply(v, mode));
  if (v.neg) r = -r;
  return r < lo ? lo : r > hi ? hi : int64_t(r);
}

std::vector<double> f16_mode_inputs() {
  std::vector<double> xs;
  for (uint32_t h = 0; h < 0x7c00; ++h) {
    int e = int(h >> 10);  // the value, decoded independently: subnormal or (1024 + mantissa) * 2^(e-25)
    double ulp = std::ldexp(1.0, std::max(e, 1) - 25);
    double v = double(e == 0 ? h : (1024 + (h & 0x3ff))) * ulp;
    for (double x : {v, v + ulp / 4, v + ulp / 2, v + 3 * ulp / 4, std::nextafter(v + ulp / 2, 0.0),
                     std::nextafter(v + ulp / 2, 1e300)}) {
      xs.push_back(x);
      xs.push_back(-x);
    }
  }
  for (double x : {65504.0, 65505.0, 65519.0, 65519.99, 65520.0, 65535.0, 65536.0, 70000.0, 1e10, 1e300,
                   std::numeric_limits<double>::max(), 0x1p-25, 0x1p-26, 0x3p-26, 1e-10,
                   std::numeric_limits<double>::denorm_min(), 0.0, std::numeric_limits<double>::infinity()}) {
    xs.push_back(x);
    xs.push_back(-x);
  }
  std::mt19937_64 rng(11);
  for (int i = 0; i < 50000; ++i) {
    double x = std::ldexp(1.0 + double(rng() >> 12) * 0x1p-52, int(rng() % 50) - 32);
    xs.push_back(rng() & 1 ? -x : x);
  }
  return xs;
}

TEST(Rounding, DoubleToF16EveryModeMatchesReference) {
  Mismatches bad;
  for (double x : f16_mode_inputs())
    for (RoundMode mode : kModes) {
      uint16_t want = encode_f16(ref_round(x, 10, -14, 65504.0, mode)), got = double_to_f16(x, mode);
      if (got != want)
        bad.add("double_to_f16(" + dstr(x) + ", " +
                std::string(round_mode_name(mode)) + ") = " + hex(got) + ", want " + hex(want));
    }
  uint16_t nan = double_to_f16(std::numeric_limits<double>::quiet_NaN(), RoundMode::floor);
  EXPECT_TRUE((nan & 0x7c00) == 0x7c00 && (nan & 0x3ff) != 0) << hex(nan);
}

TEST(Rounding, DoubleToF32EveryModeMatchesReference) {
  Mismatches bad;
  std::vector<double> xs;
  std::mt19937_64 rng(12);
  for (int i = 0; i < 150000; ++i) {
    // A float plus a fraction of its ulp: exact, quarter points, ties and near-ties.
    float f = std::bit_cast<float>(uint32_t(rng()) & 0x7f7fffffu);
    double ulp = std::ldexp(1.0, std::max(std::ilogb(f), -126) - 23);
    static const double kFrac[] = {0, 0.25, 0.5, 0.75, 0.5 - 0x1p-20, 0.5 + 0x1p-20};
    double x = double(f) + kFrac[rng() % 6] * ulp;
    xs.push_back(rng() & 1 ? -x : x);
  }
  for (double x : {0x1.fffffep127, 0x1.fffffefp127, 0x1.ffffffp127, 0x1p128, 1e300, std::numeric_limits<double>::max(),
                   0x1p-149, 0x1p-150, 0x3p-151, 0x1p-151, 1e-300, std::numeric_limits<double>::denorm_min(),
                   0x1.fffffep-127, 0x1p-126 - 0x1p-151, 1.0 + 0x1p-24, 1.0 + 0x3p-24, 0.0,
                   std::numeric_limits<double>::infinity()}) {
    xs.push_back(x);
    xs.push_back(-x);
  }
  for (double x : xs)
    for (RoundMode mode : kModes) {
      uint32_t want = std::bit_cast<uint32_t>(float(ref_round(x, 23, -126, 0x1.fffffep127, mode)));
      uint32_t got = std::bit_cast<uint32_t>(double_to_f32(x, mode));
      if (got != want)
        bad.add("double_to_f32(" + dstr(x) + ", " + std::string(round_mode_name(mode)) +
                ") = " + hex(got) + ", want " + hex(want));
    }
  EXPECT_TRUE(std::isnan(double_to_f32(std::numeric_limits<double>::quiet_NaN(), RoundMode::ceil)));
}

TEST(Rounding, DoubleToIntEveryModeMatchesReference) {
  Mismatches bad;
  struct Range {
    int64_t lo, hi;
  };
  const Range ranges[] = {{-128, 127}, {0, 255}, {-32768, 32767}, {INT32_MIN, INT32_MAX}, {INT64_MIN, INT64_MAX}};
  std::vector<double> xs;
  for (int k = -300; k <= 300; ++k)
    for (double f : {0.0, 0.25, 0.5, 0.75, 0.5 - 0x1p-40, 0.5 + 0x1p-40}) xs.push_back(k + f);
  for (double b : {0x1p31, 0x1p15, 0x1p63, 0x1p53, 0x1p64})
    for (double d : {-1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5}) {
      xs.push_back(b + d);
      xs.push_back(-b + d);
    }
  for (double x : {0x1p63 - 1024, -0x1p63, 1e19, -1e19, 1e300, -1e300, std::numeric_limits<double>::denorm_min(),
                   -std::numeric_limits<double>::denorm_min(), -0.0, std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()})
    xs.push_back(x);
  std::mt19937_64 rng(13);
  for (int i = 0; i < 30000; ++i) {
    double x = std::ldexp(1.0 + double(rng() >> 12) * 0x1p-52, int(rng() % 70) - 4);
    xs.push_back(rng() & 1 ? -x : x);
  }
  for (const Range& r : ranges)
    for (double x : xs)
      for (RoundMode mode : kModes) {
        int64_t want = ref_int(x, mode, r.lo, r.hi), got = double_to_int(x, mode, r.lo, r.hi);
        if (got != want)
          bad.add("double_to_int(" + dstr(x) + ", " + std::string(round_mode_name(mode)) + ", [" +
                  std::to_string(r.lo) + ", " + std::to_string(r.hi) + "]) = " + std::to_string(got) + ", want " +
                  std::to_string(want));
      }
}

// Hand-computed cases, a check of the reference itself: modes none rint floor ceil round trunc odd.
TEST(Rounding, HandComputedCases) {
  struct F16Case {
    double x;
    uint16_t want[7];
  };
  const F16Case f16_cases[] = {
      {1.0 + 0x1p-11, {0x3c00, 0x3c00, 0x3c00, 0x3c01, 0x3c01, 0x3c00, 0x3c01}},  // tie, even below
      {1.0 + 0x3p-11, {0x3c02, 0x3c02, 0x3c01, 0x3c02, 0x3c02, 0x3c01, 0x3c01}},  // tie, even above
      {-(1.0 + 0x1p-11), {0xbc00, 0xbc00, 0xbc01, 0xbc00, 0xbc01, 0xbc00, 0xbc01}},
      {70000.0, {0x7c00, 0x7c00, 0x7bff, 0x7c00, 0x7c00, 0x7bff, 0x7bff}},
      {-70000.0, {0xfc00, 0xfc00, 0xfc00, 0xfbff, 0xfc00, 0xfbff, 0xfbff}},
      {65520.0, {0x7c00, 0x7c00, 0x7bff, 0x7c00, 0x7c00, 0x7bff, 0x7bff}},
      {65519.0, {0x7bff, 0x7bff, 0x7bff, 0x7c00, 0x7bff, 0x7bff, 0x7bff}},
      {0x1p-25, {0x0000, 0x0000, 0x0000, 0x0001, 0x0001, 0x0000, 0x0001}},
      {-0x1p-25, {0x8000, 0x8000, 0x8001, 0x8000, 0x8001, 0x8000, 0x8001}},
      {0x3p-25, {0x0002, 0x0002, 0x0001, 0x0002, 0x0002, 0x0001, 0x0001}},
      {-1e-30, {0x8000, 0x8000, 0x8001, 0x8000, 0x8000, 0x8000, 0x8001}},
  };
  for (const F16Case& c : f16_cases)
    for (int m = 0; m < 7; ++m) {
      EXPECT_EQ(double_to_f16(c.x, kModes[m]), c.want[m]) << c.x << " " << round_mode_name(kModes[m]);
      EXPECT_EQ(encode_f16(ref_round(c.x, 10, -14, 65504.0, kModes[m])), c.want[m]) << "reference " << c.x;
    }
  struct IntCase {
    double x;
    int64_t lo, hi, want[7];
  };
  const IntCase int_cases[] = {
      {2.5, INT32_MIN, INT32_MAX, {2, 2, 2, 3, 3, 2, 3}},
      {-2.5, INT32_MIN, INT32_MAX, {-2, -2, -3, -2, -3, -2, -3}},
      {3.5, INT32_MIN, INT32_MAX, {4, 4, 3, 4, 4, 3, 3}},
      {4.0, INT32_MIN, INT32_MAX, {4, 4, 4, 4, 4, 4, 4}},
      {-4.25, INT32_MIN, INT32_MAX, {-4, -4, -5, -4, -4, -4, -5}},
      {127.5, -128, 127, {127, 127, 127, 127, 127, 127, 127}},
      {-128.5, -128, 127, {-128, -128, -128, -128, -128, -128, -128}},
      {-0.5, 0, 255, {0, 0, 0, 0, 0, 0, 0}},
      {255.5, 0, 255, {255, 255, 255, 255, 255, 255, 255}},
      {1e10, INT32_MIN, INT32_MAX, {INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX}},
      {-1e10, INT32_MIN, INT32_MAX, {INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN}},
      {0x1p63, INT64_MIN, INT64_MAX, {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX}},
      {std::numeric_limits<double>::quiet_NaN(), -128, 127, {0, 0, 0, 0, 0, 0, 0}},
  };
  for (const IntCase& c : int_cases)
    for (int m = 0; m < 7; ++m) {
      EXPECT_EQ(double_to_int(c.x, kModes[m], c.lo, c.hi), c.want[m]) << c.x << " " << round_mode_name(kModes[m]);
      EXPECT_EQ(ref_int(c.x, kModes[m], c.lo, c.hi), c.want[m]) << "reference " << c.x;
    }
}

}  // namespace
}  // namespace cubekit
