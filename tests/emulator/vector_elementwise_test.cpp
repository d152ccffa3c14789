// Correctness of the vector unit's elementwise instructions (vadd .. vdup) against naive references
// written from docs/isa.md and emulator/README.md: float results are computed in double from the
// exact inputs and rounded once (f16 via f64_to_f16, f32 via float()), integers wrap. Every
// instruction and dtype runs through a table of addressing configurations (masks, strides, repeat
// counts, in-place and overlapping operands) on a UB pre-filled with values that include the fp16 /
// fp32 corner cases; the whole UB is compared bit for bit, so writes to inactive elements or outside
// the operands fail. NaN payloads are not specified, so a NaN result only has to be some NaN;
// max/min of +0 and -0 may return either zero. Hand-written expected bits cover the fp16 corners.
#include "harness.h"

#include "emulator/error.h"

#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>

namespace cubekit::test {
namespace {

// ---- element types --------------------------------------------------------------------------------
enum Ty { F16, F32, S16, U16, S32 };
constexpr const char* kTyName[] = {"f16", "f32", "s16", "u16", "s32"};
constexpr int kTySize[] = {2, 4, 2, 2, 4};
bool is_fp(Ty t) { return t == F16 || t == F32; }

uint64_t load_bits(const uint8_t* p, int size) {
  uint64_t v = 0;
  std::memcpy(&v, p, size);
  return v;
}
int64_t load_i(const uint8_t* p, Ty t) {
  uint64_t b = load_bits(p, kTySize[t]);
  return t == S16 ? int64_t(int16_t(b)) : t == U16 ? int64_t(uint16_t(b)) : int64_t(int32_t(b));
}
uint64_t f_bits(double v, Ty t) { return t == F16 ? f64_to_f16(v) : std::bit_cast<uint32_t>(float(v)); }
double bits_value(uint64_t b, Ty t) { return t == F16 ? double(f16_to_f32(uint16_t(b))) : double(std::bit_cast<float>(uint32_t(b))); }
double load_f(const uint8_t* p, Ty t) { return bits_value(load_bits(p, kTySize[t]), t); }
bool is_nan_bits(uint64_t b, Ty t) { return is_fp(t) && std::isnan(bits_value(b, t)); }
bool is_zero_bits(uint64_t b, Ty t) { return is_fp(t) && bits_value(b, t) == 0; }

// ---- the expected UB image -----------------------------------------------------------------------
constexpr int64_t kUB = 256 << 10;
enum Relax : uint8_t { kExact = 0, kAnyNan = 1, kAnyZero = 2 };

struct Image {
  std::vector<uint8_t> b;
  std::vector<uint8_t> relax;  // at an element's first byte, for elements the reference wrote
  int64_t writes = 0;
  void write(int64_t off, Ty t, uint64_t bits, Relax r) {
    ++writes;
    std::memcpy(&b[off], &bits, kTySize[t]);
    relax[off] = is_nan_bits(bits, t) ? kAnyNan : r;
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
    if (want.relax[o] == kAnyNan && is_nan_bits(g, t)) continue;
    if (want.relax[o] == kAnyZero && is_zero_bits(g, t)) continue;
    if (++bad <= 6)
      ADD_FAILURE() << what << ": ub byte " << o << " (" << kTyName[t] << "): expected 0x" << std::hex << w << ", got 0x" << g;
  }
  if (bad > 6) ADD_FAILURE() << what << ": " << bad << " mismatching elements in all";
}

// A 256 KiB UB filling per dtype: ordinary values mixed with random bit patterns and corner cases.
const std::vector<uint8_t>& pool(Ty t) {
  static std::vector<uint8_t> pools[5];
  std::vector<uint8_t>& p = pools[t];
  if (!p.empty()) return p;
  p.resize(kUB);
  std::mt19937_64 rng(1234 + t);
  std::uniform_real_distribution<double> u(-4, 4);
  static const uint64_t f16s[] = {0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x83ff, 0x0400, 0x8400, 0x7bff, 0xfbff,
                                  0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x3c00, 0xbc00, 0x3800, 0x4000, 0x7a00, 0x5c00,
                                  0x3c01, 0x1000, 0x4a00, 0xcc00};
  static const uint64_t f32s[] = {0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff, 0x00800000, 0x7f7fffff,
                                  0xff7fffff, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x3f800000, 0xbf800000,
                                  0x3f000000, 0x40000000, 0x7149f2ca, 0x0da24260, 0xc2b00000, 0x42b20000, 0x3f800001};
  static const uint64_t i16s[] = {0, 1, 0xffff, 0x7fff, 0x8000, 0x8001, 0x00ff, 0xff00, 2, 181, 256};
  static const uint64_t i32s[] = {0, 1, 0xffffffff, 0x7fffffff, 0x80000000, 0x80000001, 0x10000, 46341, 0xffff};
  int size = kTySize[t];
  for (int64_t o = 0; o < kUB; o += size) {
    int k = int(rng() % 100);
    uint64_t bits = rng();
    if (is_fp(t) && k < 60) bits = f_bits(u(rng), t);
    else if (k >= 75) {
      if (t == F16) bits = f16s[rng() % std::size(f16s)];
      else if (t == F32) bits = f32s[rng() % std::size(f32s)];
      else if (size == 2) bits = i16s[rng() % std::size(i16s)];
      else bits = i32s[rng() % std::size(i32s)];
    }
    std::memcpy(&p[o], &bits, size);
  }
  return p;
}

// ---- masks and addressing --------------------------------------------------------------------------
struct Mask {
  enum Kind { Full, Count, Bits, Counter } kind = Full;
  int64_t n = 0;
  uint64_t hi = 0, lo = 0;
  std::string text() const {
    char s[64];
    if (kind == Full) return "";
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
  // The documented formula: base + r*rep*32 + floor(i*s/32)*blk*32 + (i*s mod 32).
  int64_t at(int64_t r, int i, int size) const {
    return addr + r * rep * 32 + (int64_t(i) * size / 32) * blk * 32 + (int64_t(i) * size) % 32;
  }
};

struct Config {
  std::string name;
  int repeat;
  Opnd dst, src0, src1;
  Mask mask;
  bool reg_base = false;  // addresses as ub[x3 + off], x3 = 16384
};

std::vector<Config> configs(int size) {
  int epr = 256 / size;
  bool h = size == 2;
  return {
      {"defaults", 1, {0}, {4096}, {8192}, {}},
      {"mask_n_3_repeats", 3, {0}, {4096}, {8192}, count(epr / 2 + 3)},
      {"mask_1", 2, {0}, {4096}, {8192}, count(1)},
      {"mask_full_n", 2, {0}, {4096}, {8192}, count(epr)},
      {"mask_bits", 2, {0}, {4096}, {8192}, h ? bits(0x8000000100f00002ull, 0x00ff00000000a5c3ull) : bits(0, 0x80f00000000a5c31ull)},
      {"mask_bits_high_word", 3, {0}, {4096}, {8192}, h ? bits(0x8421000000000001ull, 0) : bits(0, 0xf000000100000000ull)},
      {"counter_3_repeats_and_5", 1, {0}, {4096}, {8192}, counter(3 * epr + 5)},
      {"counter_below_epr", 1, {0}, {4096}, {8192}, counter(epr / 2 - 3)},
      {"counter_exact", 1, {0}, {4096}, {8192}, counter(2 * epr)},
      {"block_strides_2_0_16", 3, {0, 2, 16}, {16384, 0, 1}, {32768, 16, 3}, {}},
      {"strides_masked", 2, {0, 3, 7}, {16384, 2, 9}, {32768, 1, 0}, count(epr - 5)},
      {"strides_counter", 1, {0, 2, 17}, {16384, 1, 5}, {32768, 4, 33}, counter(2 * epr + 7)},
      {"repeat_255", 255, {0}, {65280}, {130560}, {}},
      {"repeat_255_masked", 255, {0, 1, 9}, {0x28000, 1, 2}, {0x30000, 2, 1}, count(3)},
      {"repeat_0", 0, {0}, {4096}, {8192}, {}},
      {"dst_rep_0", 4, {0, 1, 0}, {4096}, {8192}, {}},
      {"src_rep_0", 3, {0}, {4096, 1, 0}, {8192, 1, 0}, count(epr - 1)},
      {"in_place_src0", 2, {4096}, {4096}, {8192}, count(epr - 1)},
      {"in_place_src1", 2, {8192}, {4096}, {8192}, {}},
      {"chained_repeats", 3, {4096 + 256}, {4096}, {16384}, {}},
      {"overlap_within_repeat", 2, {4096 + 64}, {4096}, {4096 - 96}, {}},
      {"register_base", 2, {20480}, {24576}, {28672}, count(epr / 4), true},
  };
}

// ---- the instructions ------------------------------------------------------------------------------
enum OpId { ADD, SUB, MUL, DIV, MAX, MIN, AND, OR, EXP, LN, ABS, REC, RSQRT, SQRT, RELU, NOT,
            ADDS, MULS, MAXS, MINS, AXPY, MLA, MADD, DUP };
struct OpInfo {
  OpId id;
  const char* name;
  int nsrc;
  bool scalar, reads_dst;
  std::vector<Ty> types;
};
const std::vector<OpInfo>& ops() {
  static const std::vector<Ty> arith = {F16, F32, S16, S32}, fl = {F16, F32}, bit = {S16, U16};
  static const std::vector<OpInfo> v = {
      {ADD, "vadd", 2, false, false, arith},  {SUB, "vsub", 2, false, false, arith},
      {MUL, "vmul", 2, false, false, arith},  {DIV, "vdiv", 2, false, false, fl},
      {MAX, "vmax", 2, false, false, arith},  {MIN, "vmin", 2, false, false, arith},
      {AND, "vand", 2, false, false, bit},    {OR, "vor", 2, false, false, bit},
      {EXP, "vexp", 1, false, false, fl},     {LN, "vln", 1, false, false, fl},
      {ABS, "vabs", 1, false, false, arith},  {REC, "vrec", 1, false, false, fl},
      {RSQRT, "vrsqrt", 1, false, false, fl}, {SQRT, "vsqrt", 1, false, false, fl},
      {RELU, "vrelu", 1, false, false, {F16, F32, S32}}, {NOT, "vnot", 1, false, false, bit},
      {ADDS, "vadds", 1, true, false, arith}, {MULS, "vmuls", 1, true, false, arith},
      {MAXS, "vmaxs", 1, true, false, arith}, {MINS, "vmins", 1, true, false, arith},
      {AXPY, "vaxpy", 1, true, true, fl},     {MLA, "vmla", 2, false, true, fl},
      {MADD, "vmadd", 2, false, true, fl},    {DUP, "vdup", 0, true, false, {F16, F32, S16, U16, S32}},
  };
  return v;
}
const OpInfo& op_named(OpId id) {
  for (const OpInfo& o : ops())
    if (o.id == id) return o;
  throw std::logic_error("no op");
}

// x*y+z rounded once to the operands' type. f16 operands: the exact value fits a double. f32:
// in binary128 x*y is exact; the sum is rounded to odd (an inexact sum takes the neighbour with an
// odd last bit, TwoSum telling which side the exact value lies), which 113 >= 24 + 2 bits makes
// safe to round again to f32.
double fused(double x, double y, double z, bool f32) {
  if (!f32) return x * y + z;
  __float128 p = __float128(x) * __float128(y), w = __float128(z);
  __float128 q = p + w, bb = q - p, err = (p - (q - bb)) + (w - bb);
  unsigned __int128 bits;
  std::memcpy(&bits, &q, sizeof q);
  bool finite = q - q == 0;
  if (finite && err != 0 && (bits & 1) == 0) {
    bits += (err > 0) == (q > 0) ? 1 : -1;  // one ulp toward the exact value
    std::memcpy(&q, &bits, sizeof q);
  }
  return double(float(q));
}

// Float semantics in double; `amb` is set when max/min compared +0 with -0 (either may result).
double fop(OpId op, double a, double b, double d, double s, bool& amb, bool f32) {
  auto mx = [&](double x, double y, bool want_max) {
    if (std::isnan(x) || std::isnan(y)) return double(NAN);
    if (x == 0 && y == 0 && std::signbit(x) != std::signbit(y)) amb = true;
    return want_max ? (x > y ? x : y) : (x < y ? x : y);
  };
  switch (op) {
    case ADD: return a + b;
    case SUB: return a - b;
    case MUL: return a * b;
    case DIV: return a / b;
    case MAX: return mx(a, b, true);
    case MIN: return mx(a, b, false);
    case EXP: return std::exp(a);
    case LN: return std::log(a);
    case ABS: return std::fabs(a);
    case REC: return 1.0 / a;
    case RSQRT: return 1.0 / std::sqrt(a);
    case SQRT: return std::sqrt(a);
    case RELU: return std::isnan(a) ? a : a > 0 ? a : 0.0;
    case ADDS: return a + s;
    case MULS: return a * s;
    case MAXS: return mx(a, s, true);
    case MINS: return mx(a, s, false);
    // Fused: the exact value, rounded once. In binary128 x*y is exact and one addition rounds it to
    // 113 bits, close enough that the rounding to f32 (done by the caller) is still correct; for
    // f16 operands the exact value fits a double.
    case AXPY: return fused(s, a, d, f32);
    case MLA: return fused(a, b, d, f32);
    case MADD: return fused(a, d, b, f32);
    case DUP: return s;
    default: break;
  }
  throw std::logic_error("not a float op");
}
int64_t iop(OpId op, int64_t a, int64_t b, int64_t s) {
  switch (op) {
    case ADD: return a + b;
    case SUB: return a - b;
    case MUL: return a * b;
    case MAX: return std::max(a, b);
    case MIN: return std::min(a, b);
    case AND: return a & b;
    case OR: return a | b;
    case ABS: return a < 0 ? -a : a;
    case RELU: return a > 0 ? a : 0;
    case NOT: return ~a;
    case ADDS: return a + s;
    case MULS: return a * s;
    case MAXS: return std::max(a, s);
    case MINS: return std::min(a, s);
    case DUP: return s;
    default: break;
  }
  throw std::logic_error("not an integer op");
}

// The scalar operand: its text, the register setup it needs, and its value in the dtype.
struct Scalar {
  std::string setup, text;
  double f = 0;
  int64_t i = 0;
};
std::string number_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char s[64];
  std::snprintf(s, sizeof s, "%.17g", v);
  std::string t = s;
  if (t.find_first_of(".e") == std::string::npos) t += ".0";
  return t;
}
Scalar number_scalar(double v, Ty t) {
  Scalar s;
  if (is_fp(t)) s.text = number_text(v), s.f = bits_value(f_bits(v, t), t);
  else {
    int64_t iv = int64_t(v);  // the low bits, read as the dtype (little-endian host)
    s.text = std::to_string(iv), s.i = load_i(reinterpret_cast<const uint8_t*>(&iv), t);
  }
  return s;
}
Scalar register_scalar(uint64_t reg, Ty t) {
  Scalar s;
  char buf[64];
  std::snprintf(buf, sizeof buf, "li x1, 0x%llx\n", (unsigned long long)reg);
  s.setup = buf, s.text = "x1";
  if (is_fp(t)) s.f = bits_value(reg & (t == F16 ? 0xffff : 0xffffffff), t);
  else s.i = load_i(reinterpret_cast<const uint8_t*>(&reg), t);
  return s;
}

std::string operand_text(const Config& c, int64_t addr) {
  if (!c.reg_base) return "ub[" + std::to_string(addr) + "]";
  return "ub[x3 + " + std::to_string(addr - 16384) + "]";
}

std::string program_text(const OpInfo& op, Ty t, const Config& c, const Scalar& s) {
  std::ostringstream p;
  p << s.setup;
  if (c.reg_base) p << "li x3, 16384\n";
  p << op.name << "." << kTyName[t] << " " << operand_text(c, c.dst.addr);
  const Opnd* src[2] = {&c.src0, &c.src1};
  for (int k = 0; k < op.nsrc; ++k) p << ", " << operand_text(c, src[k]->addr);
  if (op.scalar) p << ", " << s.text;
  if (c.repeat != 1) p << ", repeat=" << c.repeat;
  if (c.dst.blk != 1) p << ", dst_blk=" << c.dst.blk;
  const char* names[2][2] = {{"src", "src0"}, {"", "src1"}};
  for (int k = 0; k < op.nsrc; ++k)
    if (src[k]->blk != 1) p << ", " << names[k][op.nsrc - 1] << "_blk=" << src[k]->blk;
  if (c.dst.rep != 8) p << ", dst_rep=" << c.dst.rep;
  for (int k = 0; k < op.nsrc; ++k)
    if (src[k]->rep != 8) p << ", " << names[k][op.nsrc - 1] << "_rep=" << src[k]->rep;
  p << c.mask.text() << "\n";
  return p.str();
}

// The reference: repeats in order, each reading all its active sources before writing.
void reference(Image& im, const OpInfo& op, Ty t, const Config& c, const Scalar& s) {
  int size = kTySize[t], epr = 256 / size;
  for (int64_t r = 0; r < c.mask.repeats(c.repeat, epr); ++r) {
    double fa[128], fb[128], fd[128];
    int64_t ia[128], ib[128];
    for (int i = 0; i < epr; ++i) {
      if (!c.mask.active(r, i, epr)) continue;
      const uint8_t* a = op.nsrc > 0 ? &im.b[c.src0.at(r, i, size)] : nullptr;
      const uint8_t* b = op.nsrc > 1 ? &im.b[c.src1.at(r, i, size)] : nullptr;
      if (is_fp(t)) {
        if (a) fa[i] = load_f(a, t);
        if (b) fb[i] = load_f(b, t);
        if (op.reads_dst) fd[i] = load_f(&im.b[c.dst.at(r, i, size)], t);
      } else {
        if (a) ia[i] = load_i(a, t);
        if (b) ib[i] = load_i(b, t);
      }
    }
    for (int i = 0; i < epr; ++i) {
      if (!c.mask.active(r, i, epr)) continue;
      int64_t off = c.dst.at(r, i, size);
      if (is_fp(t)) {
        bool amb = false;
        double v = fop(op.id, fa[i], fb[i], fd[i], s.f, amb, t == F32);
        im.write(off, t, f_bits(v, t), amb && v == 0 ? kAnyZero : kExact);
      } else {
        im.write(off, t, uint64_t(iop(op.id, ia[i], ib[i], s.i)), kExact);
      }
    }
  }
}

// Runs one instruction on the pooled UB and compares the whole UB with the reference's.
void check(const OpInfo& op, Ty t, const Config& c, const Scalar& s) {
  std::string text = program_text(op, t, c, s);
  SCOPED_TRACE(c.name + ":\n" + text);
  Harness h(text);
  std::memcpy(h.at(Space::UB, 0), pool(t).data(), kUB);
  Image im{pool(t), std::vector<uint8_t>(kUB, 0)};
  reference(im, op, t, c, s);
  // the reference itself must have produced something (except for repeat=0) and nothing for repeat=0
  EXPECT_EQ(im.writes > 0, c.repeat != 0 || c.mask.kind == Mask::Counter) << "reference wrote nothing";
  h.run_clean();
  expect_ub(h, im, t, c.name);
}

Scalar default_scalar(Ty t, int k) {
  static const double fnum[] = {1.5, -0.3, 3.0, -2.25};
  static const uint64_t f16reg[] = {0x3c00, 0xc100, 0x3555, 0x0003};
  static const uint64_t f32reg[] = {0x3f800000, 0xc0490fdb, 0x3eaaaaab, 0x00000005};
  static const int64_t inum[] = {-7, 12345, 3, -1}, unum[] = {7, 12345, 3, 65535};
  static const uint64_t ireg[] = {0xffff, 0x7ff3, 0xfffffff9, 0x12345};
  bool reg = k % 2;
  k = (k / 2) % 4;
  if (is_fp(t)) return reg ? register_scalar(t == F16 ? f16reg[k] : f32reg[k], t) : number_scalar(fnum[k], t);
  return reg ? register_scalar(ireg[k], t) : number_scalar(double(t == U16 ? unum[k] : inum[k]), t);
}

// ---- the parameterised sweep over every instruction x dtype x configuration -----------------------
struct Case {
  OpId op;
  Ty t;
};
std::vector<Case> all_cases() {
  std::vector<Case> v;
  for (const OpInfo& o : ops())
    for (Ty t : o.types) v.push_back({o.id, t});
  return v;
}
std::string case_name(const ::testing::TestParamInfo<Case>& i) {
  return std::string(op_named(i.param.op).name) + "_" + kTyName[i.param.t];
}

class VectorElementwise : public ::testing::TestWithParam<Case> {};

TEST_P(VectorElementwise, MatchesReferenceInEveryConfiguration) {
  const OpInfo& op = op_named(GetParam().op);
  Ty t = GetParam().t;
  int k = 0;
  for (const Config& c : configs(kTySize[t])) check(op, t, c, default_scalar(t, k++));
}

INSTANTIATE_TEST_SUITE_P(VectorAll, VectorElementwise, ::testing::ValuesIn(all_cases()), case_name);

// ---- the scalar operand: numbers (rounded to the dtype) and register bits -------------------------
class VectorElementwiseScalar : public ::testing::TestWithParam<Case> {};

TEST_P(VectorElementwiseScalar, NumbersAndRegisterBits) {
  const OpInfo& op = op_named(GetParam().op);
  Ty t = GetParam().t;
  std::vector<Scalar> scalars;
  switch (t) {
    case F16:
      for (double v : {0.1, -0.0, 65504.0, 70000.0, 1e-7, double(INFINITY), -double(INFINITY), double(NAN), 3.0})
        scalars.push_back(number_scalar(v, t));
      for (uint64_t r : {0x3c00ull, 0x8000ull, 0x0001ull, 0x7e00ull, 0xfc00ull, 0x123400003c00ull})
        scalars.push_back(register_scalar(r, t));
      break;
    case F32:
      for (double v : {0.1, -0.0, 3.4028234663852886e38, 1e-45, 1e39, double(INFINITY), double(NAN)})
        scalars.push_back(number_scalar(v, t));
      for (uint64_t r : {0x3f800000ull, 0x80000000ull, 0x00000001ull, 0x7fc00000ull, 0xff800000ull, 0xabcd00003f800000ull})
        scalars.push_back(register_scalar(r, t));
      break;
    case S16:
    case U16:
      for (double v : {t == S16 ? -7.0 : 7.0, 32767.0, 0.0, t == S16 ? -32768.0 : 65535.0}) scalars.push_back(number_scalar(v, t));
      for (uint64_t r : {0xffffull, 0x8000ull, 0x12340005ull}) scalars.push_back(register_scalar(r, t));
      break;
    case S32:
      for (double v : {-2147483648.0, 2147483647.0, -1.0}) scalars.push_back(number_scalar(v, t));
      for (uint64_t r : {0xffffffffull, 0x80000000ull, 0x1234567800000007ull}) scalars.push_back(register_scalar(r, t));
      break;
  }
  Config c{"scalar", 2, {0}, {4096}, {8192}, {}};
  for (const Scalar& s : scalars) check(op, t, c, s);
}

std::vector<Case> scalar_cases() {
  std::vector<Case> v;
  for (Case c : all_cases())
    if (op_named(c.op).scalar) v.push_back(c);
  return v;
}
INSTANTIATE_TEST_SUITE_P(VectorAll, VectorElementwiseScalar, ::testing::ValuesIn(scalar_cases()), case_name);

// The scalar's value in the dtype, checked directly (not through the reference).
TEST(VectorElementwiseScalarValue, Vdup) {
  struct Row {
    const char* type;
    const char* scalar;
    uint64_t want;
  } rows[] = {{"f16", "0.1", 0x2e66},        {"f16", "-0.0", 0x8000},         {"f16", "70000", 0x7c00},
              {"f16", "x1", 0x3c00},         {"f16", "1e-7", 0x0002},         {"f16", "-inf", 0xfc00},
              {"f32", "0.1", 0x3dcccccd},    {"f32", "x2", 0x3f800000},       {"f32", "-0.0", 0x80000000},
              {"s16", "-7", 0xfff9},         {"s16", "x3", 0xffff},           {"u16", "65535", 0xffff},
              {"s32", "-2147483648", 0x80000000}, {"s32", "x4", 0xfffffffe}};
  for (const Row& r : rows) {
    std::string text = std::string("li x1, 0x77773c00\nli x2, 0x123456783f800000\nli x3, 0xffff\nli x4, 0xfffffffe\n") +
                       "vdup." + r.type + " ub[64], " + r.scalar + ", mask=3\n";
    SCOPED_TRACE(text);
    Harness h(text);
    std::memset(h.at(Space::UB, 0), 0xab, 256);
    h.run_clean();
    int size = r.type[1] == '1' ? 2 : 4;
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(load_bits(h.at(Space::UB, 64 + i * size), size), i < 3 ? r.want : (size == 2 ? 0xababu : 0xababababu)) << i;
  }
}

// ---- hand-checked fp16 corner cases ---------------------------------------------------------------
struct Corner {
  OpId op;
  uint16_t a, b, d;  // src0 (src), src1, dst before
  const char* scalar;
  uint16_t want;
};
constexpr uint16_t NaN16 = 0x7e00;  // "some NaN"

const std::vector<Corner>& corners() {
  static const std::vector<Corner> v = {
      {ADD, 0x0000, 0x8000, 0, "", 0x0000}, {ADD, 0x8000, 0x8000, 0, "", 0x8000}, {ADD, 0x0001, 0x0001, 0, "", 0x0002},
      {ADD, 0x03ff, 0x0001, 0, "", 0x0400}, {ADD, 0x7bff, 0x4c00, 0, "", 0x7c00}, {ADD, 0x7bff, 0x4800, 0, "", 0x7bff},
      {ADD, 0x7bff, 0x7bff, 0, "", 0x7c00}, {ADD, 0x7c00, 0xfc00, 0, "", NaN16},  {ADD, 0x7c00, 0x3c00, 0, "", 0x7c00},
      {ADD, 0x7e00, 0x3c00, 0, "", NaN16},  {ADD, 0x3c00, 0x1000, 0, "", 0x3c00}, {ADD, 0x3c01, 0x1000, 0, "", 0x3c02},
      {SUB, 0x3c00, 0x3c00, 0, "", 0x0000}, {SUB, 0x8000, 0x0000, 0, "", 0x8000}, {SUB, 0x7c00, 0x7c00, 0, "", NaN16},
      {SUB, 0xfbff, 0x4c00, 0, "", 0xfc00}, {SUB, 0x0400, 0x0001, 0, "", 0x03ff},
      {MUL, 0x0001, 0x3800, 0, "", 0x0000}, {MUL, 0x0003, 0x3800, 0, "", 0x0002}, {MUL, 0x8001, 0x3800, 0, "", 0x8000},
      {MUL, 0x7c00, 0x0000, 0, "", NaN16},  {MUL, 0x5c00, 0x5c00, 0, "", 0x7c00}, {MUL, 0x7bff, 0x3c00, 0, "", 0x7bff},
      {MUL, 0x0400, 0x0400, 0, "", 0x0000}, {MUL, 0xbc00, 0x0000, 0, "", 0x8000},
      {DIV, 0x3c00, 0x0000, 0, "", 0x7c00}, {DIV, 0xbc00, 0x0000, 0, "", 0xfc00}, {DIV, 0x3c00, 0x8000, 0, "", 0xfc00},
      {DIV, 0x0000, 0x0000, 0, "", NaN16},  {DIV, 0x7c00, 0x7c00, 0, "", NaN16},  {DIV, 0x3c00, 0x7c00, 0, "", 0x0000},
      {DIV, 0x3c00, 0x4200, 0, "", 0x3555}, {DIV, 0x0001, 0x4000, 0, "", 0x0000}, {DIV, 0x7bff, 0x3800, 0, "", 0x7c00},
      {MAX, 0x7e00, 0x3c00, 0, "", NaN16},  {MAX, 0x3c00, 0x7e00, 0, "", NaN16},  {MAX, 0xfc00, 0x0001, 0, "", 0x0001},
      {MAX, 0x7c00, 0x7bff, 0, "", 0x7c00}, {MAX, 0x8001, 0x0000, 0, "", 0x0000}, {MAX, 0xfc00, 0x7e00, 0, "", NaN16},
      {MIN, 0x3c00, 0x7e00, 0, "", NaN16},  {MIN, 0x7e00, 0x3c00, 0, "", NaN16},  {MIN, 0xfc00, 0x0001, 0, "", 0xfc00},
      {MIN, 0x8001, 0x0001, 0, "", 0x8001}, {MIN, 0x7c00, 0x7e00, 0, "", NaN16},
      {EXP, 0x0000, 0, 0, "", 0x3c00}, {EXP, 0xfc00, 0, 0, "", 0x0000}, {EXP, 0x7c00, 0, 0, "", 0x7c00},
      {EXP, 0x4a00, 0, 0, "", 0x7c00}, {EXP, 0x7e00, 0, 0, "", NaN16},  {EXP, 0xcc00, 0, 0, "", 0x0002},
      {EXP, 0x3c00, 0, 0, "", 0x4170}, {EXP, 0x8000, 0, 0, "", 0x3c00},
      {LN, 0x0000, 0, 0, "", 0xfc00}, {LN, 0x8000, 0, 0, "", 0xfc00}, {LN, 0xbc00, 0, 0, "", NaN16},
      {LN, 0x3c00, 0, 0, "", 0x0000}, {LN, 0x7c00, 0, 0, "", 0x7c00}, {LN, 0x0001, 0, 0, "", 0xcc29},
      {LN, 0xfc00, 0, 0, "", NaN16},  {LN, 0x8001, 0, 0, "", NaN16},
      {ABS, 0x8000, 0, 0, "", 0x0000}, {ABS, 0xfc00, 0, 0, "", 0x7c00}, {ABS, 0x8001, 0, 0, "", 0x0001},
      {ABS, 0xfe00, 0, 0, "", NaN16},  {ABS, 0xfbff, 0, 0, "", 0x7bff},
      {REC, 0x0000, 0, 0, "", 0x7c00}, {REC, 0x8000, 0, 0, "", 0xfc00}, {REC, 0x7c00, 0, 0, "", 0x0000},
      {REC, 0xfc00, 0, 0, "", 0x8000}, {REC, 0x0001, 0, 0, "", 0x7c00}, {REC, 0x4200, 0, 0, "", 0x3555},
      {REC, 0x7bff, 0, 0, "", 0x0100}, {REC, 0x7e00, 0, 0, "", NaN16},
      {RSQRT, 0x0000, 0, 0, "", 0x7c00}, {RSQRT, 0x8000, 0, 0, "", 0xfc00}, {RSQRT, 0xbc00, 0, 0, "", NaN16},
      {RSQRT, 0x7c00, 0, 0, "", 0x0000}, {RSQRT, 0x4400, 0, 0, "", 0x3800}, {RSQRT, 0x0001, 0, 0, "", 0x6c00},
      {SQRT, 0x8000, 0, 0, "", 0x8000}, {SQRT, 0xbc00, 0, 0, "", NaN16}, {SQRT, 0x0001, 0, 0, "", 0x0c00},
      {SQRT, 0x7c00, 0, 0, "", 0x7c00}, {SQRT, 0x4000, 0, 0, "", 0x3da8}, {SQRT, 0xfc00, 0, 0, "", NaN16},
      {RELU, 0x8000, 0, 0, "", 0x0000}, {RELU, 0xbc00, 0, 0, "", 0x0000}, {RELU, 0x7e00, 0, 0, "", NaN16},
      {RELU, 0x0001, 0, 0, "", 0x0001}, {RELU, 0xfc00, 0, 0, "", 0x0000}, {RELU, 0x7c00, 0, 0, "", 0x7c00},
      {ADDS, 0x7bff, 0, 0, "16", 0x7c00}, {ADDS, 0x7bff, 0, 0, "15.0", 0x7bff}, {ADDS, 0x3c00, 0, 0, "nan", NaN16},
      {MULS, 0x3c00, 0, 0, "-0.0", 0x8000}, {MULS, 0x0001, 0, 0, "0.5", 0x0000}, {MULS, 0x7c00, 0, 0, "0", NaN16},
      {MAXS, 0x3c00, 0, 0, "nan", NaN16}, {MAXS, 0xfc00, 0, 0, "-65504", 0xfbff}, {MAXS, 0x7e00, 0, 0, "1", NaN16},
      {MINS, 0x3c00, 0, 0, "-inf", 0xfc00}, {MINS, 0x3c00, 0, 0, "0.1", 0x2e66}, {MINS, 0x7e00, 0, 0, "1", NaN16},
      // fused: computed in double and rounded once, no intermediate overflow or rounding
      {AXPY, 0x7bff, 0, 0xfbff, "2", 0x7bff}, {AXPY, 0x3c00, 0, 0x0001, "1", 0x3c00},
      {MLA, 0x7bff, 0x4000, 0xfbff, "", 0x7bff}, {MLA, 0x3c01, 0x3c01, 0xbc02, "", 0x0010},
      {MADD, 0x4000, 0xfbff, 0x7bff, "", 0x7bff}, {MADD, 0x3c01, 0xbc02, 0x3c01, "", 0x0010},
  };
  return v;
}

TEST(VectorElementwiseF16Corners, HandCheckedBits) {
  for (const Corner& k : corners()) {
    const OpInfo& op = op_named(k.op);
    std::string text = std::string(op.name) + ".f16 ub[0], " + (op.nsrc > 0 ? "ub[256], " : "") +
                       (op.nsrc > 1 ? "ub[512], " : "") + (op.scalar ? std::string(k.scalar) + ", " : "") + "mask=2\n";
    SCOPED_TRACE(text + " a=" + std::to_string(k.a) + " b=" + std::to_string(k.b) + " d=" + std::to_string(k.d));
    Harness h(text);
    uint16_t fill[256];
    for (auto& x : fill) x = 0x5555;
    std::memcpy(h.at(Space::UB, 0), fill, 512);
    std::memcpy(h.at(Space::UB, 512), fill, 512);
    h.put<uint16_t>(Space::UB, 0, {k.d, k.d});
    h.put<uint16_t>(Space::UB, 256, {k.a, k.a});
    h.put<uint16_t>(Space::UB, 512, {k.b, k.b});
    h.run_clean();
    for (int i = 0; i < 3; ++i) {
      uint16_t got = h.get<uint16_t>(Space::UB, 2 * i, 1)[0];
      uint16_t want = i < 2 ? k.want : 0x5555;
      if (want == NaN16) EXPECT_TRUE(is_nan_bits(got, F16)) << std::hex << "got 0x" << got;
      else EXPECT_EQ(got, want) << std::hex << "got 0x" << got << " want 0x" << want << " element " << i;
    }
    // the sweep's reference must agree with the hand-checked value too
    bool amb = false;
    double s = op.scalar ? (std::string(k.scalar) == "nan" ? NAN : std::string(k.scalar) == "-inf" ? -INFINITY
                                                                                                    : std::stod(k.scalar))
                         : 0;
    uint16_t ref = f64_to_f16(fop(op.id, f16_to_f32(k.a), f16_to_f32(k.b), f16_to_f32(k.d),
                                  f16_to_f32(f64_to_f16(s)), amb, false));
    if (k.want == NaN16) EXPECT_TRUE(is_nan_bits(ref, F16));
    else EXPECT_EQ(ref, k.want) << "reference disagrees";
  }
}

}  // namespace
}  // namespace cubekit::test
