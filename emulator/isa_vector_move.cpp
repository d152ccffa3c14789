// Vector data movement and reshaping: type conversion, broadcast, 16x16 transpose, and the
// L0C -> UB move of the coupled core (on the V pipe) with its optional ReLU and f32 -> f16 cast.
#include "emulator/rounding.h"
#include "emulator/vector_engine.h"
#include "emulator/vector_simd.h"

#include <limits>

namespace cubekit {
namespace {

using namespace isa;

// ---- vconv --------------------------------------------------------------------------------------
// Standard one-source operands plus `round`. A repeat converts 256 / (wider element size)
// elements; each operand's strides still count 32 B blocks of its own elements.
constexpr VecSlots kConv{1, false};
constexpr int kRound = kConv.mask() + 1;
const std::vector<std::string_view> kRoundModes = {"none", "rint", "floor", "ceil", "round", "trunc", "odd"};

std::pair<int64_t, int64_t> int_range(DType t) {
  switch (t) {
    case DType::s8: return {-128, 127};
    case DType::u8: return {0, 255};
    case DType::s16: return {-32768, 32767};
    case DType::u16: return {0, 65535};
    default: return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
  }
}

void convert(uint8_t* dst, DType to, double v, RoundMode mode) {
  if (mode == RoundMode::none) mode = RoundMode::rint;  // 'none' rounds to nearest when the value does not fit
  switch (to) {
    case DType::f16: store<uint16_t>(dst, mode == RoundMode::rint ? f64_to_f16(v) : double_to_f16(v, mode)); return;
    case DType::f32: store<float>(dst, mode == RoundMode::rint ? float(v) : double_to_f32(v, mode)); return;
    case DType::bf16: store<uint16_t>(dst, double_to_bf16(v, mode)); return;
    default: {
      auto [lo, hi] = int_range(to);
      store_from_double(dst, to, double(double_to_int(v, mode, lo, hi)));
    }
  }
}

int conv_epr(const Issued& I) { return 256 / std::max(dtype_size(I.type(0)), dtype_size(I.type(1))); }

// A conversion of flat repeats (vconv_exec): element i of repeat r at r * rep + i * size on both
// sides. Each repeat is read whole before it is written: dst may overlap src.
template <typename From, typename To>
void convert_flat(const VecMask& m, const uint8_t* ps, int64_t src_rep, uint8_t* pd, int64_t dst_rep, To (*f)(From)) {
  constexpr DType kFrom = sizeof(From) == 2 ? DType::f16 : DType::f32, kTo = sizeof(To) == 2 ? DType::f16 : DType::f32;
  for (int64_t r = 0; r < m.repeats; ++r) {
    To out[64];
    const int n = m.prefix(r);
    if (simd_convert(kFrom, kTo, ps + r * src_rep, pd + r * dst_rep, n)) continue;
    for (int i = 0; i < n; ++i) out[i] = f(load<From>(ps + r * src_rep + i * int64_t(sizeof(From))));
    for (int i = 0; i < n; ++i) store<To>(pd + r * dst_rep + i * int64_t(sizeof(To)), out[i]);
  }
}

void vconv_exec(const Issued& I, const ExecContext& ctx) {
  DType to = I.type(0), from = I.type(1);
  VecMask m = vec_mask(I, kConv.mask(), kConv.repeat(), conv_epr(I));
  VecOperand d{0, dtype_size(to), I[kConv.blk(0)] * 32, I[kConv.rep(0)] * 32};
  VecOperand s{1, dtype_size(from), I[kConv.blk(1)] * 32, I[kConv.rep(1)] * 32};
  uint8_t* pd = ctx.ptr(I, 0);
  const uint8_t* ps = ctx.ptr(I, 1);
  RoundMode mode = RoundMode(I[kRound]);
  if (mode == RoundMode::none) mode = RoundMode::rint;  // see convert()
  const bool flat = m.mode != MaskMode::Bits && d.blk == 32 && s.blk == 32;  // as run_elementwise's
  // The softmax's and the epilogues' own conversions, without the per-element type switches.
  if (flat && mode == RoundMode::rint && from == DType::f16 && to == DType::f32)
    return convert_flat<uint16_t, float>(m, ps, s.rep, pd, d.rep, f16_to_f32);
  if (flat && mode == RoundMode::rint && from == DType::f32 && to == DType::f16)
    return convert_flat<float, uint16_t>(m, ps, s.rep, pd, d.rep, f32_to_f16);
  double v[128];
  for (int64_t r = 0; r < m.repeats; ++r) {
    int n = m.prefix(r);
    for (int i = 0; i < n; ++i)
      if (m.active(r, i)) v[i] = load_as_double(ps + s.offset(r, i), from);
    for (int i = 0; i < n; ++i)
      if (m.active(r, i)) convert(pd + d.offset(r, i), to, v[i], mode);
  }
}

Work vconv_work(const Issued& I, const ChipConfig&) {
  return {Work::Kind::Vector, vec_mask(I, kConv.mask(), kConv.repeat(), conv_epr(I)).repeats};
}

void vconv_footprint(const Issued& I, const ChipConfig& chip, Footprint& fp) {
  VecMask m = vec_mask(I, kConv.mask(), kConv.repeat(), conv_epr(I));
  int64_t align = chip.alignment(Space::UB);
  add_vec_region(fp, I, {1, dtype_size(I.type(1)), I[kConv.blk(1)] * 32, I[kConv.rep(1)] * 32}, m, false, align);
  add_vec_region(fp, I, {0, dtype_size(I.type(0)), I[kConv.blk(0)] * 32, I[kConv.rep(0)] * 32}, m, true, align);
}

std::vector<OperandSpec> vconv_operands() {
  std::vector<OperandSpec> ops = vec_operands(1, false);
  ops.push_back(choice("round", kRoundModes, 0, "rounding of inexact results (none: nearest even)"));
  return ops;
}

// ---- vbrcb --------------------------------------------------------------------------------------
enum BSlot { kBDst, kBSrc, kBRepeat, kBDstBlk, kBDstRep };

void vbrcb_exec(const Issued& I, const ExecContext& ctx) {
  int size = dtype_size(I.type());
  uint8_t* d = ctx.ptr(I, kBDst);
  const uint8_t* s = ctx.ptr(I, kBSrc);
  for (int64_t r = 0; r < I[kBRepeat]; ++r) {
    uint8_t vals[8 * 4];
    std::memcpy(vals, s + r * 8 * size, 8 * size);  // read before writing: dst may overlap src
    for (int b = 0; b < 8; ++b)
      for (int e = 0; e < 32 / size; ++e)
        std::memcpy(d + r * I[kBDstRep] * 32 + b * I[kBDstBlk] * 32 + e * size, vals + b * size, size);
  }
}

void vbrcb_footprint(const Issued& I, const ChipConfig& chip, Footprint& fp) {
  int size = dtype_size(I.type());
  int64_t align = chip.alignment(Space::UB);
  fp.add({.operand = kBSrc, .space = Space::UB, .base = I[kBSrc], .bytes = I[kBRepeat] * 8 * size, .align = align});
  fp.add({.operand = kBDst, .space = Space::UB, .write = true, .base = I[kBDst], .bytes = 32, .n1 = 8,
          .s1 = I[kBDstBlk] * 32, .n2 = I[kBRepeat], .s2 = I[kBDstRep] * 32, .align = align});
}

Work vbrcb_work(const Issued& I, const ChipConfig&) { return {Work::Kind::Vector, I[kBRepeat]}; }

// ---- vtranspose ---------------------------------------------------------------------------------
void vtranspose_exec(const Issued& I, const ExecContext& ctx) {
  uint8_t tmp[512];
  std::memcpy(tmp, ctx.ptr(I, 1), 512);
  uint8_t* d = ctx.ptr(I, 0);
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) std::memcpy(d + (c * 16 + r) * 2, tmp + (r * 16 + c) * 2, 2);
}

void vtranspose_footprint(const Issued& I, const ChipConfig& chip, Footprint& fp) {
  int64_t align = chip.alignment(Space::UB);
  fp.add({.operand = 1, .space = Space::UB, .base = I[1], .bytes = 512, .align = align});
  fp.add({.operand = 0, .space = Space::UB, .write = true, .base = I[0], .bytes = 512, .align = align});
}

Work vtranspose_work(const Issued&, const ChipConfig&) { return {Work::Kind::Vector, 1}; }

// ---- mov_l0c_ub ---------------------------------------------------------------------------------
enum MSlot { kMDst, kMSrc, kMNburst, kMLen, kMSrcGap, kMDstGap, kMRelu };

void l0c_exec(const Issued& I, const ExecContext& ctx) {
  DType to = I.type(0), from = I.type(1);
  int64_t dbytes = 256 * dtype_size(to);
  uint8_t* d = ctx.ptr(I, kMDst);
  const uint8_t* s = ctx.ptr(I, kMSrc);
  for (int64_t b = 0; b < I[kMNburst]; ++b)
    for (int64_t f = 0; f < I[kMLen]; ++f) {
      const uint8_t* sf = s + (b * (I[kMLen] + I[kMSrcGap]) + f) * 1024;
      uint8_t* df = d + (b * (I[kMLen] + I[kMDstGap]) + f) * dbytes;
      for (int e = 0; e < 256; ++e) {
        if (from == DType::s32) {
          int32_t v = load<int32_t>(sf + e * 4);
          store<int32_t>(df + e * 4, I[kMRelu] && v < 0 ? 0 : v);
          continue;
        }
        float v = load<float>(sf + e * 4);
        if (I[kMRelu] && !(v > 0) && v == v) v = 0;
        if (to == DType::f16) store<uint16_t>(df + e * 2, f32_to_f16(v));
        else store<float>(df + e * 4, v);
      }
    }
}

void l0c_footprint(const Issued& I, const ChipConfig& chip, Footprint& fp) {
  int64_t dbytes = 256 * dtype_size(I.type(0));
  fp.add({.operand = kMSrc, .space = Space::L0C, .base = I[kMSrc], .bytes = I[kMLen] * 1024, .n1 = I[kMNburst],
          .s1 = (I[kMLen] + I[kMSrcGap]) * 1024, .align = chip.alignment(Space::L0C)});
  fp.add({.operand = kMDst, .space = Space::UB, .write = true, .base = I[kMDst], .bytes = I[kMLen] * dbytes,
          .n1 = I[kMNburst], .s1 = (I[kMLen] + I[kMDstGap]) * dbytes, .align = chip.alignment(Space::UB)});
}

Work l0c_work(const Issued& I, const ChipConfig&) { return {Work::Kind::Transfer, I[kMNburst] * I[kMLen] * 1024}; }

}  // namespace

void add_vector_move(std::vector<InstrSpec>& t) {
  t.push_back({.mnemonic = "vconv", .pipe = Pipe::V, .ntypes = 2,
               .types = {{DType::f16, DType::f32}, {DType::f32, DType::f16}, {DType::s32, DType::f32},
                         {DType::f32, DType::s32}, {DType::s32, DType::f16}, {DType::f16, DType::s32},
                         {DType::s8, DType::f16}, {DType::f16, DType::s8}, {DType::u8, DType::f16},
                         {DType::f16, DType::u8}, {DType::s16, DType::f16}, {DType::f16, DType::s16},
                         {DType::bf16, DType::f32}, {DType::f32, DType::bf16}},
               .operands = vconv_operands(),
               .summary = "convert elementwise between types (vconv.TO.FROM)",
               .semantics = "`dst[i] = convert(src[i])` with `round` (none = nearest even where inexact). A repeat "
                            "handles 256 / (wider element size) elements, so the narrower operand spans fewer blocks. "
                            "To integers: rounded, then saturated to the type's range; NaN becomes 0. bf16 "
                            "converts to and from f32 only, as Ascend C's Cast does on the chips with bf16 (their "
                            "vector arithmetic takes no bf16: convert to f32 first).",
               .exec = vconv_exec, .footprint = vconv_footprint, .validate = mask_check, .work = vconv_work});
  t.push_back({.mnemonic = "vbrcb", .pipe = Pipe::V, .ntypes = 1,
               .types = {{DType::f16}, {DType::f32}, {DType::s16}, {DType::u16}, {DType::s32}},
               .operands = {mem("dst", bit(Space::UB), "destination blocks"),
                            mem("src", bit(Space::UB), "8 elements per repeat, contiguous"),
                            kw("repeat", 0, 255, 1, "repeats"),
                            kw("dst_blk", 0, 255, 1, "dst block stride (32 B blocks)"),
                            kw("dst_rep", 0, 255, 8, "dst repeat stride (32 B blocks)")},
               .summary = "broadcast each of 8 elements to a whole 32 B block",
               .semantics = "For repeat r and b < 8: every element of dst block `r*dst_rep + b*dst_blk` = "
                            "`src[r*8 + b]`.",
               .exec = vbrcb_exec, .footprint = vbrcb_footprint, .work = vbrcb_work});
  t.push_back({.mnemonic = "vtranspose", .pipe = Pipe::V, .ntypes = 1,
               .types = {{DType::f16}, {DType::s16}, {DType::u16}},
               .operands = {mem("dst", bit(Space::UB), "16x16 result"), mem("src", bit(Space::UB), "16x16 source")},
               .summary = "transpose one 16x16 matrix of 16-bit elements",
               .semantics = "`dst[c][r] = src[r][c]` for r, c < 16 (512 B each; in place, or overlapping, allowed: every element is read before any is written).",
               .exec = vtranspose_exec, .footprint = vtranspose_footprint, .work = vtranspose_work});
  t.push_back({.mnemonic = "mov_l0c_ub", .pipe = Pipe::V, .ntypes = 2,
               .types = {{DType::f32, DType::f32}, {DType::f16, DType::f32}, {DType::s32, DType::s32}},
               .operands = {mem("dst", bit(Space::UB), "destination fractals"),
                            mem("src", bit(Space::L0C), "16x16 accumulator fractals"),
                            kw("nburst", 1, 4095, 1, "bursts"), kw("len", 1, 65535, 1, "fractals per burst"),
                            kw("src_gap", 0, 65535, 0, "fractals skipped in L0C after each burst"),
                            kw("dst_gap", 0, 65535, 0, "fractals skipped in UB after each burst"),
                            flag("relu", "apply max(x, 0) before the cast")},
               .summary = "move accumulator fractals L0C -> UB (coupled core), with optional ReLU and f32 -> f16",
               .semantics = "For b < nburst, f < len: fractal `b*(len+src_gap)+f` of L0C (256 elements) goes to "
                            "fractal `b*(len+dst_gap)+f` of UB, element by element, through ReLU if set and rounded to "
                            "nearest even when the destination is f16.",
               .exec = l0c_exec, .footprint = l0c_footprint, .work = l0c_work});
}

}  // namespace cubekit
