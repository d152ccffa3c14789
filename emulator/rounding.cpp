#include "emulator/rounding.h"

#include <bit>
#include <cmath>
#include <limits>

namespace cubekit {

std::string_view round_mode_name(RoundMode m) {
  switch (m) {
    case RoundMode::none: return "none";
    case RoundMode::rint: return "rint";
    case RoundMode::floor: return "floor";
    case RoundMode::ceil: return "ceil";
    case RoundMode::round: return "round";
    case RoundMode::trunc: return "trunc";
    case RoundMode::odd: return "odd";
  }
  return "?";
}

namespace {

// The bits of binary16 h as binary32 (exact).
constexpr uint32_t f16_bits_as_f32(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  if (exp == 0x1f)  // infinity, or a NaN made quiet with its payload kept, as IEEE conversion does
    return sign | 0x7f800000u | (mant << 13) | (mant ? 0x00400000u : 0);
  if (exp == 0) {  // zero or subnormal: mant * 2^-24, normalised
    if (mant == 0) return sign;
    int shift = 0;
    while (!(mant & 0x400)) mant <<= 1, ++shift;
    return sign | (uint32_t(113 - shift) << 23) | ((mant & 0x3ff) << 13);
  }
  return sign | ((exp + 112) << 23) | (mant << 13);
}

constexpr std::array<float, 65536> f16_table() {
  std::array<float, 65536> t{};
  for (uint32_t h = 0; h < 65536; ++h) t[h] = std::bit_cast<float>(f16_bits_as_f32(uint16_t(h)));
  return t;
}

}  // namespace

alignas(64) constinit const std::array<float, 65536> kF16ToF32 = f16_table();

uint16_t f32_to_f16(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint16_t sign = uint16_t((x >> 16) & 0x8000);
  uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or NaN: keep a quiet NaN's payload top bits
    if (abs == 0x7f800000u) return sign | 0x7c00;
    return sign | 0x7e00 | uint16_t((abs >> 13) & 0x3ff);
  }
  if (abs >= 0x477ff000u) return sign | 0x7c00;  // rounds to >= 65520: overflow to inf
  if (abs < 0x38800000u) {                       // below 2^-14: f16 subnormal or zero
    // The quantum is 2^-24; rint(v / 2^-24) is exact arithmetic in float for these magnitudes.
    float v = std::bit_cast<float>(abs) * 0x1p24f;
    return sign | uint16_t(std::nearbyint(v));
  }
  // Normal: drop 13 mantissa bits with round-to-nearest-even; a carry ripples into the exponent.
  uint32_t rebased = abs - (112u << 23);
  uint32_t lsb = (rebased >> 13) & 1;
  return sign | uint16_t((rebased + 0xfff + lsb) >> 13);
}

float bf16_to_f32(uint16_t b) { return std::bit_cast<float>(uint32_t(b) << 16); }

uint16_t f32_to_bf16(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x0040);  // NaN: quiet, top payload kept
  // Drop 16 bits with round-to-nearest-even; a carry ripples into the exponent (up to infinity).
  uint32_t lsb = (x >> 16) & 1;
  return uint16_t((x + 0x7fffu + lsb) >> 16);
}

uint16_t f64_to_f16(double d) {
  uint64_t x = std::bit_cast<uint64_t>(d);
  uint16_t sign = uint16_t((x >> 48) & 0x8000);
  uint64_t abs = x & 0x7fffffffffffffffull;
  if (abs >= 0x7ff0000000000000ull) {
    if (abs == 0x7ff0000000000000ull) return sign | 0x7c00;
    return sign | 0x7e00 | uint16_t((abs >> 42) & 0x3ff);
  }
  if (abs >= 0x40effe0000000000ull) return sign | 0x7c00;  // >= 65520
  if (abs < 0x3f10000000000000ull) {                       // below 2^-14
    double v = std::bit_cast<double>(abs) * 0x1p24;
    return sign | uint16_t(std::nearbyint(v));
  }
  uint64_t rebased = abs - (uint64_t(1023 - 15) << 52);
  uint64_t lsb = (rebased >> 42) & 1;
  return sign | uint16_t((rebased + ((uint64_t(1) << 41) - 1) + lsb) >> 42);
}

namespace {

// Rounds the real number s (exact in double) to an integer-valued double with the mode.
double round_integral(double s, RoundMode mode) {
  switch (mode) {
    case RoundMode::none:
    case RoundMode::rint: return std::nearbyint(s);  // default environment: ties to even
    case RoundMode::floor: return std::floor(s);
    case RoundMode::ceil: return std::ceil(s);
    case RoundMode::round: return std::round(s);
    case RoundMode::trunc: return std::trunc(s);
    case RoundMode::odd: {
      double t = std::trunc(s);
      if (t != s && std::fmod(t, 2.0) == 0.0) t += (s > 0 ? 1.0 : -1.0);
      return t;
    }
  }
  return s;
}

// Rounds finite x to a binary format with `mant` fraction bits and minimum normal exponent
// `emin`, returning the rounded value (possibly beyond the format's largest finite value).
double round_to_format(double x, int mant, int emin, RoundMode mode) {
  if (x == 0) return x;
  int e;
  std::frexp(x, &e);  // |x| in [2^(e-1), 2^e)
  int exponent = std::max(e - 1, emin);
  double quantum = std::ldexp(1.0, exponent - mant);
  return round_integral(x / quantum, mode) * quantum;
}

// What an overflowing result becomes: infinity, or the largest finite value for the modes that
// round toward zero on that side.
double overflow_value(double x, double max_finite, RoundMode mode) {
  bool positive = x > 0;
  bool to_max = mode == RoundMode::trunc || mode == RoundMode::odd ||
                (mode == RoundMode::floor && positive) || (mode == RoundMode::ceil && !positive);
  double inf = std::numeric_limits<double>::infinity();
  return positive ? (to_max ? max_finite : inf) : (to_max ? -max_finite : -inf);
}

}  // namespace

uint16_t double_to_f16(double x, RoundMode mode) {
  if (std::isnan(x)) return 0x7e00;
  if (std::isinf(x)) return x > 0 ? 0x7c00 : 0xfc00;
  double r = round_to_format(x, 10, -14, mode);
  if (std::fabs(r) > 65504.0) r = overflow_value(x, 65504.0, mode);
  // r is now exactly representable in f16 (or infinite), hence also in f32.
  uint16_t h = f32_to_f16(float(r));
  if (r == 0 && std::signbit(x)) h |= 0x8000;
  return h;
}

float double_to_f32(double x, RoundMode mode) {
  if (std::isnan(x) || std::isinf(x)) return float(x);
  constexpr double kMax = 0x1.fffffep127;
  double r = round_to_format(x, 23, -126, mode);
  if (std::fabs(r) > kMax) r = overflow_value(x, kMax, mode);
  float f = float(r);
  return (r == 0 && std::signbit(x)) ? -0.0f : f;
}

uint16_t double_to_bf16(double x, RoundMode mode) {
  if (std::isnan(x)) return 0x7fc0;
  if (std::isinf(x)) return x > 0 ? 0x7f80 : 0xff80;
  constexpr double kMax = 0x1.fep127;  // the largest finite bf16
  double r = round_to_format(x, 7, -126, mode);
  if (std::fabs(r) > kMax) r = overflow_value(x, kMax, mode);
  // r is now a bf16 value (or infinite), exact as an f32: its top half is the bf16.
  uint16_t b = uint16_t(std::bit_cast<uint32_t>(float(r)) >> 16);
  if (r == 0 && std::signbit(x)) b |= 0x8000;
  return b;
}

int64_t double_to_int(double x, RoundMode mode, int64_t lo, int64_t hi) {
  if (std::isnan(x)) return 0;
  double r = round_integral(x, mode);
  if (r <= double(lo)) return lo;
  if (r >= double(hi)) return hi;
  return int64_t(r);
}

}  // namespace cubekit
