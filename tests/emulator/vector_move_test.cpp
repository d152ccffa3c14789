// Correctness of the vector unit's data movement: vconv (every type pair and rounding mode, integer
// saturation and NaN -> 0, the width-changing addressing), vbrcb, vtranspose and mov_l0c_ub, against
// naive references written from docs/isa.md. The conversion reference is independent of the
// emulator's rounding code: a float result is found by bracketing the exact value between two
// adjacent bit patterns of the target format and choosing one by the mode; an integer result by
// floor/ceil and the mode, then saturation. A NaN result only has to be some NaN.
#include "harness.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace cubekit::test {
namespace {

enum Ty { F16, F32, S8, U8, S16, U16, S32 };
constexpr const char* kTyName[] = {"f16", "f32", "s8", "u8", "s16", "u16", "s32"};
constexpr int kTySize[] = {2, 4, 1, 1, 2, 2, 4};
bool is_fp(Ty t) { return t == F16 || t == F32; }
constexpr int64_t kUB = 256 << 10;

uint64_t load_bits(const uint8_t* p, int size) {
  uint64_t v = 0;
  std::memcpy(&v, p, size);
  return v;
}
double bits_value(uint64_t b, Ty t) {
  switch (t) {
    case F16: return f16_to_f32(uint16_t(b));
    case F32: return std::bit_cast<float>(uint32_t(b));
    case S8: return int8_t(b);
    case U8: return uint8_t(b);
    case S16: return int16_t(b);
    case U16: return uint16_t(b);
    case S32: return int32_t(b);
  }
  return 0;
}
bool is_nan_bits(uint64_t b, Ty t) { return is_fp(t) && std::isnan(bits_value(b, t)); }

// ---- the conversion reference -----------------------------------------------------------------------
enum Mode { kNone, kRint, kFloor, kCeil, kRound, kTrunc, kOdd };
const char* kModeName[] = {"none", "rint", "floor", "ceil", "round", "trunc", "odd"};

// Value of a non-negative bit pattern of f16/f32; the pattern after the largest finite one (infinity)
// counts as the next power of two, so overflow is decided like any other rounding.
double pattern_value(uint64_t p, Ty t) {
  if (t == F16) return p == 0x7c00 ? 65536.0 : double(f16_to_f32(uint16_t(p)));
  return p == 0x7f800000 ? std::ldexp(1.0, 128) : double(std::bit_cast<float>(uint32_t(p)));
}
uint64_t to_float_bits(double x, Ty t, Mode mode) {
  uint64_t inf = t == F16 ? 0x7c00 : 0x7f800000, sign = t == F16 ? 0x8000 : 0x80000000;
  if (std::isnan(x)) return inf | (inf >> 1);  // some NaN
  uint64_t s = std::signbit(x) ? sign : 0;
  double m = std::fabs(x);
  if (std::isinf(x)) return s | inf;
  uint64_t lo = 0, hi = inf;  // largest pattern with value <= m, by bisection over [0, inf - 1]
  while (hi - lo > 1) {
    uint64_t mid = (lo + hi) / 2;
    (pattern_value(mid, t) <= m ? lo : hi) = mid;
  }
  if (pattern_value(lo, t) == m) return s | lo;
  uint64_t up = lo + 1;  // m lies strictly between lo and up (up may be infinity)
  double mid = (pattern_value(lo, t) + pattern_value(up, t)) / 2;
  bool neg = s != 0, pick_up = false;
  switch (mode) {
    case kNone:
    case kRint: pick_up = m > mid || (m == mid && (up & 1) == 0); break;
    case kRound: pick_up = m >= mid; break;
    case kFloor: pick_up = neg; break;
    case kCeil: pick_up = !neg; break;
    case kTrunc: pick_up = false; break;
    case kOdd: pick_up = (up & 1) == 1; break;
  }
  return s | (pick_up ? up : lo);
}
int64_t to_int(double x, Ty t, Mode mode) {
  if (std::isnan(x)) return 0;
  double f = std::floor(x), c = std::ceil(x), r = 0;
  switch (mode) {
    case kNone:
    case kRint: r = x - f < c - x ? f : x - f > c - x ? c : std::fmod(f, 2) == 0 ? f : c; break;
    case kRound: r = x - f < c - x ? f : x - f > c - x ? c : x > 0 ? c : f; break;
    case kFloor: r = f; break;
    case kCeil: r = c; break;
    case kTrunc: r = x < 0 ? c : f; break;
    case kOdd: r = f == c ? f : std::fmod(f, 2) != 0 ? f : c; break;
  }
  double lo = t == S8 ? -128 : t == U8 ? 0 : t == S16 ? -32768 : -2147483648.0;
  double hi = t == S8 ? 127 : t == U8 ? 255 : t == S16 ? 32767 : 2147483647.0;
  return int64_t(std::clamp(r, lo, hi));
}
uint64_t convert(double x, Ty to, Mode mode) {
  if (is_fp(to)) return to_float_bits(x, to, mode);
  uint64_t mask = kTySize[to] == 8 ? ~0ull : (1ull << (8 * kTySize[to])) - 1;
  return uint64_t(to_int(x, to, mode)) & mask;
}

struct Pair {
  Ty to, from;
};
const Pair kPairs[] = {{F16, F32}, {F32, F16}, {S32, F32}, {F32, S32}, {S32, F16}, {F16, S32},
                       {S8, F16},  {F16, S8},  {U8, F16},  {F16, U8},  {S16, F16}, {F16, S16}};
std::string pair_name(Pair p) { return std::string(kTyName[p.to]) + "." + kTyName[p.from]; }

// Source values (bit patterns): every pattern of 8- and 16-bit sources; for 32-bit sources, corner
// cases, ties of every kind and random values.
std::vector<uint64_t> sources(Ty from) {
  std::vector<uint64_t> v;
  if (kTySize[from] <= 2) {
    for (uint64_t b = 0; b < (1ull << (8 * kTySize[from])); ++b) v.push_back(b);
    return v;
  }
  std::mt19937_64 rng(5 + from);
  auto add = [&](double x) { v.push_back(from == F32 ? std::bit_cast<uint32_t>(float(x)) : uint32_t(int32_t(int64_t(x)))); };
  if (from == F32) {
    for (uint64_t b : {0x0ull, 0x80000000ull, 0x1ull, 0x80000001ull, 0x7fffffull, 0x800000ull, 0x7f7fffffull, 0xff7fffffull,
                       0x7f800000ull, 0xff800000ull, 0x7fc00000ull, 0xffc00001ull, 0x7f800001ull, 0x4effffffull, 0x4f000000ull,
                       0xcf000000ull, 0xcf000001ull, 0x4f000001ull, 0x477fefffull, 0x477ff000ull, 0x477ff001ull})
      v.push_back(b);
    for (int k = -300; k <= 300; ++k) add(k * 0.25), add(k + 0.5);
    for (double x : {65504.0, 65520.0, 65536.0, 1e5, 1e10, -1e10, 0x1p-24, 0x1p-25, 0x3p-25, 0x1p-14, 0x1p-15 + 0x1p-25,
                     2147483520.0, -2147483648.0, 128.0, -129.0, 255.5, 256.0, 32767.5, -32768.5})
      add(x), add(-x);
    for (int k = 0; k < 1500; ++k) {  // f16 ties and near-ties, in every binade
      uint16_t h = uint16_t(rng() % 0x7c00);
      double q = h < 0x0400 ? 0x1p-24 : std::ldexp(1.0, ((h >> 10) & 0x1f) - 25);
      double base = f16_to_f32(h) * (rng() % 2 ? 1 : -1);
      add(base + (base < 0 ? -1 : 1) * q * (k % 3 == 0 ? 0.5 : k % 3 == 1 ? 0.25 : 0.75));
    }
    for (int k = 0; k < 1500; ++k) v.push_back(uint32_t(rng()));
    std::uniform_real_distribution<double> wide(-70000, 70000), narrow(-300, 300);
    for (int k = 0; k < 1000; ++k) add(wide(rng)), add(narrow(rng));
  } else {
    for (double x : {0.0, 1.0, -1.0, 2147483647.0, -2147483648.0, 16777217.0, 16777219.0, 33554434.0, 33554438.0,
                     65504.0, 65519.0, 65520.0, 65535.0, 65536.0, 100000.0, 2049.0, 2051.0, 4097.0, 2147483584.0})
      add(x), add(-x);
    std::uniform_int_distribution<int64_t> small(-70000, 70000);
    for (int k = 0; k < 2000; ++k) v.push_back(uint32_t(rng()));
    for (int k = 0; k < 1000; ++k) add(double(small(rng)));
  }
  return v;
}

class VectorConvert : public ::testing::TestWithParam<std::tuple<int, int>> {};

// Every source value through the instruction, contiguous operands (each repeat stride set to the
// operand's 256 / wider-size elements), in chunks of up to 255 repeats.
TEST_P(VectorConvert, EveryValueMatchesReference) {
  Pair p = kPairs[std::get<0>(GetParam())];
  Mode mode = Mode(std::get<1>(GetParam()));
  int ds = kTySize[p.to], ss = kTySize[p.from], epr = 256 / std::max(ds, ss);
  std::vector<uint64_t> src = sources(p.from);
  int64_t done = 0, bad = 0;
  while (done < int64_t(src.size())) {
    int64_t n = std::min<int64_t>(int64_t(src.size()) - done, 255 * epr);
    std::ostringstream text;
    text << "vconv." << pair_name(p) << " ub[131072], ub[0], dst_rep=" << epr * ds / 32 << ", src_rep=" << epr * ss / 32
         << ", mask=counter:" << n << (mode == kNone ? std::string() : std::string(", round=") + kModeName[mode]) << "\n";
    SCOPED_TRACE(text.str());
    Harness h(text.str());
    for (int64_t i = 0; i < n; ++i) std::memcpy(h.at(Space::UB, i * ss), &src[done + i], ss);
    std::memset(h.at(Space::UB, 131072), 0xa5, (n + 64) * ds);
    h.run_clean();
    for (int64_t i = 0; i < n; ++i) {
      uint64_t got = load_bits(h.at(Space::UB, 131072 + i * ds), ds);
      uint64_t want = convert(bits_value(src[done + i], p.from), p.to, mode);
      if (got == want || (is_nan_bits(want, p.to) && is_nan_bits(got, p.to))) continue;
      if (++bad <= 8)
        ADD_FAILURE() << "source 0x" << std::hex << src[done + i] << " (" << bits_value(src[done + i], p.from)
                      << "): expected 0x" << want << ", got 0x" << got;
    }
    EXPECT_EQ(load_bits(h.at(Space::UB, 131072 + n * ds), ds), load_bits((const uint8_t*)"\xa5\xa5\xa5\xa5", ds))
        << "wrote past the counted elements";
    done += n;
  }
  EXPECT_EQ(bad, 0) << "mismatches in all";
}
INSTANTIATE_TEST_SUITE_P(VectorAll, VectorConvert, ::testing::Combine(::testing::Range(0, 12), ::testing::Range(0, 7)),
                         [](const auto& i) {
                           Pair p = kPairs[std::get<0>(i.param)];
                           return std::string(kTyName[p.to]) + "_" + kTyName[p.from] + "_" + kModeName[std::get<1>(i.param)];
                         });

// Hand-checked conversions (also checks the reference above).
TEST(VectorConvertByHand, CornerCases) {
  struct Row {
    Ty to, from;
    Mode mode;
    uint64_t src, want;
  } rows[] = {
      {S32, F32, kRound, 0x40200000, 3}, {S32, F32, kRound, 0xc0200000, 0xfffffffd}, {S32, F32, kRint, 0x40200000, 2},
      {S32, F32, kRint, 0x40600000, 4}, {S32, F32, kNone, 0x40200000, 2}, {S32, F32, kFloor, 0xbf000000, 0xffffffff},
      {S32, F32, kCeil, 0xbf000000, 0}, {S32, F32, kTrunc, 0xbfd9999a, 0xffffffff}, {S32, F32, kOdd, 0x40133333, 3},
      {S32, F32, kOdd, 0x40800000, 4}, {S32, F32, kOdd, 0x40900000, 5}, {S32, F32, kOdd, 0xc0200000, 0xfffffffd},
      {S32, F32, kRint, 0x7fc00000, 0}, {S32, F32, kTrunc, 0x4f32d05e, 0x7fffffff}, {S32, F32, kFloor, 0xff800000, 0x80000000},
      {S32, F32, kCeil, 0x4effffff, 2147483520},
      {F16, F32, kOdd, 0x3f800800, 0x3c01}, {F16, F32, kCeil, 0x3f800008, 0x3c01}, {F16, F32, kFloor, 0xbf800008, 0xbc01},
      {F16, F32, kTrunc, 0x4788b800, 0x7bff}, {F16, F32, kFloor, 0x4788b800, 0x7bff}, {F16, F32, kCeil, 0x4788b800, 0x7c00},
      {F16, F32, kRound, 0x477ff000, 0x7c00}, {F16, F32, kRint, 0x477ff000, 0x7c00}, {F16, F32, kTrunc, 0x477ff000, 0x7bff},
      {F16, F32, kRound, 0x477fef00, 0x7bff}, {F16, F32, kCeil, 0xc788b800, 0xfbff}, {F16, F32, kCeil, 0x2edbe6ff, 0x0001},
      {F16, F32, kFloor, 0xaedbe6ff, 0x8001}, {F16, F32, kTrunc, 0xaedbe6ff, 0x8000}, {F16, F32, kRint, 0x3f801000, 0x3c00},
      {F16, F32, kRound, 0x3f801000, 0x3c01}, {F16, F32, kOdd, 0x3f801000, 0x3c01}, {F16, F32, kNone, 0x3f803000, 0x3c02},
      {U8, F16, kRint, 0xbc00, 0}, {U8, F16, kTrunc, 0x5cb0, 255}, {U8, F16, kRint, 0x7e00, 0}, {U8, F16, kRint, 0xb666, 0},
      {U8, F16, kRound, 0x4100, 3}, {U8, F16, kRint, 0x4100, 2}, {U8, F16, kFloor, 0x5bfc, 255}, {U8, F16, kCeil, 0x5bfc, 255},
      {S8, F16, kFloor, 0xda40, 0x80}, {S8, F16, kRound, 0xb800, 0xff}, {S8, F16, kCeil, 0x57f8, 0x7f},
      {S8, F16, kTrunc, 0x7c00, 0x7f}, {S8, F16, kTrunc, 0xfc00, 0x80},
      {F16, S16, kRint, 2049, 0x6800}, {F16, S16, kRint, 2051, 0x6802}, {F16, S16, kTrunc, 32767, 0x77ff},
      {F16, S16, kRint, 32767, 0x7800}, {F16, S16, kFloor, uint16_t(-2049), 0xe801}, {F16, S16, kOdd, 2050, 0x6801},
      {F16, S16, kOdd, 2049, 0x6801},
      {F16, S32, kRint, 100000, 0x7c00}, {F16, S32, kTrunc, 100000, 0x7bff}, {F16, S32, kRound, 65519, 0x7bff},
      {F16, S32, kRint, 65520, 0x7c00}, {F16, S32, kOdd, 65535, 0x7bff},
      {F32, S32, kRint, 16777217, 0x4b800000}, {F32, S32, kCeil, 16777217, 0x4b800001}, {F32, S32, kOdd, 16777217, 0x4b800001},
      {F32, S32, kFloor, uint32_t(-16777217), 0xcb800001}, {F32, S32, kRint, 0x7fffffff, 0x4f000000},
      {F32, S32, kTrunc, 0x7fffffff, 0x4effffff},
      {F32, F16, kNone, 0x0001, 0x33800000}, {F32, F16, kNone, 0xfc00, 0xff800000}, {F32, F16, kNone, 0x7bff, 0x477fe000},
      {S32, F16, kRound, 0xc100, 0xfffffffd}, {S32, F16, kCeil, 0x7bff, 65504},
      {S16, F16, kTrunc, 0x7bff, 0x7fff}, {S16, F16, kFloor, 0xfbff, 0x8000}, {S16, F16, kRint, 0x7800, 0x7fff},
      {F16, U8, kNone, 255, 0x5bf8}, {F16, S8, kNone, 0x80, 0xd800},
  };
  for (const Row& r : rows) {
    std::string text = "vconv." + pair_name({r.to, r.from}) + " ub[0], ub[256], mask=1" +
                       (r.mode == kNone ? std::string() : std::string(", round=") + kModeName[r.mode]) + "\n";
    SCOPED_TRACE(text + "source 0x" + std::to_string(r.src));
    Harness h(text);
    std::memcpy(h.at(Space::UB, 256), &r.src, kTySize[r.from]);
    h.run_clean();
    EXPECT_EQ(load_bits(h.at(Space::UB, 0), kTySize[r.to]), r.want);
    EXPECT_EQ(convert(bits_value(r.src, r.from), r.to, r.mode), r.want) << "reference disagrees";
  }
}

// ---- vconv addressing: epr = 256 / wider size; each operand's strides count its own 32 B blocks ---------
struct Mask {
  enum Kind { Full, Count, Bits, Counter } kind = Full;
  int64_t n = 0;
  uint64_t hi = 0, lo = 0;
  std::string text() const {
    char s[64] = "";
    if (kind == Count) std::snprintf(s, sizeof s, ", mask=%lld", (long long)n);
    if (kind == Bits) std::snprintf(s, sizeof s, ", mask=0x%llx:0x%llx", (unsigned long long)hi, (unsigned long long)lo);
    if (kind == Counter) std::snprintf(s, sizeof s, ", mask=counter:%lld", (long long)n);
    return s;
  }
  int64_t repeats(int64_t repeat, int epr) const { return kind == Counter ? (n + epr - 1) / epr : repeat; }
  bool active(int64_t r, int i, int epr) const {
    switch (kind) {
      case Full: return true;
      case Count: return i < n;
      case Bits: return i < 64 ? (lo >> i) & 1 : (hi >> (i - 64)) & 1;
      case Counter: return r * epr + i < n;
    }
    return false;
  }
};
struct Opnd {
  int64_t addr;
  int blk = 1, rep = 8;
  int64_t at(int64_t r, int i, int size) const {
    return addr + r * rep * 32 + (int64_t(i) * size / 32) * blk * 32 + (int64_t(i) * size) % 32;
  }
};
struct ConvConfig {
  std::string name;
  int repeat;
  Opnd dst, src;
  Mask mask;
};

const std::vector<uint8_t>& pool(Ty t) {
  static std::vector<uint8_t> pools[7];
  std::vector<uint8_t>& p = pools[t];
  if (!p.empty()) return p;
  p.resize(kUB);
  std::mt19937_64 rng(77 + t);
  std::uniform_real_distribution<double> u(-300, 300);
  for (int64_t o = 0; o < kUB; o += kTySize[t]) {
    uint64_t b = rng();
    if (t == F16 && rng() % 4) b = f64_to_f16(u(rng));
    if (t == F32 && rng() % 4) b = std::bit_cast<uint32_t>(float(u(rng)));
    std::memcpy(&p[o], &b, kTySize[t]);
  }
  return p;
}

class VectorConvertAddressing : public ::testing::TestWithParam<int> {};

TEST_P(VectorConvertAddressing, StridesMasksRepeats) {
  Pair p = kPairs[GetParam()];
  int ds = kTySize[p.to], ss = kTySize[p.from], epr = 256 / std::max(ds, ss);
  std::vector<ConvConfig> configs = {
      {"defaults_3_repeats", 3, {0}, {65536}, {}},  // the narrower operand leaves gaps (rep 8)
      {"mask_n", 2, {0}, {65536}, {Mask::Count, epr / 2 + 3}},
      {"mask_bits", 2, {0}, {65536}, {Mask::Bits, 0, epr == 128 ? 0x8000000000010001ull : 0, 0x80000000000a5c31ull}},
      {"counter", 1, {0, 1, epr * ds / 32}, {65536, 1, epr * ss / 32}, {Mask::Counter, 3 * epr + 5}},
      {"strides", 3, {0, 2, 19}, {65536, 3, 29}, {}},
      {"block_stride_0", 2, {0, 0, 1}, {65536, 1, 5}, {Mask::Count, epr - 1}},
      {"repeat_255", 255, {0}, {131072}, {}},
      {"repeat_0", 0, {0}, {65536}, {}},
      {"in_place", 2, {65536}, {65536}, {}},
  };
  int k = 0;
  for (const ConvConfig& c : configs) {
    Mode mode = Mode(k++ % 7);
    std::ostringstream text;
    text << "vconv." << pair_name(p) << " ub[" << c.dst.addr << "], ub[" << c.src.addr << "]";
    if (c.repeat != 1) text << ", repeat=" << c.repeat;
    if (c.dst.blk != 1) text << ", dst_blk=" << c.dst.blk;
    if (c.src.blk != 1) text << ", src_blk=" << c.src.blk;
    if (c.dst.rep != 8) text << ", dst_rep=" << c.dst.rep;
    if (c.src.rep != 8) text << ", src_rep=" << c.src.rep;
    text << c.mask.text() << ", round=" << kModeName[mode] << "\n";
    SCOPED_TRACE(c.name + ": " + text.str());
    Harness h(text.str());
    std::vector<uint8_t> im = pool(p.from), relax(kUB, 0);
    std::memcpy(h.at(Space::UB, 0), im.data(), kUB);
    for (int64_t r = 0; r < c.mask.repeats(c.repeat, epr); ++r) {
      double v[128];
      for (int i = 0; i < epr; ++i)
        if (c.mask.active(r, i, epr)) v[i] = bits_value(load_bits(&im[c.src.at(r, i, ss)], ss), p.from);
      for (int i = 0; i < epr; ++i) {
        if (!c.mask.active(r, i, epr)) continue;
        uint64_t b = convert(v[i], p.to, mode);
        std::memcpy(&im[c.dst.at(r, i, ds)], &b, ds);
        relax[c.dst.at(r, i, ds)] = is_nan_bits(b, p.to);
      }
    }
    h.run_clean();
    const uint8_t* got = h.at(Space::UB, 0);
    int bad = 0;
    for (int64_t o = 0; o < kUB; o += ds) {
      if (o % 256 == 0 && std::memcmp(got + o, &im[o], 256) == 0) {
        o += 256 - ds;
        continue;
      }
      uint64_t g = load_bits(got + o, ds), w = load_bits(&im[o], ds);
      if (g == w || (relax[o] && is_nan_bits(g, p.to))) continue;
      if (++bad <= 6) ADD_FAILURE() << "ub byte " << o << ": expected 0x" << std::hex << w << ", got 0x" << g;
    }
    EXPECT_EQ(bad, 0);
  }
}
INSTANTIATE_TEST_SUITE_P(VectorAll, VectorConvertAddressing, ::testing::Range(0, 12), [](const auto& i) {
  return std::string(kTyName[kPairs[i.param].to]) + "_" + kTyName[kPairs[i.param].from];
});

// ---- vbrcb ------------------------------------------------------------------------------------------
class VectorBroadcast : public ::testing::TestWithParam<Ty> {};

TEST_P(VectorBroadcast, EachElementFillsABlock) {
  Ty t = GetParam();
  int s = kTySize[t];
  struct Cfg {
    const char* name;
    int repeat, dst_blk, dst_rep;
    int64_t dst, src;
  } cfgs[] = {{"defaults", 1, 1, 8, 0, 65536},        {"repeats_3", 3, 1, 8, 0, 65536},
              {"blk_2_rep_16", 4, 2, 16, 0, 65536},   {"blk_0_last_wins", 2, 0, 8, 0, 65536},
              {"rep_1_overlapping", 3, 1, 1, 0, 65536}, {"repeat_255", 255, 1, 8, 0, 131072},
              {"repeat_0", 0, 1, 8, 0, 65536},        {"src_inside_dst", 3, 1, 8, 4096, 4096 + 256}};
  for (const Cfg& c : cfgs) {
    std::ostringstream text;
    text << "vbrcb." << kTyName[t] << " ub[" << c.dst << "], ub[" << c.src << "]";
    if (c.repeat != 1) text << ", repeat=" << c.repeat;
    if (c.dst_blk != 1) text << ", dst_blk=" << c.dst_blk;
    if (c.dst_rep != 8) text << ", dst_rep=" << c.dst_rep;
    SCOPED_TRACE(std::string(c.name) + ": " + text.str());
    Harness h(text.str() + "\n");
    std::vector<uint8_t> im = pool(U16);
    std::memcpy(h.at(Space::UB, 0), im.data(), kUB);
    for (int r = 0; r < c.repeat; ++r) {
      uint8_t vals[8][4];
      for (int b = 0; b < 8; ++b) std::memcpy(vals[b], &im[c.src + (r * 8 + b) * s], s);
      for (int b = 0; b < 8; ++b)
        for (int e = 0; e < 32 / s; ++e) std::memcpy(&im[c.dst + r * c.dst_rep * 32 + b * c.dst_blk * 32 + e * s], vals[b], s);
    }
    h.run_clean();
    EXPECT_EQ(std::memcmp(h.at(Space::UB, 0), im.data(), kUB), 0);
  }
}
INSTANTIATE_TEST_SUITE_P(VectorAll, VectorBroadcast, ::testing::Values(F16, F32, S16, U16, S32),
                         [](const auto& i) { return std::string(kTyName[i.param]); });

TEST(VectorBroadcastByHand, F32TwoRepeats) {
  Harness h("vbrcb.f32 ub[0], ub[4096], repeat=2, dst_blk=2, dst_rep=1\n");
  std::vector<float> src(16);
  for (int i = 0; i < 16; ++i) src[i] = float(i + 1);
  h.put(Space::UB, 4096, src);
  h.run_clean();
  // repeat 0 writes blocks 0,2,..,14 with 1..8; repeat 1 blocks 1,3,..,15 with 9..16
  for (int blk = 0; blk < 16; ++blk)
    for (int e = 0; e < 8; ++e) EXPECT_EQ(h.get<float>(Space::UB, blk * 32 + e * 4, 1)[0], float(blk % 2 ? 9 + blk / 2 : 1 + blk / 2));
}

// ---- vtranspose ---------------------------------------------------------------------------------------
TEST(VectorTranspose, SeparateAndInPlace) {
  for (const char* t : {"f16", "s16", "u16"})
    for (int64_t dst : {int64_t(0), int64_t(4096)}) {
      std::string text = std::string("vtranspose.") + t + " ub[" + std::to_string(dst) + "], ub[4096]\n";
      SCOPED_TRACE(text);
      Harness h(text);
      std::memcpy(h.at(Space::UB, 0), pool(U16).data(), kUB);
      std::vector<uint16_t> src = h.get<uint16_t>(Space::UB, 4096, 256);
      std::vector<uint8_t> want(pool(U16).begin(), pool(U16).end());
      for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c) std::memcpy(&want[dst + (c * 16 + r) * 2], &src[r * 16 + c], 2);
      h.run_clean();
      EXPECT_EQ(std::memcmp(h.at(Space::UB, 0), want.data(), kUB), 0);
      EXPECT_EQ(h.get<uint16_t>(Space::UB, dst + (3 * 16 + 5) * 2, 1)[0], src[5 * 16 + 3]);
    }
}

// ---- mov_l0c_ub ----------------------------------------------------------------------------------------
struct L0cCase {
  Ty to, from;
  bool relu;
};
class VectorMoveL0c : public ::testing::TestWithParam<L0cCase> {};

TEST_P(VectorMoveL0c, BurstsGapsReluAndCast) {
  auto [to, from, relu] = GetParam();
  struct Cfg {
    int nburst, len, src_gap, dst_gap;
    int64_t src, dst;
  } cfgs[] = {{1, 1, 0, 0, 0, 0}, {2, 3, 1, 2, 1024, 96}, {3, 2, 0, 1, 64 * 5, 32}, {4, 1, 2, 0, 0, 4096}, {1, 8, 0, 0, 2048, 0}};
  std::mt19937_64 rng(3);
  static const uint32_t specials[] = {0x7fc00000, 0xffc00000, 0x7f800000, 0xff800000, 0x00000000, 0x80000000, 0x00000001,
                                      0x80000001, 0x4788b800, 0xc788b800, 0x477fefff, 0x477ff000, 0x3f801000, 0x3f803000,
                                      0x33000000, 0x33000001, 0x387fc000, 0xb3800000};
  std::uniform_real_distribution<double> u(-100, 100);
  for (const Cfg& c : cfgs) {
    std::ostringstream text;
    text << "mov_l0c_ub." << kTyName[to] << "." << kTyName[from] << " ub[" << c.dst << "], l0c[" << c.src << "]";
    if (c.nburst != 1) text << ", nburst=" << c.nburst;
    if (c.len != 1) text << ", len=" << c.len;
    if (c.src_gap) text << ", src_gap=" << c.src_gap;
    if (c.dst_gap) text << ", dst_gap=" << c.dst_gap;
    if (relu) text << ", relu";
    SCOPED_TRACE(text.str());
    Harness h(text.str() + "\n");
    std::vector<uint8_t> l0c(64 << 10);
    for (size_t o = 0; o < l0c.size(); o += 4) {
      uint32_t b = uint32_t(rng());
      int k = int(rng() % 8);
      if (from == F32 && k < 5) b = std::bit_cast<uint32_t>(float(u(rng)));
      if (from == F32 && k == 5) b = specials[rng() % std::size(specials)];
      std::memcpy(&l0c[o], &b, 4);
    }
    std::memcpy(h.at(Space::L0C, 0), l0c.data(), l0c.size());
    std::memcpy(h.at(Space::UB, 0), pool(U16).data(), kUB);
    std::vector<uint8_t> want(pool(U16).begin(), pool(U16).end()), relax(kUB, 0);
    int ds = kTySize[to];
    for (int b = 0; b < c.nburst; ++b)
      for (int f = 0; f < c.len; ++f)
        for (int e = 0; e < 256; ++e) {
          int64_t so = c.src + (int64_t(b) * (c.len + c.src_gap) + f) * 1024 + e * 4;
          int64_t dof = c.dst + (int64_t(b) * (c.len + c.dst_gap) + f) * 256 * ds + e * ds;
          uint32_t bits = uint32_t(load_bits(&l0c[so], 4));
          uint64_t out;
          if (from == S32) {
            out = relu && int32_t(bits) < 0 ? 0 : bits;
          } else {
            float x = std::bit_cast<float>(bits);
            bool zero_tie = relu && x == 0 && std::signbit(x);  // max(-0, 0): either zero
            if (relu && !std::isnan(x)) x = x > 0 ? x : 0.0f;
            out = to == F16 ? to_float_bits(x, F16, kRint) : std::bit_cast<uint32_t>(x);
            relax[dof] = std::isnan(x) ? 1 : zero_tie ? 2 : 0;
          }
          std::memcpy(&want[dof], &out, ds);
        }
    h.run_clean();
    const uint8_t* got = h.at(Space::UB, 0);
    int bad = 0;
    for (int64_t o = 0; o < kUB; o += ds) {
      if (o % 256 == 0 && std::memcmp(got + o, &want[o], 256) == 0) {
        o += 256 - ds;
        continue;
      }
      uint64_t g = load_bits(got + o, ds), w = load_bits(&want[o], ds);
      if (g == w || (relax[o] == 1 && is_nan_bits(g, to)) || (relax[o] == 2 && bits_value(g, to) == 0)) continue;
      if (++bad <= 6) ADD_FAILURE() << "ub byte " << o << ": expected 0x" << std::hex << w << ", got 0x" << g;
    }
    EXPECT_EQ(bad, 0);
  }
}
INSTANTIATE_TEST_SUITE_P(VectorAll, VectorMoveL0c,
                         ::testing::Values(L0cCase{F32, F32, false}, L0cCase{F32, F32, true}, L0cCase{F16, F32, false},
                                           L0cCase{F16, F32, true}, L0cCase{S32, S32, false}, L0cCase{S32, S32, true}),
                         [](const auto& i) {
                           return std::string(kTyName[i.param.to]) + "_" + kTyName[i.param.from] + (i.param.relu ? "_relu" : "");
                         });

}  // namespace
}  // namespace cubekit::test
