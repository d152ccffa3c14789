// Vector elementwise instructions: binary, unary, with a scalar, fused multiply-adds, duplicate.
//
// Arithmetic: float types are computed in double from exact inputs and rounded once to the
// destination type (nearest even) -- for + - * / sqrt that is the correctly rounded result;
// exp/ln/rsqrt are double-precision approximations rounded once. Integer types wrap. A dense
// repeat of vadd .. vmin in f16 or f32 goes to vector_simd.h instead: float on AVX2 and F16C,
// the same bits (float has the 2p + 2 bits over f16 that make its one extra rounding innocuous);
// so does a dense vexp in f32, whose polynomial hands std::exp every lane it could round apart.
// Within one instruction, repeat r reads all its sources before it writes, repeats in order.
#include "emulator/rounding.h"
#include "emulator/vector_engine.h"
#include "emulator/vector_simd.h"

#include <cmath>

namespace cubekit {
namespace isa {

std::vector<OperandSpec> vec_operands(int nsrc, bool has_scalar) {
  static constexpr std::string_view one[] = {"src", "src_blk", "src_rep"};
  static constexpr std::string_view two[2][3] = {{"src0", "src0_blk", "src0_rep"}, {"src1", "src1_blk", "src1_rep"}};
  auto name = [&](int s, int what) { return nsrc == 1 ? one[what] : two[s][what]; };
  std::vector<OperandSpec> ops = {mem("dst", bit(Space::UB), "destination")};
  for (int s = 0; s < nsrc; ++s) ops.push_back(mem(name(s, 0), bit(Space::UB), "source"));
  if (has_scalar) ops.push_back(scalar("scalar", "scalar operand (register bits or a number), rounded to the dtype (a float past its range to inf)"));
  ops.push_back(kw("repeat", 0, 255, 1, "repeats"));
  ops.push_back(kw("dst_blk", 0, 255, 1, "dst block stride (32 B blocks)"));
  for (int s = 0; s < nsrc; ++s) ops.push_back(kw(name(s, 1), 0, 255, 1, "source block stride (32 B blocks)"));
  ops.push_back(kw("dst_rep", 0, 255, 8, "dst repeat stride (32 B blocks)"));
  for (int s = 0; s < nsrc; ++s) ops.push_back(kw(name(s, 2), 0, 255, 8, "source repeat stride (32 B blocks)"));
  ops.push_back(mask_operand());
  return ops;
}

}  // namespace isa

namespace {

using namespace isa;

// x * y + z, rounded once: what the fused instructions return for their domain to evaluate.
template <class T>
struct Fma {
  T x, y, z;
};

// How each dtype is loaded into the arithmetic domain and stored back.
struct DomF16 {
  using T = double;
  static T get(const uint8_t* p) { return f16_to_f32(load<uint16_t>(p)); }
  static void put(uint8_t* p, T v) { store<uint16_t>(p, f64_to_f16(v)); }
  static T from_scalar(double s) { return s; }
  // For f16 operands the exact x*y+z spans few enough bits that double arithmetic followed by the
  // rounding to f16 rounds it once.
  static T fma(const Fma<T>& f) { return f.x * f.y + f.z; }
};
struct DomF32 {
  using T = double;
  static T get(const uint8_t* p) { return load<float>(p); }
  static void put(uint8_t* p, T v) { store<float>(p, float(v)); }
  static T from_scalar(double s) { return s; }
  static T fma(const Fma<T>& f) { return std::fmaf(float(f.x), float(f.y), float(f.z)); }  // IEEE fused
};
template <class S>
struct DomInt {
  using T = int64_t;
  static T get(const uint8_t* p) { return load<S>(p); }
  static void put(uint8_t* p, T v) { store<S>(p, S(uint64_t(v))); }
  static T from_scalar(double s) { return int64_t(s); }
  static T fma(const Fma<T>& f) { return f.x * f.y + f.z; }
};

enum Kinds { kFloat = 1, kInt = 2 };

template <class Op, int NSrc, bool HasScalar, bool ReadsDst, class Dom, SimdOp Simd>
void run_elementwise(const Issued& I, const ExecContext& ctx) {
  using T = typename Dom::T;
  constexpr VecSlots S{NSrc, HasScalar};
  int size = dtype_size(I.type()), epr = 256 / size;
  VecMask m = vec_mask(I, S.mask(), S.repeat(), epr);
  VecOperand dst{S.dst(), size, I[S.blk(0)] * 32, I[S.rep(0)] * 32};
  VecOperand src[2] = {};
  const uint8_t* src_base[2] = {};
  for (int s = 0; s < NSrc; ++s) {
    src[s] = {S.src(s), size, I[S.blk(1 + s)] * 32, I[S.rep(1 + s)] * 32};
    src_base[s] = ctx.ptr(I, S.src(s));
  }
  uint8_t* dst_base = ctx.ptr(I, S.dst());
  T scalar{};
  if constexpr (HasScalar) scalar = Dom::from_scalar(scalar_of(I, S.scalar()));
  Op op;
  T a[128], b[128], d[128];
  // Dense: every repeat's active elements are [0, prefix), no mask bit to test; contiguous besides:
  // each operand's repeat is 256 bytes back to back (block stride 1), element i of repeat r at
  // r * rep + i * size. Nearly every compiled kernel's instructions are both, a row broadcast (block
  // stride 0) dense only.
  const bool dense = m.mode != MaskMode::Bits;
  bool contiguous = dense && dst.blk == 32;
  for (int s = 0; s < NSrc; ++s) contiguous = contiguous && src[s].blk == 32;
  auto run = [&]<bool Dense, bool Contiguous>() {
    for (int64_t r = 0; r < m.repeats; ++r) {
      const int n = m.prefix(r);
      auto on = [&](int i) { return Dense || m.active(r, i); };
      auto at = [&](const VecOperand& o, int i) { return Contiguous ? r * o.rep + int64_t(i) * size : o.offset(r, i); };
      if constexpr (Dense && Simd != SimdOp::None && NSrc == 2 && !HasScalar && !ReadsDst)
        if (simd_binary(Simd, I.type(), {src_base[0] + r * src[0].rep, src[0].blk}, {src_base[1] + r * src[1].rep, src[1].blk},
                        dst_base + r * dst.rep, dst.blk, n))
          continue;
      for (int i = 0; i < n; ++i) {
        if (!on(i)) continue;
        if constexpr (NSrc > 0) a[i] = Dom::get(src_base[0] + at(src[0], i));
        if constexpr (NSrc > 1) b[i] = Dom::get(src_base[1] + at(src[1], i));
        if constexpr (ReadsDst) d[i] = Dom::get(dst_base + at(dst, i));
      }
      if constexpr (Dense && Simd == SimdOp::Exp && std::is_same_v<Dom, DomF32>)
        if (simd_exp_to_f32(a, d, n)) {
          for (int i = 0; i < n; ++i) Dom::put(dst_base + at(dst, i), d[i]);
          continue;
        }
      for (int i = 0; i < n; ++i) {
        if (!on(i)) continue;
        auto value = [&] {
          if constexpr (NSrc == 0) return op(scalar);
          else if constexpr (NSrc == 1 && !HasScalar) return op(a[i]);
          else if constexpr (NSrc == 1 && !ReadsDst) return op(a[i], scalar);
          else if constexpr (NSrc == 1) return op(a[i], scalar, d[i]);
          else if constexpr (!ReadsDst) return op(a[i], b[i]);
          else return op(a[i], b[i], d[i]);
        }();
        if constexpr (std::is_same_v<decltype(value), Fma<T>>) Dom::put(dst_base + at(dst, i), Dom::fma(value));
        else Dom::put(dst_base + at(dst, i), T(value));
      }
    }
  };
  if (contiguous) run.template operator()<true, true>();
  else if (dense) run.template operator()<true, false>();
  else run.template operator()<false, false>();
}

template <class Op, int NSrc, bool HasScalar, bool ReadsDst, int K, SimdOp Simd>
void elementwise_exec(const Issued& I, const ExecContext& ctx) {
  switch (I.type()) {
    case DType::f16:
      if constexpr (K & kFloat) return run_elementwise<Op, NSrc, HasScalar, ReadsDst, DomF16, Simd>(I, ctx);
      break;
    case DType::f32:
      if constexpr (K & kFloat) return run_elementwise<Op, NSrc, HasScalar, ReadsDst, DomF32, Simd>(I, ctx);
      break;
    case DType::s16:
      if constexpr (K & kInt) return run_elementwise<Op, NSrc, HasScalar, ReadsDst, DomInt<int16_t>, SimdOp::None>(I, ctx);
      break;
    case DType::u16:
      if constexpr (K & kInt) return run_elementwise<Op, NSrc, HasScalar, ReadsDst, DomInt<uint16_t>, SimdOp::None>(I, ctx);
      break;
    case DType::s32:
      if constexpr (K & kInt) return run_elementwise<Op, NSrc, HasScalar, ReadsDst, DomInt<int32_t>, SimdOp::None>(I, ctx);
      break;
    default: break;
  }
  CUBEKIT_ASSERT(false, "{} has no {} form", spec_of(*I.instr).mnemonic, dtype_name(I.type()));
}

template <int NSrc, bool HasScalar, bool ReadsDst>
void elementwise_footprint(const Issued& I, const ChipConfig& chip, Footprint& fp) {
  constexpr VecSlots S{NSrc, HasScalar};
  int size = dtype_size(I.type());
  VecMask m = vec_mask(I, S.mask(), S.repeat(), 256 / size);
  int64_t align = chip.alignment(Space::UB);
  for (int s = 0; s < NSrc; ++s)
    add_vec_region(fp, I, {S.src(s), size, I[S.blk(1 + s)] * 32, I[S.rep(1 + s)] * 32}, m, false, align);
  VecOperand dst{S.dst(), size, I[S.blk(0)] * 32, I[S.rep(0)] * 32};
  if (ReadsDst) add_vec_region(fp, I, dst, m, false, align);
  add_vec_region(fp, I, dst, m, true, align);
}

}  // namespace

namespace isa {
std::string mask_check(const Instr& in, int& operand) {
  const InstrSpec& s = spec_of(in);
  int mask = s.operand_index("mask"), repeat = s.operand_index("repeat");
  if (mask >= 0 && repeat >= 0 && in.ops[mask].mask == MaskMode::Counter && in.ops[repeat].imm != 1) {
    operand = repeat;
    return "in counter mode the repeat count follows from the element count: drop 'repeat'";
  }
  if (mask < 0) return {};
  int epr = 256 / std::max(dtype_size(in.type[0]), in.ntypes > 1 ? dtype_size(in.type[1]) : 1);
  const Operand& m = in.ops[mask];
  if (m.mask == MaskMode::Count && (m.imm < 1 || m.imm > epr)) {
    operand = mask;
    return fmt::format("mask={} is out of range: a {}-element repeat takes 1..{}", m.imm, epr, epr);
  }
  if (m.mask == MaskMode::Bits && epr <= 64 && m.hi != 0) {
    operand = mask;
    return fmt::format("mask={:#x}:{:#x} sets bits above 63, but a {}-element repeat has only bits 0..{}: clear the "
                       "high word", m.hi, uint64_t(m.imm), epr, epr - 1);
  }
  return {};
}
}  // namespace isa

namespace {
using namespace isa;

const std::vector<std::array<DType, kMaxTypes>> kArith = {{DType::f16}, {DType::f32}, {DType::s16}, {DType::s32}};
const std::vector<std::array<DType, kMaxTypes>> kFloats = {{DType::f16}, {DType::f32}};
const std::vector<std::array<DType, kMaxTypes>> kBits = {{DType::s16}, {DType::u16}};

template <int NSrc, bool HasScalar, VecClass C>
Work elementwise_work(const Issued& I, const ChipConfig&) {
  constexpr VecSlots S{NSrc, HasScalar};
  return {Work::Kind::Vector, vec_mask(I, S.mask(), S.repeat(), 256 / dtype_size(I.type())).repeats, C};
}

template <int NSrc, bool HasScalar, bool ReadsDst, int K, VecClass C = VecClass::Simple, SimdOp Simd = SimdOp::None,
          class Op>
InstrSpec vec_spec(std::string_view mnemonic, std::vector<std::array<DType, kMaxTypes>> types,
                   std::string_view summary, std::string_view semantics, Op) {
  return {.mnemonic = mnemonic, .pipe = Pipe::V, .ntypes = 1, .types = std::move(types),
          .operands = vec_operands(NSrc, HasScalar), .summary = summary, .semantics = semantics,
          .exec = elementwise_exec<Op, NSrc, HasScalar, ReadsDst, K, Simd>,
          .footprint = elementwise_footprint<NSrc, HasScalar, ReadsDst>, .validate = mask_check,
          .work = elementwise_work<NSrc, HasScalar, C>};
}

// NaN-propagating max/min, as the vector unit's compare-select does.
template <class T>
T max_of(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  return a > b ? a : b;
}
template <class T>
T min_of(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  return a < b ? a : b;
}
template <class T>
T relu(T a) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(a)) return a;
  return a > 0 ? a : T(0);
}

}  // namespace

void add_vector_instructions(std::vector<InstrSpec>& t) {
  add_vector_elementwise(t);
  add_vector_reduce(t);
  add_vector_move(t);
}

void add_vector_elementwise(std::vector<InstrSpec>& t) {
  constexpr int F = kFloat, FI = kFloat | kInt, I = kInt;
  t.push_back(vec_spec<2, false, false, FI, VecClass::Simple, SimdOp::Add>("vadd", kArith, "dst = src0 + src1", "`dst[i] = src0[i] + src1[i]`",
                                            [](auto a, auto b) { return a + b; }));
  t.push_back(vec_spec<2, false, false, FI, VecClass::Simple, SimdOp::Sub>("vsub", kArith, "dst = src0 - src1", "`dst[i] = src0[i] - src1[i]`",
                                            [](auto a, auto b) { return a - b; }));
  t.push_back(vec_spec<2, false, false, FI, VecClass::Simple, SimdOp::Mul>("vmul", kArith, "dst = src0 * src1", "`dst[i] = src0[i] * src1[i]`",
                                            [](auto a, auto b) { return a * b; }));
  t.push_back(vec_spec<2, false, false, F, VecClass::Complex, SimdOp::Div>("vdiv", kFloats, "dst = src0 / src1", "`dst[i] = src0[i] / src1[i]` (IEEE: x/0 is inf or NaN)",
                                           [](auto a, auto b) { return a / b; }));
  t.push_back(vec_spec<2, false, false, FI, VecClass::Simple, SimdOp::Max>("vmax", kArith, "dst = max(src0, src1)", "`dst[i] = max(src0[i], src1[i])`, NaN if either is NaN; of equal values (+0 and -0) src1",
                                            [](auto a, auto b) { return max_of(a, b); }));
  t.push_back(vec_spec<2, false, false, FI, VecClass::Simple, SimdOp::Min>("vmin", kArith, "dst = min(src0, src1)", "`dst[i] = min(src0[i], src1[i])`, NaN if either is NaN; of equal values (+0 and -0) src1",
                                            [](auto a, auto b) { return min_of(a, b); }));
  t.push_back(vec_spec<2, false, false, I>("vand", kBits, "dst = src0 & src1 (bitwise)", "`dst[i] = src0[i] & src1[i]`",
                                           [](auto a, auto b) { return a & b; }));
  t.push_back(vec_spec<2, false, false, I>("vor", kBits, "dst = src0 | src1 (bitwise)", "`dst[i] = src0[i] | src1[i]`",
                                           [](auto a, auto b) { return a | b; }));
  t.push_back(vec_spec<1, false, false, F, VecClass::Complex, SimdOp::Exp>("vexp", kFloats, "dst = exp(src)", "`dst[i] = e^src[i]` (double precision, rounded once)",
                                           [](auto a) { return std::exp(a); }));
  t.push_back(vec_spec<1, false, false, F, VecClass::Complex>("vln", kFloats, "dst = ln(src)", "`dst[i] = ln(src[i])`: -inf at 0, NaN below",
                                           [](auto a) { return std::log(a); }));
  t.push_back(vec_spec<1, false, false, FI>("vabs", kArith, "dst = |src|", "`dst[i] = |src[i]|` (integers wrap: |min| = min)",
                                            [](auto a) {
                                              if constexpr (std::is_floating_point_v<decltype(a)>) return std::fabs(a);
                                              else return a < 0 ? -a : a;
                                            }));
  t.push_back(vec_spec<1, false, false, F, VecClass::Complex>("vrec", kFloats, "dst = 1 / src", "`dst[i] = 1 / src[i]`",
                                           [](auto a) { return 1.0 / a; }));
  t.push_back(vec_spec<1, false, false, F, VecClass::Complex>("vrsqrt", kFloats, "dst = 1 / sqrt(src)", "`dst[i] = 1 / sqrt(src[i])`",
                                           [](auto a) { return 1.0 / std::sqrt(a); }));
  t.push_back(vec_spec<1, false, false, F, VecClass::Complex>("vsqrt", kFloats, "dst = sqrt(src)", "`dst[i] = sqrt(src[i])`, NaN below 0",
                                           [](auto a) { return std::sqrt(a); }));
  t.push_back(vec_spec<1, false, false, FI>("vrelu", {{DType::f16}, {DType::f32}, {DType::s32}}, "dst = max(src, 0)",
                                            "`dst[i] = src[i] > 0 ? src[i] : 0` (NaN stays NaN)",
                                            [](auto a) { return relu(a); }));
  t.push_back(vec_spec<1, false, false, I>("vnot", kBits, "dst = ~src (bitwise)", "`dst[i] = ~src[i]`",
                                           [](auto a) { return ~a; }));
  t.push_back(vec_spec<1, true, false, FI>("vadds", kArith, "dst = src + scalar", "`dst[i] = src[i] + scalar`",
                                           [](auto a, auto s) { return a + s; }));
  t.push_back(vec_spec<1, true, false, FI>("vmuls", kArith, "dst = src * scalar", "`dst[i] = src[i] * scalar`",
                                           [](auto a, auto s) { return a * s; }));
  t.push_back(vec_spec<1, true, false, FI>("vmaxs", kArith, "dst = max(src, scalar)", "`dst[i] = max(src[i], scalar)` (of equal values, +0 and -0, the scalar)",
                                           [](auto a, auto s) { return max_of(a, s); }));
  t.push_back(vec_spec<1, true, false, FI>("vmins", kArith, "dst = min(src, scalar)", "`dst[i] = min(src[i], scalar)` (of equal values, +0 and -0, the scalar)",
                                           [](auto a, auto s) { return min_of(a, s); }));
  t.push_back(vec_spec<1, true, true, F>("vaxpy", kFloats, "dst = scalar * src + dst",
                                         "`dst[i] = scalar * src[i] + dst[i]`, fused: the exact value rounded once",
                                         [](auto a, auto s, auto d) { return Fma<decltype(a)>{s, a, d}; }));
  t.push_back(vec_spec<2, false, true, F>("vmla", kFloats, "dst = src0 * src1 + dst",
                                          "`dst[i] = src0[i] * src1[i] + dst[i]`, fused: the exact value rounded once",
                                          [](auto a, auto b, auto d) { return Fma<decltype(a)>{a, b, d}; }));
  t.push_back(vec_spec<2, false, true, F>("vmadd", kFloats, "dst = src0 * dst + src1",
                                          "`dst[i] = src0[i] * dst[i] + src1[i]`, fused: the exact value rounded once",
                                          [](auto a, auto b, auto d) { return Fma<decltype(a)>{a, d, b}; }));
  t.push_back(vec_spec<0, true, false, FI>("vdup", {{DType::f16}, {DType::f32}, {DType::s16}, {DType::u16}, {DType::s32}},
                                           "dst = scalar", "`dst[i] = scalar`", [](auto s) { return s; }));
}

}  // namespace cubekit
