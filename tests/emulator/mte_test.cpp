// Data movement (MTE): burst copies, byte-granular pad copies, atomic-add stores and the ND -> NZ
// conversion, each against a naive byte-by-byte model of its documented semantics. Every test
// fills the destination with random bytes first, so untouched bytes are checked too.
#include "harness.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cubekit::test {
namespace {

std::vector<uint8_t> random_bytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = uint8_t(rng());
  return v;
}

// Compares two byte ranges and names the first differing offset.
void expect_bytes(const uint8_t* got, const std::vector<uint8_t>& want, const std::string& what) {
  for (size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) {
      ADD_FAILURE() << what << ": byte " << i << " is " << int(got[i]) << ", want " << int(want[i]);
      return;
    }
}

int64_t ceil32(int64_t n) { return (n + 31) / 32 * 32; }

// ---- burst copies -------------------------------------------------------------------------------
struct BurstCase {
  int op;  // index into kOps
  int64_t nburst, len, src_gap, dst_gap, src_off, dst_off;
};
struct BurstOp {
  const char* mnemonic;
  bool src_gm, dst_gm;
  Space src, dst;  // the buffer on the non-GM side(s)
};
const BurstOp kOps[] = {{"copy_gm_l1", true, false, Space::GM, Space::L1},
                        {"copy_gm_ub", true, false, Space::GM, Space::UB},
                        {"copy_l1_ub", false, false, Space::L1, Space::UB},
                        {"copy_ub_gm", false, true, Space::UB, Space::GM}};

class MteBurst : public testing::TestWithParam<BurstCase> {};

TEST_P(MteBurst, MatchesNaiveBursts) {
  const BurstCase& c = GetParam();
  const BurstOp& op = kOps[c.op];
  int64_t src_extent = c.src_off + c.nburst * (c.len + c.src_gap) * 32 + 64;
  int64_t dst_extent = c.dst_off + c.nburst * (c.len + c.dst_gap) * 32 + 64;
  int64_t gm_size = op.src_gm ? src_extent : dst_extent;
  auto operand = [](bool gm, Space s, int64_t off) {
    return (gm ? std::string("G") : std::string(space_name(s))) + "[" + std::to_string(off) + "]";
  };
  Harness h(".tensor G u8 [" + std::to_string(gm_size) + "] inout\n" + op.mnemonic + " " +
            operand(op.dst_gm, op.dst, c.dst_off) + ", " + operand(op.src_gm, op.src, c.src_off) +
            ", nburst=" + std::to_string(c.nburst) + ", len=" + std::to_string(c.len) +
            ", src_gap=" + std::to_string(c.src_gap) + ", dst_gap=" + std::to_string(c.dst_gap));
  uint8_t* src = op.src_gm ? h.tensor("G") : h.at(op.src, 0);
  uint8_t* dst = op.dst_gm ? h.tensor("G") : h.at(op.dst, 0);
  std::vector<uint8_t> src_bytes = random_bytes(size_t(src_extent), 1), dst_bytes = random_bytes(size_t(dst_extent), 2);
  std::memcpy(src, src_bytes.data(), src_bytes.size());
  std::memcpy(dst, dst_bytes.data(), dst_bytes.size());
  std::vector<uint8_t> want = dst_bytes;
  for (int64_t b = 0; b < c.nburst; ++b)
    for (int64_t i = 0; i < c.len * 32; ++i)
      want[size_t(c.dst_off + b * (c.len + c.dst_gap) * 32 + i)] = src_bytes[size_t(c.src_off + b * (c.len + c.src_gap) * 32 + i)];
  h.run_clean();
  expect_bytes(dst, want, op.mnemonic);
}

std::vector<BurstCase> burst_cases() {
  std::vector<BurstCase> out;
  for (int op = 0; op < 4; ++op) {
    bool gm_src = kOps[op].src_gm, gm_dst = kOps[op].dst_gm;
    int64_t src_off = gm_src ? 5 : 96, dst_off = gm_dst ? 7 : 64;  // GM needs no alignment for plain copies
    out.push_back({op, 1, 1, 0, 0, 0, 0});
    out.push_back({op, 1, 3, 0, 0, src_off, dst_off});
    out.push_back({op, 4, 2, 1, 0, src_off, dst_off});
    out.push_back({op, 3, 1, 0, 2, src_off, dst_off});
    out.push_back({op, 5, 3, 2, 4, src_off, dst_off});
    out.push_back({op, 2, 7, 13, 1, 0, dst_off});
  }
  return out;
}

std::string burst_name(const testing::TestParamInfo<BurstCase>& i) {
  const BurstCase& c = i.param;
  return std::string(kOps[c.op].mnemonic) + "_n" + std::to_string(c.nburst) + "_len" + std::to_string(c.len) + "_sg" +
         std::to_string(c.src_gap) + "_dg" + std::to_string(c.dst_gap) + "_so" + std::to_string(c.src_off) + "_do" +
         std::to_string(c.dst_off);
}
INSTANTIATE_TEST_SUITE_P(Mte, MteBurst, testing::ValuesIn(burst_cases()), burst_name);

TEST(MteBurstAddress, RegisterPlusImmediate) {
  Harness h(".tensor G u8 [4096] in\n li x1, 100\n li x2, 64\n copy_gm_ub ub[x2 + 32], G[x1 + 3], nburst=2, len=1, src_gap=1, dst_gap=1");
  std::vector<uint8_t> g = random_bytes(4096, 3), ub = random_bytes(512, 4);
  std::memcpy(h.tensor("G"), g.data(), g.size());
  h.put(Space::UB, 0, ub);
  std::vector<uint8_t> want = ub;
  for (int b = 0; b < 2; ++b) std::memcpy(&want[size_t(96 + b * 64)], &g[size_t(103 + b * 64)], 32);
  h.run_clean();
  expect_bytes(h.at(Space::UB, 0), want, "ub");
}

// ---- pad copies ---------------------------------------------------------------------------------
struct PadCase {
  int64_t nburst, len, src_gap, dst_gap, src_off, dst_off;
};
class MtePadIn : public testing::TestWithParam<PadCase> {};
class MtePadOut : public testing::TestWithParam<PadCase> {};

// copy_gm_ub_pad: GM side in bytes, UB side padded to whole blocks, the rest of the last block zero.
TEST_P(MtePadIn, CopiesBytesAndZeroFillsTheLastBlock) {
  const PadCase& c = GetParam();
  int64_t gm_size = c.src_off + c.nburst * (c.len + c.src_gap) + 16;
  int64_t ub_extent = c.dst_off + c.nburst * (ceil32(c.len) + c.dst_gap * 32) + 64;
  Harness h(".tensor G u8 [" + std::to_string(gm_size) + "] in\ncopy_gm_ub_pad ub[" + std::to_string(c.dst_off) + "], G[" +
            std::to_string(c.src_off) + "], nburst=" + std::to_string(c.nburst) + ", len=" + std::to_string(c.len) +
            ", src_gap=" + std::to_string(c.src_gap) + ", dst_gap=" + std::to_string(c.dst_gap));
  std::vector<uint8_t> g = random_bytes(size_t(gm_size), 5), ub = random_bytes(size_t(ub_extent), 6);
  std::memcpy(h.tensor("G"), g.data(), g.size());
  h.put(Space::UB, 0, ub);
  std::vector<uint8_t> want = ub;
  for (int64_t b = 0; b < c.nburst; ++b) {
    int64_t d = c.dst_off + b * (ceil32(c.len) + c.dst_gap * 32), s = c.src_off + b * (c.len + c.src_gap);
    for (int64_t i = 0; i < ceil32(c.len); ++i) want[size_t(d + i)] = i < c.len ? g[size_t(s + i)] : 0;
  }
  h.run_clean();
  expect_bytes(h.at(Space::UB, 0), want, "ub");
}

// copy_ub_gm_pad: UB side in blocks, GM side in bytes; only `len` bytes per burst are written.
TEST_P(MtePadOut, WritesOnlyLenBytesOfGm) {
  const PadCase& c = GetParam();
  int64_t ub_extent = c.src_off + c.nburst * (ceil32(c.len) + c.src_gap * 32) + 64;
  int64_t gm_size = c.dst_off + c.nburst * (c.len + c.dst_gap) + 16;
  Harness h(".tensor G u8 [" + std::to_string(gm_size) + "] inout\ncopy_ub_gm_pad G[" + std::to_string(c.dst_off) +
            "], ub[" + std::to_string(c.src_off) + "], nburst=" + std::to_string(c.nburst) + ", len=" +
            std::to_string(c.len) + ", src_gap=" + std::to_string(c.src_gap) + ", dst_gap=" + std::to_string(c.dst_gap));
  std::vector<uint8_t> g = random_bytes(size_t(gm_size), 7), ub = random_bytes(size_t(ub_extent), 8);
  std::memcpy(h.tensor("G"), g.data(), g.size());
  h.put(Space::UB, 0, ub);
  std::vector<uint8_t> want = g;
  for (int64_t b = 0; b < c.nburst; ++b) {
    int64_t s = c.src_off + b * (ceil32(c.len) + c.src_gap * 32), d = c.dst_off + b * (c.len + c.dst_gap);
    for (int64_t i = 0; i < c.len; ++i) want[size_t(d + i)] = ub[size_t(s + i)];
  }
  h.run_clean();
  expect_bytes(h.tensor("G"), want, "G");
  expect_bytes(h.at(Space::UB, 0), ub, "ub (source unchanged)");
}

// (nburst, len bytes, GM-side gap in bytes / UB-side gap in blocks, offsets)
const PadCase kPadIn[] = {{1, 1, 0, 0, 0, 0},     {1, 31, 0, 0, 3, 32},   {3, 5, 3, 1, 1, 64},   {2, 32, 0, 0, 0, 0},
                          {4, 33, 7, 2, 9, 96},   {2, 64, 1, 0, 2, 0},    {5, 100, 0, 0, 0, 32}, {3, 47, 100, 3, 17, 0}};
const PadCase kPadOut[] = {{1, 1, 0, 0, 0, 0},    {1, 31, 0, 0, 32, 3},   {3, 5, 1, 3, 64, 1},   {2, 32, 0, 0, 0, 0},
                           {4, 33, 2, 7, 96, 9},  {2, 64, 0, 1, 0, 2},    {5, 100, 0, 0, 32, 0}, {3, 47, 3, 100, 0, 17}};
std::string pad_name(const testing::TestParamInfo<PadCase>& i) {
  const PadCase& c = i.param;
  return "n" + std::to_string(c.nburst) + "_len" + std::to_string(c.len) + "_sg" + std::to_string(c.src_gap) + "_dg" +
         std::to_string(c.dst_gap) + "_so" + std::to_string(c.src_off) + "_do" + std::to_string(c.dst_off);
}
INSTANTIATE_TEST_SUITE_P(Mte, MtePadIn, testing::ValuesIn(kPadIn), pad_name);
INSTANTIATE_TEST_SUITE_P(Mte, MtePadOut, testing::ValuesIn(kPadOut), pad_name);

// ---- atomic adds --------------------------------------------------------------------------------
// The binary16 nearest-even rounding of a value exact in double (an independent reference).
uint16_t round_f16(double x) {
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  double a = std::fabs(x);
  if (a >= 65520.0) return sign | 0x7c00;
  int e2;
  std::frexp(a, &e2);
  int q = std::max(e2 - 1, -14) - 10;  // quantum 2^q
  double n = std::ldexp(a, -q), fl = std::floor(n);
  if (n - fl > 0.5 || (n - fl == 0.5 && std::fmod(fl, 2.0) == 1.0)) fl += 1;
  double v = std::ldexp(fl, q);
  if (v < 0x1p-14) return sign | uint16_t(v * 0x1p24);
  std::frexp(v, &e2);
  int e = e2 - 1;
  return sign | uint16_t((e + 15) << 10) | uint16_t((std::ldexp(v, -e) - 1.0) * 1024);
}
double f16_value(uint16_t h) {  // decoded independently
  int e = (h >> 10) & 0x1f;
  double v = e == 0 ? std::ldexp(double(h & 0x3ff), -24) : std::ldexp(double(1024 + (h & 0x3ff)), e - 25);
  return (h & 0x8000) ? -v : v;
}

TEST(MteAtomic, RoundF16ReferenceSpotChecks) {
  EXPECT_EQ(round_f16(2049.0), 0x6800);  // tie -> 2048 (even)
  EXPECT_EQ(round_f16(2051.0), 0x6802);  // tie -> 2052
  EXPECT_EQ(round_f16(65519.0), 0x7bff);
  EXPECT_EQ(round_f16(-65520.0), 0xfc00);
  EXPECT_EQ(round_f16(0x1p-25), 0x0000);
  EXPECT_EQ(round_f16(0x3p-25), 0x0002);
  EXPECT_EQ(round_f16(1.0), 0x3c00);
}

// Random f16 pairs over the whole finite range, plus crafted ties, overflow and cancellation.
std::pair<std::vector<uint16_t>, std::vector<uint16_t>> f16_pairs(size_t n) {
  std::mt19937_64 rng(9);
  std::vector<uint16_t> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    auto finite = [&] {
      uint16_t h;
      do h = uint16_t(rng()); while ((h & 0x7c00) == 0x7c00);
      return h;
    };
    a[i] = finite();
    b[i] = i % 3 ? finite() : uint16_t((a[i] & 0x83ff) | ((rng() % 12 + ((a[i] >> 10) & 0x1f) / 2) << 10));
  }
  const uint16_t crafted[][2] = {{0x6800, 0x3c00}, {0x6801, 0x3c00}, {0xe800, 0xbc00}, {0x7bff, 0x4c00},
                                 {0x7bff, 0x4800}, {0x3c00, 0xbc00}, {0x8000, 0x8000}, {0x0001, 0x0001},
                                 {0x03ff, 0x0001}, {0x7bff, 0x7bff}, {0x0000, 0x8000}, {0x3c00, 0x1000}};
  for (size_t i = 0; i < std::size(crafted) && i < n; ++i) a[i] = crafted[i][0], b[i] = crafted[i][1];
  return {a, b};
}

TEST(MteAtomic, CopyUbGmF16AddsRoundedToNearestEven) {
  // 3 bursts of 2 blocks (32 halves), UB gap 1 block, GM gap 2 blocks.
  const int nburst = 3, len = 2, src_gap = 1, dst_gap = 2, per = len * 16;
  Harness h(".tensor D f16 [512] inout\ncopy_ub_gm D[64], ub[32], nburst=3, len=2, src_gap=1, dst_gap=2, atomic=f16");
  auto [gm, ub] = f16_pairs(512);
  std::memcpy(h.tensor("D"), gm.data(), 1024);
  h.put(Space::UB, 0, ub);
  std::vector<uint16_t> want = gm;
  for (int b = 0; b < nburst; ++b)
    for (int i = 0; i < per; ++i) {
      size_t d = 32 + b * (len + dst_gap) * 16 + i, s = 16 + b * (len + src_gap) * 16 + i;
      want[d] = round_f16(f16_value(gm[d]) + f16_value(ub[s]));
    }
  h.run_clean();
  std::vector<uint16_t> got(512);
  std::memcpy(got.data(), h.tensor("D"), 1024);
  for (size_t i = 0; i < 512; ++i)
    EXPECT_EQ(got[i], want[i]) << "element " << i << ": " << gm[i] << " + ub";
}

TEST(MteAtomic, CopyUbGmF32Adds) {
  Harness h(".tensor D f32 [256] inout\ncopy_ub_gm D[32], ub[64], nburst=2, len=3, src_gap=2, dst_gap=1, atomic=f32");
  std::mt19937_64 rng(10);
  std::vector<float> gm(256), ub(256);
  for (size_t i = 0; i < 256; ++i) {
    gm[i] = std::ldexp(float(int(rng() % 2000001) - 1000000), int(rng() % 60) - 40);
    ub[i] = std::ldexp(float(int(rng() % 2000001) - 1000000), int(rng() % 60) - 40);
  }
  gm[8] = 3e38f, ub[16] = 3e38f;    // overflow to inf
  gm[9] = 1.0f, ub[17] = 0x1p-24f;  // tie, to even
  gm[10] = -2.5f, ub[18] = 2.5f;    // +0
  h.put(Space::UB, 0, ub);
  std::memcpy(h.tensor("D"), gm.data(), 1024);
  std::vector<float> want = gm;
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 24; ++i) {
      size_t d = 8 + b * 4 * 8 + i, s = 16 + b * 5 * 8 + i;
      want[d] = gm[d] + ub[s];
    }
  h.run_clean();
  std::vector<float> got(256);
  std::memcpy(got.data(), h.tensor("D"), 1024);
  for (size_t i = 0; i < 256; ++i)
    EXPECT_EQ(std::bit_cast<uint32_t>(got[i]), std::bit_cast<uint32_t>(want[i])) << "element " << i;
}

TEST(MteAtomic, CopyUbGmS32AddsWrapping) {
  Harness h(".tensor D s32 [128] inout\ncopy_ub_gm D[0], ub[0], nburst=2, len=2, dst_gap=1, atomic=s32");
  std::mt19937_64 rng(11);
  std::vector<int32_t> gm(128), ub(128);
  for (auto& v : gm) v = int32_t(uint32_t(rng()));
  for (auto& v : ub) v = int32_t(uint32_t(rng()));
  gm[0] = INT32_MAX, ub[0] = 1;
  gm[1] = INT32_MIN, ub[1] = -1;
  h.put(Space::UB, 0, ub);
  std::memcpy(h.tensor("D"), gm.data(), 512);
  std::vector<int32_t> want = gm;
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 16; ++i) want[size_t(b * 24 + i)] = int32_t(uint32_t(gm[size_t(b * 24 + i)]) + uint32_t(ub[size_t(b * 16 + i)]));
  h.run_clean();
  std::vector<int32_t> got(128);
  std::memcpy(got.data(), h.tensor("D"), 512);
  EXPECT_EQ(got, want);
  EXPECT_EQ(got[0], INT32_MIN);
  EXPECT_EQ(got[1], INT32_MAX);
}

TEST(MteAtomic, CopyUbGmPadAddsOnlyLenBytes) {
  // f16: 3 elements per burst, bursts 4 bytes apart in GM (2 halves), UB bursts one block apart + 1.
  Harness h(".tensor D f16 [64] inout\n.tensor E s32 [32] inout\n"
            "copy_ub_gm_pad D[2], ub[0], nburst=3, len=6, src_gap=1, dst_gap=4, atomic=f16\n"
            "copy_ub_gm_pad E[4], ub[256], nburst=2, len=12, dst_gap=8, atomic=s32");
  auto [gm, ub] = f16_pairs(64);
  std::memcpy(h.tensor("D"), gm.data(), 128);
  std::vector<uint16_t> ub16(128);
  std::copy(ub.begin(), ub.end(), ub16.begin());
  h.put(Space::UB, 0, ub16);
  std::vector<int32_t> e(32), ub32(16);
  for (int i = 0; i < 32; ++i) e[size_t(i)] = i * 1000 - 7;
  for (int i = 0; i < 16; ++i) ub32[size_t(i)] = INT32_MAX - i;
  std::memcpy(h.tensor("E"), e.data(), 128);
  h.put(Space::UB, 256, ub32);
  std::vector<uint16_t> want = gm;
  for (int b = 0; b < 3; ++b)
    for (int i = 0; i < 3; ++i) {
      size_t d = 1 + b * 5 + i, s = b * 32 + i;
      want[d] = round_f16(f16_value(gm[d]) + f16_value(ub16[s]));
    }
  std::vector<int32_t> want_e = e;
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 3; ++i) {
      size_t d = 1 + b * 5 + i, s = b * 8 + i;
      want_e[d] = int32_t(uint32_t(e[d]) + uint32_t(ub32[s]));
    }
  h.run_clean();
  std::vector<uint16_t> got(64);
  std::memcpy(got.data(), h.tensor("D"), 128);
  EXPECT_EQ(got, want);
  std::vector<int32_t> got_e(32);
  std::memcpy(got_e.data(), h.tensor("E"), 128);
  EXPECT_EQ(got_e, want_e);
}

// ---- ND -> NZ -----------------------------------------------------------------------------------
struct NzCase {
  bool s8;
  int64_t rows, cols, src_stride, dst_rows, src_off, dst_off;  // src_off in elements, dst_off in bytes
};
std::string nz_name(const testing::TestParamInfo<NzCase>& i) {
  const NzCase& c = i.param;
  return std::string(c.s8 ? "s8" : "f16") + "_" + std::to_string(c.rows) + "x" + std::to_string(c.cols) + "_s" +
         std::to_string(c.src_stride) + "_d" + std::to_string(c.dst_rows) + "_o" + std::to_string(c.src_off);
}
class MteNd2Nz : public testing::TestWithParam<NzCase> {};

TEST_P(MteNd2Nz, EveryElementOfTheDestination) {
  const NzCase& c = GetParam();
  int size = c.s8 ? 1 : 2, c0 = 32 / size;
  int64_t blocks = (c.cols + c0 - 1) / c0, region = blocks * c.dst_rows * 32;
  int64_t src_elems = c.src_off + c.rows * c.src_stride + 7;
  Harness h(".tensor A " + std::string(c.s8 ? "s8" : "f16") + " [" + std::to_string(src_elems) + "] in\n" +
            "copy_gm_l1_nd2nz." + (c.s8 ? "s8" : "f16") + " l1[" + std::to_string(c.dst_off) + "], A[" +
            std::to_string(c.src_off * size) + "], rows=" + std::to_string(c.rows) + ", cols=" + std::to_string(c.cols) +
            ", src_stride=" + std::to_string(c.src_stride) + ", dst_rows=" + std::to_string(c.dst_rows));
  // Source: distinct nonzero ids for f16 (id = element index + 1), nonzero random bytes for s8.
  std::vector<uint8_t> src(size_t(src_elems * size));
  std::mt19937_64 rng(12);
  for (int64_t e = 0; e < src_elems; ++e) {
    if (c.s8) src[size_t(e)] = uint8_t(1 + rng() % 255);
    else {
      uint16_t id = uint16_t(e + 1);
      std::memcpy(&src[size_t(e * 2)], &id, 2);
    }
  }
  std::memcpy(h.tensor("A"), src.data(), src.size());
  std::vector<uint8_t> l1 = random_bytes(size_t(c.dst_off + region + 96), 13);
  h.put(Space::L1, 0, l1);
  h.run_clean();

  // Naive: destination element (row r, column c) of block j is at ((j*dst_rows + r)*C0 + c%C0).
  std::vector<uint8_t> want = l1;
  for (int64_t j = 0; j < blocks; ++j)
    for (int64_t r = 0; r < c.dst_rows; ++r)
      for (int64_t k = 0; k < c0; ++k) {
        int64_t col = j * c0 + k, at = c.dst_off + ((j * c.dst_rows + r) * c0 + k) * size;
        bool inside = r < c.rows && col < c.cols;
        for (int byte = 0; byte < size; ++byte)
          want[size_t(at + byte)] = inside ? src[size_t((c.src_off + r * c.src_stride + col) * size + byte)] : 0;
      }
  expect_bytes(h.at(Space::L1, 0), want, "l1");

  if (c.s8) return;
  // Round trip (f16): every id in the region names a source (r, c) inside the matrix, found at
  // its NZ position, and every (r, c) is found.
  int64_t found = 0;
  for (int64_t e = 0; e < region / 2; ++e) {
    uint16_t id;
    std::memcpy(&id, h.at(Space::L1, c.dst_off + e * 2), 2);
    if (id == 0) continue;
    int64_t idx = int64_t(id) - 1 - c.src_off, r = idx / c.src_stride, col = idx % c.src_stride;
    ASSERT_TRUE(idx >= 0 && r < c.rows && col < c.cols) << "stray element " << id << " at " << e;
    EXPECT_EQ(e, ((col / 16) * c.dst_rows + r) * 16 + col % 16) << "(" << r << ", " << col << ")";
    ++found;
  }
  EXPECT_EQ(found, c.rows * c.cols);
}

const NzCase kNz[] = {
    {false, 1, 1, 1, 16, 0, 0},     {false, 5, 7, 9, 16, 3, 32},    {false, 16, 16, 16, 16, 0, 0},
    {false, 17, 33, 40, 32, 1, 64}, {false, 31, 20, 20, 48, 0, 0},  {false, 3, 40, 45, 16, 2, 0},
    {false, 20, 16, 16, 64, 0, 96}, {false, 1, 100, 100, 16, 5, 0}, {true, 1, 1, 1, 16, 0, 0},
    {true, 20, 70, 75, 32, 3, 32},  {true, 16, 32, 32, 16, 0, 0},   {true, 33, 31, 40, 48, 1, 0},
    {true, 7, 64, 64, 16, 0, 64},   {true, 5, 100, 128, 16, 9, 0},
};
INSTANTIATE_TEST_SUITE_P(Mte, MteNd2Nz, testing::ValuesIn(kNz), nz_name);

}  // namespace
}  // namespace cubekit::test
