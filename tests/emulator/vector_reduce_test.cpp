// Correctness of the vector unit's reductions (vcadd vcmax vcmin per repeat, vcgadd vcgmax vcgmin per
// 32 B block), compare (vcmp) and select (vsel) against naive references written from docs/isa.md:
// reductions combine elements (0,1), (2,3), ... then pairs of those, rounding every partial result
// to the dtype, inactive elements being the identity (0, -inf, +inf); vcmp writes repeat r's epr/8
// bytes of bits at dst + r*epr/8 (inactive bits 0); vsel picks src0 where the bit is set. The whole
// UB is compared bit for bit; a NaN result only has to be some NaN, and a max/min that compared +0
// with -0 may give either zero.
#include "harness.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace cubekit::test {
namespace {

enum Ty { F16, F32 };
constexpr const char* kTyName[] = {"f16", "f32"};
constexpr int kTySize[] = {2, 4};
constexpr int64_t kUB = 256 << 10;

uint64_t load_bits(const uint8_t* p, int size) {
  uint64_t v = 0;
  std::memcpy(&v, p, size);
  return v;
}
double bits_value(uint64_t b, Ty t) { return t == F16 ? double(f16_to_f32(uint16_t(b))) : double(std::bit_cast<float>(uint32_t(b))); }
double load_f(const uint8_t* p, Ty t) { return bits_value(load_bits(p, kTySize[t]), t); }
uint64_t f_bits(double v, Ty t) { return t == F16 ? f64_to_f16(v) : std::bit_cast<uint32_t>(float(v)); }
double round_to(double v, Ty t) { return bits_value(f_bits(v, t), t); }

enum Relax : uint8_t { kExact = 0, kAnyNan = 1, kAnyZero = 2 };
struct Image {
  std::vector<uint8_t> b, relax;
  void write(int64_t off, Ty t, double v, bool zero_amb) {
    uint64_t bits = f_bits(v, t);
    std::memcpy(&b[off], &bits, kTySize[t]);
    relax[off] = std::isnan(v) ? kAnyNan : zero_amb && v == 0 ? kAnyZero : kExact;
  }
};

void expect_ub(Harness& h, const Image& want, Ty t, const std::string& what) {
  const uint8_t* got = h.at(Space::UB, 0);
  if (std::memcmp(got, want.b.data(), kUB) == 0) return;
  int size = kTySize[t], bad = 0;
  for (int64_t o = 0; o < kUB; o += size) {
    if (o % 256 == 0 && std::memcmp(got + o, &want.b[o], 256) == 0) {
      o += 256 - size;
      continue;
    }
    if (std::memcmp(got + o, &want.b[o], size) == 0) continue;
    uint64_t g = load_bits(got + o, size), w = load_bits(&want.b[o], size);
    if (want.relax[o] == kAnyNan && std::isnan(bits_value(g, t))) continue;
    if (want.relax[o] == kAnyZero && bits_value(g, t) == 0) continue;
    if (++bad <= 6) ADD_FAILURE() << what << ": ub byte " << o << ": expected 0x" << std::hex << w << ", got 0x" << g;
  }
  if (bad > 6) ADD_FAILURE() << what << ": " << bad << " mismatching elements in all";
}

// UB fillings: kind 0 mostly finite (small values, some large enough to overflow f16 sums,
// subnormals, signed zeros); kind 1 adds infinities and NaN; kind 2 a few discrete values so that
// comparisons meet ties, signed zeros, infinities and NaN.
const std::vector<uint8_t>& pool(Ty t, int kind) {
  static std::vector<uint8_t> pools[2][3];
  std::vector<uint8_t>& p = pools[t][kind];
  if (!p.empty()) return p;
  p.resize(kUB);
  std::mt19937_64 rng(99 + 10 * t + kind);
  std::uniform_real_distribution<double> small(-4, 4), wide(-20000, 20000);
  static const double discrete[] = {-2, -1, -0.0, 0, 1, 2, 0x1p-24, -0x1p-24, INFINITY, -INFINITY, NAN, 65504, 1.5};
  int size = kTySize[t];
  for (int64_t o = 0; o < kUB; o += size) {
    int k = int(rng() % 1000);
    double v;
    if (kind == 2) v = discrete[rng() % std::size(discrete)];
    else if (kind == 1 && k < 5) v = NAN;
    else if (kind == 1 && k < 25) v = k < 15 ? INFINITY : -INFINITY;
    else if (k < 800) v = small(rng);
    else if (k < 880) v = wide(rng);
    else if (k < 940) v = std::ldexp(double(rng() % 1024), t == F16 ? -24 : -149) * (rng() % 2 ? 1 : -1);
    else v = rng() % 2 ? 0.0 : -0.0;
    uint64_t bits = f_bits(v, t);
    std::memcpy(&p[o], &bits, size);
  }
  return p;
}

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
Mask count(int64_t n) { return {Mask::Count, n}; }
Mask bits(uint64_t hi, uint64_t lo) { return {Mask::Bits, 0, hi, lo}; }
Mask counter(int64_t n) { return {Mask::Counter, n}; }

struct Opnd {
  int64_t addr;
  int blk = 1, rep = 8;
  int64_t at(int64_t r, int i, int size) const {
    return addr + r * rep * 32 + (int64_t(i) * size / 32) * blk * 32 + (int64_t(i) * size) % 32;
  }
};

std::string keywords(const char* name, const Opnd& o) {
  std::string s;
  if (o.blk != 1) s += std::string(", ") + name + "_blk=" + std::to_string(o.blk);
  if (o.rep != 8) s += std::string(", ") + name + "_rep=" + std::to_string(o.rep);
  return s;
}

// ---- reductions ------------------------------------------------------------------------------------
enum RedOp { kSum, kMax, kMin };
struct RedInfo {
  const char* name;
  RedOp op;
  bool per_block;
};
const RedInfo kReds[] = {{"vcadd", kSum, false}, {"vcmax", kMax, false}, {"vcmin", kMin, false},
                         {"vcgadd", kSum, true}, {"vcgmax", kMax, true}, {"vcgmin", kMin, true}};

struct Val {
  double v;
  bool amb;  // a +0 / -0 tie of max/min decided which zero this is
};
Val combine(RedOp op, Val a, Val b, Ty t) {
  if (op == kSum) return {round_to(a.v + b.v, t), false};
  if (std::isnan(a.v) || std::isnan(b.v)) return {NAN, false};
  if (a.v == 0 && b.v == 0 && (a.amb || b.amb || std::signbit(a.v) != std::signbit(b.v))) return {0.0, true};
  bool first = op == kMax ? a.v >= b.v : a.v <= b.v;
  return first ? a : b;
}
// The pairwise tree over n (a power of two) values.
Val tree(RedOp op, std::vector<Val> v, Ty t) {
  while (v.size() > 1) {
    std::vector<Val> next;
    for (size_t i = 0; i + 1 < v.size(); i += 2) next.push_back(combine(op, v[i], v[i + 1], t));
    v = next;
  }
  return v[0];
}

struct RedConfig {
  std::string name;
  int repeat;
  Opnd src;
  int64_t dst;
  int dst_rep;  // elements (per repeat) or units of 8 results (per block)
  Mask mask;
  int pool = 0;
};

std::vector<RedConfig> red_configs(int size, bool per_block) {
  int epr = 256 / size;
  bool h = size == 2;
  return {
      {"defaults", 1, {4096}, 0, 1, {}},
      {"repeats_4", 4, {4096}, 0, 1, {}},
      {"specials", 4, {4096}, 0, 1, {}, 1},
      {"mask_n_dst_rep_3", 3, {4096}, 0, 3, count(epr / 2 + 3)},
      {"mask_1", 2, {4096}, 0, 1, count(1)},
      {"mask_bits_with_empty_blocks", 2, {4096}, 0, 1,
       h ? bits(0x8000000000000000ull, 0x00000000ffff0001ull) : bits(0, 0x800000000000ff01ull)},
      {"mask_bits_one_block_in_high_word", 2, {4096}, 0, 1, h ? bits(0x10000, 0) : bits(0, 0x0100000000000000ull)},
      {"counter_partial_last_repeat", 1, {4096}, 0, 1, counter(2 * epr + epr / 4 + 1)},
      {"counter_below_one_block", 1, {4096}, 0, 1, counter(3)},
      {"src_blk_2", 3, {4096, 2, 16}, 0, 1, {}},
      {"src_blk_0", 3, {4096, 0, 1}, 0, 1, count(epr - 1)},
      {"src_blk_16", 2, {4096, 16, 3}, 0, 1, {}},
      {"src_rep_0", 3, {4096, 1, 0}, 0, 2, {}},
      {"repeat_255", 255, {0}, 131072, 1, {}},
      {"repeat_255_counter", 1, {0}, 131072, 2, counter(255 * epr - 7)},
      {"repeat_0", 0, {4096}, 0, 1, {}},
      {"dst_rep_0", 4, {4096}, 0, 0, {}},
      {"dst_rep_large", 3, {4096}, 64, per_block ? 37 : 1000, count(epr - 9)},
      {"dst_unaligned_to_32", 3, {4096}, 2 * size, per_block ? 1 : 5, {}},
      {"dst_inside_later_source", 3, {4096}, 4096 + 256, 1, {}},
  };
}

void red_reference(Image& im, const RedInfo& red, Ty t, const RedConfig& c) {
  int size = kTySize[t], epr = 256 / size, epb = 32 / size;
  double identity = red.op == kSum ? 0.0 : red.op == kMax ? -INFINITY : INFINITY;
  for (int64_t r = 0; r < c.mask.repeats(c.repeat, epr); ++r) {
    std::vector<Val> v(epr);
    for (int i = 0; i < epr; ++i)
      v[i] = {c.mask.active(r, i, epr) ? load_f(&im.b[c.src.at(r, i, size)], t) : identity, false};
    if (!red.per_block) {
      Val out = tree(red.op, v, t);
      im.write(c.dst + r * c.dst_rep * size, t, out.v, out.amb);
      continue;
    }
    for (int blk = 0; blk < 8; ++blk) {
      bool any = false;
      for (int i = blk * epb; i < (blk + 1) * epb; ++i) any |= c.mask.active(r, i, epr);
      if (!any) continue;  // blocks with no active element are not written
      Val out = tree(red.op, std::vector<Val>(v.begin() + blk * epb, v.begin() + (blk + 1) * epb), t);
      im.write(c.dst + (r * c.dst_rep * 8 + blk) * size, t, out.v, out.amb);
    }
  }
}

struct RedCase {
  int red;
  Ty t;
};
class VectorReduce : public ::testing::TestWithParam<RedCase> {};

TEST_P(VectorReduce, MatchesPairwiseTreeReference) {
  const RedInfo& red = kReds[GetParam().red];
  Ty t = GetParam().t;
  for (const RedConfig& c : red_configs(kTySize[t], red.per_block)) {
    std::ostringstream text;
    text << red.name << "." << kTyName[t] << " ub[" << c.dst << "], ub[" << c.src.addr << "]";
    if (c.repeat != 1) text << ", repeat=" << c.repeat;
    if (c.dst_rep != 1) text << ", dst_rep=" << c.dst_rep;
    text << keywords("src", c.src) << c.mask.text() << "\n";
    SCOPED_TRACE(c.name + ": " + text.str());
    Harness h(text.str());
    const std::vector<uint8_t>& p = pool(t, c.pool);
    std::memcpy(h.at(Space::UB, 0), p.data(), kUB);
    Image im{p, std::vector<uint8_t>(kUB, 0)};
    red_reference(im, red, t, c);
    h.run_clean();
    expect_ub(h, im, t, c.name);
  }
}

std::vector<RedCase> red_cases() {
  std::vector<RedCase> v;
  for (int r = 0; r < 6; ++r)
    for (Ty t : {F16, F32}) v.push_back({r, t});
  return v;
}
INSTANTIATE_TEST_SUITE_P(VectorAll, VectorReduce, ::testing::ValuesIn(red_cases()),
                         [](const auto& i) { return std::string(kReds[i.param.red].name) + "_" + kTyName[i.param.t]; });

// Hand-checked: the pairwise order with a rounding after every step. [2048, 1, 0, 1]: (2048+1) ties
// to 2048, (0+1) = 1, 2048+1 ties to 2048 again -- the exact sum 2050 is representable.
// [2048, 0, 1, 1]: 2048 + 2 = 2050 exactly (a left-to-right sum would give 2048).
TEST(VectorReduceOrder, F16PairwiseRounding) {
  struct Row {
    std::vector<uint16_t> head;
    uint16_t want;
  } rows[] = {{{0x6800, 0x3c00, 0x0000, 0x3c00}, 0x6800}, {{0x6800, 0x0000, 0x3c00, 0x3c00}, 0x6801}};
  for (const char* op : {"vcadd", "vcgadd"})
    for (const Row& row : rows) {
      Harness h(std::string(op) + ".f16 ub[0], ub[256]\n");
      std::vector<uint16_t> src(128, 0);
      std::copy(row.head.begin(), row.head.end(), src.begin());
      h.put(Space::UB, 256, src);
      h.run_clean();
      EXPECT_EQ(h.get<uint16_t>(Space::UB, 0, 1)[0], row.want) << op;
    }
}

// Hand-checked per-block results and the "no active element, not written" rule.
TEST(VectorReduceOrder, VcgmaxBlocksByHand) {
  Harness h("vcgmax.f32 ub[0], ub[256], mask=0x0:0x8000000000ff0003\n");
  std::vector<float> src(64);
  for (int i = 0; i < 64; ++i) src[i] = float(i % 7) - 3;
  h.put(Space::UB, 256, src);
  std::vector<float> sentinel(8, 99.0f);
  h.put(Space::UB, 0, sentinel);
  h.run_clean();
  // block 0: elements 0, 1 -> max(-3, -2); block 2: elements 16..23 -> 3; block 7: element 63 -> 63%7-3
  std::vector<float> want = {-2, 99, 3, 99, 99, 99, 99, float(63 % 7) - 3};
  EXPECT_EQ(h.get<float>(Space::UB, 0, 8), want);
}

// Inactive elements are the identity: +inf for min, -inf for max (not some large finite value), so
// a repeat or block whose active elements are all infinite reduces to that infinity.
TEST(VectorReduceOrder, IdentityOfInactiveElements) {
  struct Row {
    const char* text;
    float value;  // every source element
    int results;
  } rows[] = {{"vcmin.f32 ub[0], ub[256], mask=2\n", INFINITY, 1},
              {"vcmax.f32 ub[0], ub[256], mask=5\n", -INFINITY, 1},
              {"vcgmin.f32 ub[0], ub[256], mask=0x0:0x0101010101010101\n", INFINITY, 8},
              {"vcgmax.f32 ub[0], ub[256], mask=counter:3\n", -INFINITY, 1}};
  for (const Row& r : rows) {
    SCOPED_TRACE(r.text);
    Harness h(r.text);
    h.put(Space::UB, 256, std::vector<float>(64, r.value));
    h.run_clean();
    for (int k = 0; k < r.results; ++k) EXPECT_EQ(h.get<float>(Space::UB, 4 * k, 1)[0], r.value) << k;
  }
  Harness h("vcmin.f16 ub[0], ub[256], mask=1\n");
  h.put(Space::UB, 256, std::vector<uint16_t>(128, 0x7c00));
  h.run_clean();
  EXPECT_EQ(h.get<uint16_t>(Space::UB, 0, 1)[0], 0x7c00);
}

// A sum of -0s is -0 (IEEE), masked or not: the inactive elements' identity was +0, and -0 + +0 = +0
// (an ISA conformance probe). A sum with a +0 in it is +0.
TEST(VectorReduceOrder, ASumOfNegativeZerosIsNegativeZero) {
  for (const char* text : {"vcadd.f32 ub[0], ub[256], mask=1\n", "vcadd.f32 ub[0], ub[256], mask=3\n",
                           "vcadd.f32 ub[0], ub[256]\n", "vcgadd.f32 ub[0], ub[256], mask=1\n"}) {
    SCOPED_TRACE(text);
    Harness h(text);
    h.put(Space::UB, 256, std::vector<float>(64, -0.0f));
    h.run_clean();
    const float got = h.get<float>(Space::UB, 0, 1)[0];
    EXPECT_TRUE(got == 0 && std::signbit(got)) << got;
  }
  Harness h("vcadd.f16 ub[0], ub[256], mask=3\n");
  std::vector<uint16_t> src(128, 0x8000);  // -0
  src[1] = 0x0000;                          // +0
  h.put(Space::UB, 256, src);
  h.run_clean();
  EXPECT_EQ(h.get<uint16_t>(Space::UB, 0, 1)[0], 0x0000);
}

// ---- vcmp -------------------------------------------------------------------------------------------
const char* kCmp[] = {"eq", "ne", "lt", "le", "gt", "ge"};
bool compare(int mode, double a, double b) {
  switch (mode) {
    case 0: return a == b;
    case 1: return !(a == b);
    case 2: return a < b;
    case 3: return a <= b;
    case 4: return a > b;
    default: return a >= b;
  }
}

struct CmpConfig {
  std::string name;
  int repeat;
  Opnd dst, src0, src1;  // dst: vsel's destination (vcmp writes bits at dst.addr, no strides)
  Mask mask;
  int64_t sel = 0;       // vsel's bits
};
std::vector<CmpConfig> cmp_configs(int size) {
  int epr = 256 / size;
  bool h = size == 2;
  return {
      {"defaults", 1, {0}, {4096}, {8192}, {}, 2048},
      {"repeats_3_mask_n", 3, {0}, {4096}, {8192}, count(epr / 2 + 5), 2048},
      {"mask_bits", 2, {0}, {4096}, {8192}, h ? bits(0x8000000100f00002ull, 0x00ff00000000a5c3ull) : bits(0, 0x80f00000000a5c31ull), 2048},
      {"mask_bits_high_word", 2, {0}, {4096}, {8192}, h ? bits(0x8421000000000001ull, 0) : bits(0, 0xf000000100000000ull), 2048},
      {"counter", 1, {0}, {4096}, {8192}, counter(3 * epr + 7), 2048},
      {"strides", 3, {0, 3, 25}, {16384, 2, 16}, {32768, 0, 1}, {}, 12288},
      {"strides_16", 2, {0, 16, 1}, {16384, 16, 3}, {32768, 1, 0}, count(epr - 3), 8192},
      {"repeat_255", 255, {0}, {65536}, {131072}, {}, 196608},
      {"repeat_0", 0, {0}, {4096}, {8192}, {}, 2048},
      {"same_source", 2, {0}, {4096}, {4096}, {}, 2048},
      {"in_place_dst_is_src0", 2, {4096}, {4096}, {8192}, count(epr - 1), 2048},
      {"in_place_dst_is_src1", 2, {8192}, {4096}, {8192}, {}, 2048},
  };
}

void cmp_reference(Image& im, int mode, Ty t, const CmpConfig& c) {
  int size = kTySize[t], epr = 256 / size;
  for (int64_t r = 0; r < c.mask.repeats(c.repeat, epr); ++r) {
    uint8_t out[16] = {};
    for (int i = 0; i < epr; ++i)
      if (c.mask.active(r, i, epr) &&
          compare(mode, load_f(&im.b[c.src0.at(r, i, size)], t), load_f(&im.b[c.src1.at(r, i, size)], t)))
        out[i / 8] |= uint8_t(1u << (i % 8));
    std::memcpy(&im.b[c.dst.addr + r * epr / 8], out, epr / 8);
  }
}

std::string cmp_text(int mode, Ty t, const CmpConfig& c) {
  std::ostringstream s;
  s << "vcmp." << kTyName[t] << " ub[" << c.dst.addr << "], ub[" << c.src0.addr << "], ub[" << c.src1.addr
    << "], cmp=" << kCmp[mode];
  if (c.repeat != 1) s << ", repeat=" << c.repeat;
  s << keywords("src0", c.src0) << keywords("src1", c.src1) << c.mask.text() << "\n";
  return s.str();
}

class VectorCompare : public ::testing::TestWithParam<std::tuple<int, Ty>> {};

TEST_P(VectorCompare, BitsMatchIeeeComparison) {
  auto [mode, t] = GetParam();
  for (const CmpConfig& c : cmp_configs(kTySize[t])) {
    std::string text = cmp_text(mode, t, c);
    SCOPED_TRACE(c.name + ": " + text);
    Harness h(text);
    const std::vector<uint8_t>& p = pool(t, 2);
    std::memcpy(h.at(Space::UB, 0), p.data(), kUB);
    Image im{p, std::vector<uint8_t>(kUB, 0)};
    cmp_reference(im, mode, t, c);
    h.run_clean();
    expect_ub(h, im, t, c.name);
  }
}
INSTANTIATE_TEST_SUITE_P(VectorAll, VectorCompare, ::testing::Combine(::testing::Range(0, 6), ::testing::Values(F16, F32)),
                         [](const auto& i) {
                           return std::string(kCmp[std::get<0>(i.param)]) + "_" + kTyName[std::get<1>(i.param)];
                         });

// Hand-checked bit layout: src0[i] = i % 4, src1 = 2, lt -> 0b0011 per nibble; counter:200 leaves
// repeat 1 with 72 active elements, so its bytes 9..15 are 0; repeat r's 16 bytes at dst + 16r.
TEST(VectorCompareLayout, F16CounterBitsByHand) {
  Harness h("vcmp.f16 ub[0], ub[1024], ub[2048], cmp=lt, mask=counter:200\n");
  std::vector<uint16_t> a(256), b(256, 0x4000);
  for (int i = 0; i < 256; ++i) a[i] = f64_to_f16(i % 4);
  h.put(Space::UB, 1024, a);
  h.put(Space::UB, 2048, b);
  std::memset(h.at(Space::UB, 0), 0xee, 64);
  h.run_clean();
  auto got = h.get<uint8_t>(Space::UB, 0, 64);
  for (int k = 0; k < 64; ++k) EXPECT_EQ(got[k], k < 16 + 9 ? 0x33 : k < 32 ? 0x00 : 0xee) << k;
}
TEST(VectorCompareLayout, NanComparesFalseExceptNe) {
  for (int mode = 0; mode < 6; ++mode) {
    Harness h(std::string("vcmp.f32 ub[0], ub[1024], ub[2048], cmp=") + kCmp[mode] + "\n");
    std::vector<float> a(64, NAN), b(64, 1.0f);
    a[1] = 1.0f, b[1] = NAN, a[2] = 1.0f, b[2] = 1.0f, a[3] = -0.0f, b[3] = 0.0f;
    h.put(Space::UB, 1024, a);
    h.put(Space::UB, 2048, b);
    h.run_clean();
    uint8_t want = mode == 1 ? 0xf3 : mode == 0 || mode == 3 || mode == 5 ? 0x0c : 0x00;
    EXPECT_EQ(h.get<uint8_t>(Space::UB, 0, 1)[0], want) << kCmp[mode];
    EXPECT_EQ(h.get<uint8_t>(Space::UB, 1, 1)[0], mode == 1 ? 0xff : 0x00) << kCmp[mode];
  }
}

// ---- vsel -------------------------------------------------------------------------------------------
void sel_reference(Image& im, Ty t, const CmpConfig& c) {
  int size = kTySize[t], epr = 256 / size;
  for (int64_t r = 0; r < c.mask.repeats(c.repeat, epr); ++r) {
    uint8_t tmp[128][4];
    for (int i = 0; i < epr; ++i) {
      if (!c.mask.active(r, i, epr)) continue;
      bool bit = (im.b[c.sel + r * epr / 8 + i / 8] >> (i % 8)) & 1;
      std::memcpy(tmp[i], &im.b[(bit ? c.src0 : c.src1).at(r, i, size)], size);
    }
    for (int i = 0; i < epr; ++i)
      if (c.mask.active(r, i, epr)) std::memcpy(&im.b[c.dst.at(r, i, size)], tmp[i], size);  // bits moved as they are
  }
}

std::string sel_text(Ty t, const CmpConfig& c) {
  std::ostringstream s;
  s << "vsel." << kTyName[t] << " ub[" << c.dst.addr << "], ub[" << c.src0.addr << "], ub[" << c.src1.addr << "], ub["
    << c.sel << "]";
  if (c.repeat != 1) s << ", repeat=" << c.repeat;
  s << keywords("dst", c.dst) << keywords("src0", c.src0) << keywords("src1", c.src1) << c.mask.text() << "\n";
  return s.str();
}

class VectorSelect : public ::testing::TestWithParam<Ty> {};

// Hand-made bits (the pool's random bytes) in every configuration.
TEST_P(VectorSelect, RandomBits) {
  Ty t = GetParam();
  for (const CmpConfig& c : cmp_configs(kTySize[t])) {
    std::string text = sel_text(t, c);
    SCOPED_TRACE(c.name + ": " + text);
    Harness h(text);
    std::vector<uint8_t> p = pool(t, 0);
    std::mt19937_64 rng(7);
    for (int64_t k = 0; k < 255 * 16; ++k) p[c.sel + k] = uint8_t(rng());
    std::memcpy(h.at(Space::UB, 0), p.data(), kUB);
    Image im{p, std::vector<uint8_t>(kUB, 0)};
    sel_reference(im, t, c);
    h.run_clean();
    expect_ub(h, im, t, c.name);
  }
}

// vcmp then vsel on its bits: gt selects the larger operand (a max where no NaN is involved).
TEST_P(VectorSelect, BitsWrittenByVcmp) {
  Ty t = GetParam();
  int epr = 256 / kTySize[t];
  for (int mode = 0; mode < 6; ++mode)
    for (const CmpConfig& c0 : cmp_configs(kTySize[t])) {
      CmpConfig c = c0;
      std::string text = cmp_text(mode, t, {c.name, c.repeat, {c.sel}, c.src0, c.src1, c.mask}) + sel_text(t, c);
      SCOPED_TRACE(c.name + ":\n" + text);
      Harness h(text);
      const std::vector<uint8_t>& p = pool(t, 2);
      std::memcpy(h.at(Space::UB, 0), p.data(), kUB);
      Image im{p, std::vector<uint8_t>(kUB, 0)};
      cmp_reference(im, mode, t, {c.name, c.repeat, {c.sel}, c.src0, c.src1, c.mask});
      sel_reference(im, t, c);
      h.run_clean();
      expect_ub(h, im, t, c.name);
      if (mode != 4 || c.name != "defaults") continue;
      for (int i = 0; i < epr; ++i) {  // direct check, independent of the references above
        double a = load_f(&p[c.src0.addr + i * kTySize[t]], t), b = load_f(&p[c.src1.addr + i * kTySize[t]], t);
        uint64_t got = load_bits(h.at(Space::UB, c.dst.addr + i * kTySize[t]), kTySize[t]);
        uint64_t want = load_bits(&p[(a > b ? c.src0.addr : c.src1.addr) + i * kTySize[t]], kTySize[t]);
        EXPECT_EQ(got, want) << i;
      }
    }
}
INSTANTIATE_TEST_SUITE_P(VectorAll, VectorSelect, ::testing::Values(F16, F32),
                         [](const auto& i) { return std::string(kTyName[i.param]); });

}  // namespace
}  // namespace cubekit::test
