// The FixPipe of the split cube cores (pipe FIX): accumulators leave L0C for a GM tensor or for L1,
// converted, scaled and rectified on the way -- Ascend C's Fixpipe with FixpipeParamsV220
// (quantPre, reluEn).
//
// fixpipe.SRC.DST names the source type first (the L0C accumulator, f32 or s32), then the
// destination type: the reverse of vconv.TO.FROM, fixed so by the minimal syntax the helpers of
// issue 11 share (`fixpipe.f32.f16 T[x1], l0c[0], ...`).
//
// The conversions are the quantPre modes of the Fixpipe reference (hiascend.com, Ascend C API
// "Fixpipe", table 3): NoQuant (f32->f32, s32->s32), F322F16, F322BF16, DEQF16/VDEQF16 (s32->f16
// with a scalar or per-channel scale), QF322B8_PRE/VQF322B8_PRE (f32->s8) and REQ8/VREQ8 (s32->s8).
// Its constraints also say the chip keeps only 10 mantissa bits of a scale (the low 13 bits of the
// f32 are cleared before use): modelled here.
#include "emulator/isa_helpers.h"
#include "emulator/rounding.h"

#include <cmath>

namespace cubekit {
namespace {

using namespace isa;

enum Slot { kDst, kSrc, kM, kN, kSrcStride, kDstStride, kRelu, kScale, kScaleL1, kSub };

constexpr int64_t kL0cRowBytes = 64;  // one row of a 16 x 16 f32/s32 fractal
constexpr int64_t kL1RowBytes = 32;   // one row of an L1 NZ column block (C0 elements)

bool quantises(DType from, DType to) {
  return (from == DType::s32 && to == DType::f16) || to == DType::s8;
}

// ---- conversions --------------------------------------------------------------------------------
// One element: src (f32 or s32 bits) -> dst, with the scale (1 when none) and ReLU. The product is
// exact in double (a 24- or 32-bit value times an 11-bit scale), so every result is rounded once.

double relu(double v) { return v > 0 || v != v ? v : 0.0; }  // NaN passes; -0 becomes +0

void convert(const uint8_t* s, uint8_t* d, DType from, DType to, double scale, bool rectify) {
  if (from == DType::s32 && to == DType::s32) {
    int32_t v = load<int32_t>(s);
    store<int32_t>(d, rectify && v < 0 ? 0 : v);
    return;
  }
  double x = from == DType::s32 ? double(load<int32_t>(s)) : double(load<float>(s));
  switch (to) {
    case DType::f32: store<float>(d, float(rectify ? relu(x) : x)); return;  // x is an f32: exact
    case DType::f16: {
      double v = x * scale;
      // DEQF16 has no INF/NaN mode (reference: "不支持INF_NAN模式"): a dequantised value beyond
      // f16 saturates to the largest finite one. F322F16 (f32 input) keeps infinities and NaN.
      if (from == DType::s32) v = std::clamp(v, -65504.0, 65504.0);
      uint16_t h = f64_to_f16(v);
      if (rectify && (h & 0x8000) && (h & 0x7fff) <= 0x7c00) h = 0;  // negative (or -0) -> +0
      store<uint16_t>(d, h);
      return;
    }
    case DType::bf16: {  // F322BF16: nearest even, infinities and NaN kept
      uint16_t b = f32_to_bf16(float(x));
      if (rectify && (b & 0x8000) && (b & 0x7fff) <= 0x7f80) b = 0;  // negative (or -0) -> +0
      store<uint16_t>(d, b);
      return;
    }
    case DType::s8: {
      // Rounded to nearest even, then saturated; NaN becomes 0 (as vconv does). Assumed: the
      // reference does not name the rounding of QF322B8_PRE/REQ8.
      int64_t q = double_to_int(x * scale, RoundMode::rint, -128, 127);
      store<int8_t>(d, int8_t(rectify && q < 0 ? 0 : q));
      return;
    }
    default: CUBEKIT_ASSERT(false, "fixpipe: no conversion to {}", dtype_name(to));
  }
}

// The scale as the chip uses it: f32 with the low 13 mantissa bits cleared.
double chip_scale(float f) { return double(std::bit_cast<float>(std::bit_cast<uint32_t>(f) & 0xffffe000u)); }

// ---- geometry -----------------------------------------------------------------------------------

bool to_l1(const Issued& I) { return I.instr->ops[kDst].space == Space::L1; }
int64_t l1_c0(DType to) { return kL1RowBytes / dtype_size(to); }

// Byte offset of element (r, c) in the destination.
int64_t dst_offset(const Issued& I, int64_t r, int64_t c) {
  int size = dtype_size(I.type(1));
  if (!to_l1(I)) return (r * I[kDstStride] + c) * size;
  int64_t c0 = l1_c0(I.type(1));
  return ((c / c0) * I[kDstStride] + r) * kL1RowBytes + (c % c0) * size;
}

void fixpipe_footprint(const Issued& I, const ChipConfig& chip, Footprint& fp) {
  int64_t m = I[kM], n = I[kN];
  fp.add({.operand = kSrc, .space = Space::L0C, .base = I[kSrc], .bytes = m * kL0cRowBytes, .n1 = cdiv(n, 16),
          .s1 = I[kSrcStride] * kL0cRowBytes, .align = chip.alignment(Space::L0C)});
  if (I.instr->ops[kScaleL1].kind == Operand::Kind::Mem)
    fp.add({.operand = kScaleL1, .space = Space::L1, .base = I[kScaleL1], .bytes = n * 4,
            .align = chip.alignment(Space::L1)});
  const Operand& dst = I.instr->ops[kDst];
  int size = dtype_size(I.type(1));
  if (dst.space == Space::UB) {  // the 950: rows into the UB of a vector core of the group
    fp.add({.operand = kDst, .space = Space::UB, .write = true, .base = I[kDst], .bytes = n * size, .n1 = m,
            .s1 = I[kDstStride] * size, .align = chip.alignment(Space::UB)});
    return;
  }
  if (!to_l1(I)) {
    fp.add({.operand = kDst, .space = Space::GM, .tensor = dst.tensor, .write = true, .base = I[kDst],
            .bytes = n * size, .n1 = m, .s1 = I[kDstStride] * size, .align = size});
    return;
  }
  // Whole column blocks, then the part of a last one that n leaves (s8: 16 of its 32 columns).
  int64_t c0 = l1_c0(I.type(1)), full = n / c0, align = chip.alignment(Space::L1);
  fp.add({.operand = kDst, .space = Space::L1, .write = true, .base = I[kDst], .bytes = m * kL1RowBytes, .n1 = full,
          .s1 = I[kDstStride] * kL1RowBytes, .align = align});
  if (n % c0)
    fp.add({.operand = kDst, .space = Space::L1, .write = true, .base = I[kDst] + full * I[kDstStride] * kL1RowBytes,
            .bytes = (n % c0) * size, .n1 = m, .s1 = kL1RowBytes, .align = align});
}

void fixpipe_exec(const Issued& I, const ExecContext& ctx) {
  DType from = I.type(0), to = I.type(1);
  const uint8_t* src = ctx.ptr(I, kSrc);
  uint8_t* dst = ctx.ptr(I, kDst);
  const uint8_t* channel = I.instr->ops[kScaleL1].kind == Operand::Kind::Mem ? ctx.ptr(I, kScaleL1) : nullptr;
  double scalar = I.instr->ops[kScale].kind == Operand::Kind::None ? 1.0
                                                                    : chip_scale(float(std::bit_cast<double>(I[kScale])));
  bool rectify = I[kRelu] != 0;
  for (int64_t c = 0; c < I[kN]; ++c) {
    double scale = channel ? chip_scale(load<float>(channel + c * 4)) : scalar;
    const uint8_t* column = src + ((c / 16) * I[kSrcStride]) * kL0cRowBytes + (c % 16) * 4;
    for (int64_t r = 0; r < I[kM]; ++r)
      convert(column + r * kL0cRowBytes, dst + dst_offset(I, r, c), from, to, scale, rectify);
  }
}

// What leaves L0C: the m x n accumulators, 4 bytes each.
Work fixpipe_work(const Issued& I, const ChipConfig&) { return {Work::Kind::Transfer, I[kM] * I[kN] * 4}; }

// ---- checks -------------------------------------------------------------------------------------

std::string fixpipe_check(const Instr& in, int& operand) {
  DType from = in.type[0], to = in.type[1];
  int64_t m = in.ops[kM].imm, n = in.ops[kN].imm, src_stride = in.ops[kSrcStride].imm, dst_stride = in.ops[kDstStride].imm;
  bool scaled = in.ops[kScale].kind != Operand::Kind::None, per_channel = in.ops[kScaleL1].kind != Operand::Kind::None;
  if (scaled && per_channel) {
    operand = kScaleL1;
    return "fixpipe takes one scale: either scale=<number or register> (one for all) or scale_l1=l1[...] (one f32 "
           "per output column), not both";
  }
  if ((scaled || per_channel) && !quantises(from, to)) {
    operand = scaled ? kScale : kScaleL1;
    return fmt::format("fixpipe.{}.{} does not scale (the FixPipe's {} mode has no scale); a scale applies to "
                       "s32.f16 (dequantisation), f32.s8 and s32.s8 (quantisation)",
                       dtype_name(from), dtype_name(to), from == to ? "NoQuant" : "F322F16/F322BF16");
  }
  if (src_stride % 16 || src_stride < m) {
    operand = kSrcStride;
    return fmt::format("src_stride={} must be a multiple of 16 and at least m={}: it is the number of rows of one "
                       "16-column fractal column in L0C (ceil(m/16)*16 for the layout mmad leaves)",
                       src_stride, m);
  }
  if (in.ops[kSub].imm != 0 && in.ops[kDst].space != Space::UB) {
    operand = kSub;
    return fmt::format("sub={} picks the vector core whose UB receives the tile: it needs a UB destination", in.ops[kSub].imm);
  }
  if (in.ops[kDst].space == Space::GM || in.ops[kDst].space == Space::UB) {
    if (dst_stride < n) {
      operand = kDstStride;
      return fmt::format("dst_stride={} is smaller than n={}: rows of the {} matrix would overlap", dst_stride, n,
                         in.ops[kDst].space == Space::GM ? "GM" : "UB");
    }
    return {};
  }
  if (dst_stride % 16 || dst_stride < m) {
    operand = kDstStride;
    return fmt::format("dst_stride={} must be a multiple of 16 and at least m={}: to L1 it is the number of rows of "
                       "each NZ column block",
                       dst_stride, m);
  }
  if (n % 16) {
    operand = kN;
    return fmt::format("n={} must be a multiple of 16 to L1: the FixPipe writes NZ fractals whole (to GM any n works)", n);
  }
  return {};
}

}  // namespace

void add_fixpipe_instructions(std::vector<InstrSpec>& t) {
  OperandSpec scale{.name = "scale", .kind = OperandKind::Scalar, .keyword = true,
                    .doc = "one scale for every element: an f32 number, or a register holding f32 bits (s32.f16, "
                           "f32.s8, s32.s8 only)",
                    .scalar_type = DType::f32};
  OperandSpec scale_l1{.name = "scale_l1", .kind = OperandKind::Mem, .keyword = true, .spaces = bit(Space::L1),
                       .doc = "per output column (channel) scales: n f32 values in L1, value j for column j "
                              "(s32.f16, f32.s8, s32.s8 only)"};
  t.push_back({.mnemonic = "fixpipe", .pipe = Pipe::FIX, .ntypes = 2,
               .types = {{DType::f32, DType::f32}, {DType::f32, DType::f16}, {DType::f32, DType::bf16},
                         {DType::s32, DType::s32},
                         {DType::s32, DType::f16}, {DType::f32, DType::s8}, {DType::s32, DType::s8}},
               .operands = {mem("dst", bit(Space::GM) | bit(Space::L1) | bit(Space::UB),
                                "a GM tensor (row-major, declared with the destination type), L1 (NZ), or the UB of "
                                "a vector core of the group (row-major; chips with the path l0c->ub: the 950)"),
                            mem("src", bit(Space::L0C), "accumulator fractals, NZ as mmad leaves them"),
                            required("m", 1, 65535, "rows to move"), required("n", 1, 4095, "columns to move"),
                            required("src_stride", 16, 65535,
                                     "rows of one 16-column fractal column in L0C (multiple of 16, at least m)"),
                            required("dst_stride", 1, kI32Max,
                                     "GM: elements from one row to the next (at least n); L1: rows of each NZ "
                                     "column block (multiple of 16, at least m)"),
                            flag("relu", "max(x, 0) on the converted value"), scale, scale_l1,
                            kw("sub", 0, 7, 0, "UB destination: the vector core of the group that receives it (its subblock_idx)")},
               .summary = "move accumulators L0C -> GM (ND), L1 (NZ) or a vector core's UB (ND, the 950) on the "
                          "FixPipe, converting, scaling and rectifying on the way",
               .semantics =
                   "Types are `fixpipe.SRC.DST`, source first: f32.f32, f32.f16, f32.bf16, s32.s32, s32.f16 "
                   "(dequantisation), f32.s8 and s32.s8 (quantisation). For r < m, c < n, the accumulator "
                   "`x = src[((c/16)*src_stride + r)*64 + (c%16)*4]` becomes `y = convert(x * s)` with `s` the "
                   "scale (1 when none; `scale` for all, or `scale_l1[c]` per column), then `y = max(y, 0)` "
                   "with `relu`. The scale is used as the chip keeps it: f32 with its low 13 mantissa bits "
                   "cleared (the Fixpipe reference's constraint: 10 mantissa bits); `x * s` is exact and rounded "
                   "once. Order: scale and conversion (quantPre), then ReLU -- the reference lists quantPre "
                   "before reluEn but does not state the order in words; the two orders differ only for a "
                   "negative scale. Conversions: to f16 and bf16 round to nearest even; f32.f16 and f32.bf16 keep infinities and "
                   "NaN, s32.f16 saturates to +-65504 (no INF/NaN mode); to s8 round to nearest even (assumed) "
                   "and saturate to -128..127, NaN -> 0; ReLU keeps NaN and turns -0 into +0. Destination: GM "
                   "row-major, element (r, c) at `dst + (r*dst_stride + c)*size`, and a UB the same (the UB of "
                   "the group's vector core `sub`: the 950's L0C -> UB path; each row's address 32 B aligned, "
                   "so dst_stride x size a multiple of 32 where m > 1); L1 NZ as copy_gm_l1_nd2nz lays it out "
                   "(C0 = 32 B / size), element (r, c) at `dst + ((c/C0)*dst_stride + r)*32 + (c%C0)*size`, on a "
                   "chip whose cube cores have the l0c->l1 data path (no preset does: the published A2/A3 "
                   "figures list no L0C -> L1 rate; a chip config may add it); nothing else is written. The "
                   "accumulator is read as SRC says, whatever the mmad that wrote it: f32 bits read as s32 "
                   "are not converted. A scale is refused where the chip has none (NoQuant, F322F16).",
               .type_syntax = ".SRC.DST",
               .exec = fixpipe_exec, .footprint = fixpipe_footprint, .validate = fixpipe_check,
               .work = fixpipe_work});
}

}  // namespace cubekit
