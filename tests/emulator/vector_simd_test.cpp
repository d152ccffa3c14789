// emulator/vector_simd.h against the scalar path's definition, bit for bit (NaN payloads and the
// sign of zero included): f16 and f32 operands taken exactly into double, the operation there,
// one rounding to the dtype (f64_to_f16, or float()); max and min as the vector unit's: a canonical
// quiet NaN when either operand is NaN, else a > b ? a : b (a < b ? a : b). Every f16 value meets
// a set of special and random partners; f32 runs special values and random bit patterns. Also the
// conversions, exp into f32, and whole instructions through the emulator with the SIMD path on
// and off.
#include "emulator/rounding.h"
#include "emulator/vector_simd.h"
#include "harness.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace cubekit::test {
namespace {

template <class T>
const uint8_t* bytes(const std::vector<T>& v) { return reinterpret_cast<const uint8_t*>(v.data()); }

constexpr SimdOp kOps[] = {SimdOp::Add, SimdOp::Sub, SimdOp::Mul, SimdOp::Div, SimdOp::Max,
                               SimdOp::Min};

double reference(SimdOp op, double a, double b) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  switch (op) {
    case SimdOp::Add: return a + b;
    case SimdOp::Sub: return a - b;
    case SimdOp::Mul: return a * b;
    case SimdOp::Div: return a / b;
    case SimdOp::Max: return std::isnan(a) || std::isnan(b) ? nan : a > b ? a : b;
    case SimdOp::Min: return std::isnan(a) || std::isnan(b) ? nan : a < b ? a : b;
    case SimdOp::None:
    case SimdOp::Exp: break;
  }
  return 0;
}

std::vector<uint16_t> f16_partners() {
  std::vector<uint16_t> v = {0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x3c01, 0x7bff, 0xfbff,
                             0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe3f, 0x7d55, 0x1400, 0x5640, 0xc900};
  std::mt19937 rng(7);
  while (v.size() < 64) v.push_back(uint16_t(rng()));
  return v;
}

TEST(VectorSimd, F16OperationsMatchTheScalarDefinitionBitForBit) {
  if (!simd_available()) GTEST_SKIP() << "no AVX2 and F16C on this host";
  std::vector<uint16_t> a(128), b(128), d(128);
  int64_t checked = 0;
  for (SimdOp op : kOps)
    for (uint16_t partner : f16_partners())
      for (uint32_t first = 0; first < 65536; first += 128) {
        for (int i = 0; i < 128; ++i) a[size_t(i)] = uint16_t(first + uint32_t(i)), b[size_t(i)] = partner;
        // n = 128 and a ragged 77: the tail of a repeat goes through the partial loads
        for (int n : {128, 77}) {
          ASSERT_TRUE(simd_binary(op, DType::f16, {bytes(a)}, {bytes(b)}, reinterpret_cast<uint8_t*>(d.data()), 32, n));
          for (int i = 0; i < n; ++i, ++checked) {
            uint16_t want = f64_to_f16(reference(op, f16_to_f32(a[size_t(i)]), f16_to_f32(b[size_t(i)])));
            ASSERT_EQ(d[size_t(i)], want) << "op " << int(op) << " of " << std::hex << a[size_t(i)] << ", " << b[size_t(i)];
          }
        }
      }
  EXPECT_GT(checked, 40'000'000);
}

TEST(VectorSimd, F32OperationsMatchTheScalarDefinitionBitForBit) {
  if (!simd_available()) GTEST_SKIP() << "no AVX2 and F16C on this host";
  const std::vector<uint32_t> special = {0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x00800000, 0x3f800000,
                                         0xbf800000, 0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000, 0x7fc00000,
                                         0x7f800001, 0xffc12345, 0x33800000, 0x4b800001};
  std::mt19937 rng(11);
  std::vector<float> a(128), b(128), d(128);
  for (SimdOp op : kOps)
    for (int round = 0; round < 2000; ++round) {
      for (int i = 0; i < 128; ++i) {
        uint32_t x = round < 16 ? special[size_t(round)] : uint32_t(rng());
        uint32_t y = i < int(special.size()) ? special[size_t(i)] : uint32_t(rng());
        if (round % 3 == 0 && i >= int(special.size())) y = (x & 0xff800000u) | (y & 0x007fffffu);  // near x: cancellation
        a[size_t(i)] = std::bit_cast<float>(x), b[size_t(i)] = std::bit_cast<float>(y);
      }
      ASSERT_TRUE(simd_binary(op, DType::f32, {bytes(a)}, {bytes(b)}, reinterpret_cast<uint8_t*>(d.data()), 32, 128));
      for (int i = 0; i < 128; ++i) {
        float want = float(reference(op, double(a[size_t(i)]), double(b[size_t(i)])));
        ASSERT_EQ(std::bit_cast<uint32_t>(d[size_t(i)]), std::bit_cast<uint32_t>(want))
            << "op " << int(op) << " of " << std::hex << std::bit_cast<uint32_t>(a[size_t(i)]) << ", "
            << std::bit_cast<uint32_t>(b[size_t(i)]);
      }
    }
}

TEST(VectorSimd, ConversionsMatchTheScalarOnes) {
  if (!simd_available()) GTEST_SKIP() << "no AVX2 and F16C on this host";
  std::vector<uint16_t> h(128), h_back(128);
  std::vector<float> f(128);
  for (uint32_t first = 0; first < 65536; first += 128) {
    for (int i = 0; i < 128; ++i) h[size_t(i)] = uint16_t(first + uint32_t(i));
    ASSERT_TRUE(simd_convert(DType::f16, DType::f32, reinterpret_cast<uint8_t*>(h.data()), reinterpret_cast<uint8_t*>(f.data()), 128));
    for (int i = 0; i < 128; ++i)
      ASSERT_EQ(std::bit_cast<uint32_t>(f[size_t(i)]), std::bit_cast<uint32_t>(f16_to_f32(h[size_t(i)]))) << std::hex << h[size_t(i)];
  }
  std::mt19937 rng(3);
  for (int round = 0; round < 20000; ++round) {
    for (float& x : f) x = std::bit_cast<float>(uint32_t(rng()) >> (round % 4));  // all exponents, NaNs included
    ASSERT_TRUE(simd_convert(DType::f32, DType::f16, reinterpret_cast<uint8_t*>(f.data()), reinterpret_cast<uint8_t*>(h_back.data()), 100));
    for (int i = 0; i < 100; ++i) ASSERT_EQ(h_back[size_t(i)], f32_to_f16(f[size_t(i)])) << std::hex << std::bit_cast<uint32_t>(f[size_t(i)]);
  }
}

// In place (dst the first source): the repeat is read whole before it is written.
TEST(VectorSimd, ReadsTheRepeatBeforeWritingIt) {
  if (!simd_available()) GTEST_SKIP() << "no AVX2 and F16C on this host";
  std::vector<float> buf(130);
  for (int i = 0; i < 130; ++i) buf[size_t(i)] = float(i);
  const std::vector<float> before = buf;
  auto* p = reinterpret_cast<uint8_t*>(buf.data());
  ASSERT_TRUE(simd_binary(SimdOp::Add, DType::f32, {p + 8}, {p + 8}, p, 32, 64));  // writes [0, 64) from [2, 66)
  for (int i = 0; i < 64; ++i) EXPECT_EQ(buf[size_t(i)], 2 * before[size_t(i + 2)]) << i;
}

// Block strides: a row broadcast (src1's block stride 0, one block for every block of the repeat)
// and spread blocks (stride 3 blocks), against the vector unit's addressing element by element.
TEST(VectorSimd, FollowsBlockStrides) {
  if (!simd_available()) GTEST_SKIP() << "no AVX2 and F16C on this host";
  for (DType t : {DType::f16, DType::f32}) {
    const int size = t == DType::f16 ? 2 : 4, n = 256 / size;
    auto value = [&](const std::vector<uint8_t>& v, int64_t at) {
      return t == DType::f16 ? double(f16_to_f32(uint16_t(v[size_t(at)] | v[size_t(at + 1)] << 8)))
                             : double(std::bit_cast<float>(uint32_t(v[size_t(at)]) | uint32_t(v[size_t(at + 1)]) << 8 |
                                                           uint32_t(v[size_t(at + 2)]) << 16 | uint32_t(v[size_t(at + 3)]) << 24));
    };
    std::vector<uint8_t> a(1024), b(1024), d(1024, 0xee);
    std::mt19937 rng(5);
    for (size_t i = 0; i < a.size(); i += size_t(size)) {
      float x = float(int(rng() % 2001) - 1000) / 64, y = float(int(rng() % 2001) - 1000) / 64;
      if (t == DType::f16) {
        uint16_t hx = f32_to_f16(x), hy = f32_to_f16(y);
        std::memcpy(&a[i], &hx, 2), std::memcpy(&b[i], &hy, 2);
      } else {
        std::memcpy(&a[i], &x, 4), std::memcpy(&b[i], &y, 4);
      }
    }
    ASSERT_TRUE(simd_binary(SimdOp::Mul, t, {a.data(), 96}, {b.data(), 0}, d.data(), 64, n));
    for (int i = 0; i < n; ++i) {
      auto at = [&](int64_t blk) { return int64_t(i) * size / 32 * blk + int64_t(i) * size % 32; };
      double want = value(a, at(96)) * value(b, at(0));
      ASSERT_EQ(value(d, at(64)), t == DType::f16 ? double(f16_to_f32(f64_to_f16(want))) : double(float(want))) << i;
    }
  }
}

// vexp into f32: float(y) is float(std::exp(x)) bit for bit, on a sweep of every 4099th f32 bit
// pattern (all signs and exponents, so in and out of the polynomial's range, NaNs included), and
// on the edges of that range. (Run once over all 2^32 floats: no difference, with or without the
// lanes near a halfway point handed to std::exp.)
TEST(VectorSimd, ExpRoundsToTheSameFloatAsStdExp) {
  if (!simd_available()) GTEST_SKIP() << "no AVX2, F16C and FMA on this host";
  std::vector<double> x;
  for (uint64_t u = 0; u < (uint64_t(1) << 32); u += 4099) x.push_back(std::bit_cast<float>(uint32_t(u)));
  for (float edge : {-87.3f, 88.7f, -87.33654f, 88.72283f, -103.97f, -104.0f, 0.0f, -0.0f, 1e-30f, -1e-30f, 0.34657359f,
                     std::numeric_limits<float>::max()}) {
    float below = edge, above = edge;
    for (int ulps = 0; ulps < 4; ++ulps) {
      x.push_back(below), x.push_back(above);
      below = std::nextafter(below, -std::numeric_limits<float>::infinity());
      above = std::nextafter(above, std::numeric_limits<float>::infinity());
    }
  }
  x.resize((x.size() + 127) / 128 * 128, 1.0);
  std::vector<double> y(128);
  for (size_t first = 0; first < x.size(); first += 128) {
    const int n = int(first % 128) + 1 + int(first / 128 % 128);  // partial repeats too
    ASSERT_TRUE(simd_exp_to_f32(&x[first], y.data(), std::min(n, 128)));
    for (int i = 0; i < std::min(n, 128); ++i)
      ASSERT_EQ(std::bit_cast<uint32_t>(float(y[size_t(i)])), std::bit_cast<uint32_t>(float(std::exp(x[first + size_t(i)]))))
          << "e^" << x[first + size_t(i)];
  }
}

// Whole instructions through the emulator, SIMD path on and off: the same bytes.
TEST(VectorSimd, InstructionsGiveTheSameBytesWithTheSimdPathOnAndOff) {
  if (!simd_available()) GTEST_SKIP() << "no AVX2, F16C and FMA on this host";
  const std::string program =
      "    vexp.f32 ub[4096], ub[0], repeat=8\n"
      "    vexp.f32 ub[8192], ub[0], repeat=4, mask=37\n"
      "    vadd.f32 ub[12288], ub[0], ub[2048], repeat=4\n"
      "    vmax.f16 ub[16384], ub[0], ub[2048], repeat=4\n";
  std::vector<float> in(1024);
  std::mt19937 rng(11);
  for (float& v : in) v = float(int(rng() % 4001) - 3000) / 16;
  in[3] = std::numeric_limits<float>::quiet_NaN(), in[5] = -std::numeric_limits<float>::infinity(), in[9] = 100;
  std::vector<uint8_t> out[2];
  for (bool on : {true, false}) {
    Harness h(program);
    h.put(Space::UB, 0, in);
    set_simd_enabled(on);
    h.run_clean();
    set_simd_enabled(true);
    out[on] = h.get<uint8_t>(Space::UB, 4096, 16384);
  }
  ASSERT_EQ(out[0], out[1]);
  Harness h(program);  // and the values are e^x
  h.put(Space::UB, 0, in);
  h.run_clean();
  const std::vector<float> e = h.get<float>(Space::UB, 4096, 512);
  for (int i = 0; i < 512; ++i)
    ASSERT_EQ(std::bit_cast<uint32_t>(e[size_t(i)]), std::bit_cast<uint32_t>(float(std::exp(double(in[size_t(i)]))))) << i;
}

TEST(VectorSimd, SwitchedOffItLeavesTheWorkToTheCaller) {
  std::vector<float> a(8, 1.0f), d(8, 0.0f);
  set_simd_enabled(false);
  bool taken = simd_binary(SimdOp::Add, DType::f32, {bytes(a)}, {bytes(a)}, reinterpret_cast<uint8_t*>(d.data()), 32, 8);
  set_simd_enabled(true);
  EXPECT_FALSE(taken);
  EXPECT_EQ(d[0], 0.0f);
  EXPECT_FALSE(simd_binary(SimdOp::Add, DType::s32, {bytes(a)}, {bytes(a)}, reinterpret_cast<uint8_t*>(d.data()), 32, 8));
  // integers: the scalar path's
}

}  // namespace
}  // namespace cubekit::test
