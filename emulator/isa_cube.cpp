// The cube path: L1 -> L0A/L0B loads (load2d, load3d with its FMATRIX register) and mmad.
//
// Layouts (a fractal is 16 x C0 elements, 512 B; C0 = 16 for f16 and bf16, 32 for s8):
//   L0A  zZ: A (m x k) as fractals (m/16, k/C0) in row-major order, row-major inside;
//   L0B  zN: B (k x n) as fractals (k/C0, n/16) in row-major order, each stored column-major
//            (element (k, n) of a fractal at n*C0 + k);
//   L0C  NZ: C (m x n) as 16 x 16 fractals in column-major order, row-major inside.
#include "emulator/isa_helpers.h"
#include "emulator/mmad_kernel.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace cubekit {
namespace {

using namespace isa;

constexpr int64_t kFractalBytes = 512;

// ---- set_fmatrix ------------------------------------------------------------------------------
Flow set_fmatrix(const Instr& in, ScalarState& s) {
  s.fmatrix = {in.ops[0].imm, in.ops[1].imm, in.ops[2].imm, in.ops[3].imm, in.ops[4].imm, in.ops[5].imm};
  return {};
}

// ---- load2d -----------------------------------------------------------------------------------
enum L2Slot { kL2Dst, kL2Src, kL2Repeat, kL2SrcStride, kL2DstGap, kL2Transpose };

void load2d_footprint(const Issued& I, const ChipConfig& chip, Footprint& fp) {
  const Operand& dst = I.instr->ops[kL2Dst];
  fp.add({.operand = kL2Src, .space = Space::L1, .base = I[kL2Src], .bytes = kFractalBytes, .n1 = I[kL2Repeat],
          .s1 = I[kL2SrcStride] * kFractalBytes, .align = chip.alignment(Space::L1)});
  fp.add({.operand = kL2Dst, .space = dst.space, .write = true, .base = I[kL2Dst], .bytes = kFractalBytes,
          .n1 = I[kL2Repeat], .s1 = (1 + I[kL2DstGap]) * kFractalBytes, .align = chip.alignment(dst.space)});
}

void load2d_exec(const Issued& I, const ExecContext& ctx) {
  uint8_t* dst = ctx.ptr(I, kL2Dst);
  const uint8_t* src = ctx.ptr(I, kL2Src);
  for (int64_t i = 0; i < I[kL2Repeat]; ++i) {
    uint8_t* d = dst + i * (1 + I[kL2DstGap]) * kFractalBytes;
    const uint8_t* s = src + i * I[kL2SrcStride] * kFractalBytes;
    if (!I[kL2Transpose]) {
      std::memcpy(d, s, kFractalBytes);
      continue;
    }
    for (int r = 0; r < 16; ++r)
      for (int c = 0; c < 16; ++c) std::memcpy(d + (c * 16 + r) * 2, s + (r * 16 + c) * 2, 2);
  }
}

Work load2d_work(const Issued& I, const ChipConfig&) { return {Work::Kind::Transfer, I[kL2Repeat] * kFractalBytes}; }

std::string load2d_check(const Instr& in, int& operand) {
  if (in.ops[kL2Transpose].imm && dtype_size(in.type[0]) != 2) {
    operand = kL2Transpose;
    return fmt::format("load2d transposes 16x16 fractals of 16-bit data only, not {}; for 8-bit data store the "
                       "matrix transposed in GM instead",
                       dtype_name(in.type[0]));
  }
  return {};
}

// ---- load3d (img2col) -------------------------------------------------------------------------
enum L3Slot { kL3Dst, kL3Src, kC1, kKh, kKw, kSh, kSw, kDh, kDw, kMStart, kMLen, kKStart, kKLen };

struct Conv {
  int64_t oh, ow;
};

// The padded feature map in FMATRIX less the dilated kernel's extent, per axis: negative when no
// output position fits.
Conv conv_room(const Issued& I) {
  const Fmatrix& f = I.fmatrix;
  return {f.h + f.pad_top + f.pad_bottom - I[kDh] * (I[kKh] - 1) - 1, f.w + f.pad_left + f.pad_right - I[kDw] * (I[kKw] - 1) - 1};
}

// A geometry with no output is a fault (load3d_fault), found before the instruction runs.
std::string load3d_fault(const Issued& I, const ChipConfig&) {
  const Fmatrix& f = I.fmatrix;
  if (f.h <= 0 || f.w <= 0) return "load3d before set_fmatrix: the feature map has no height or width";
  const Conv room = conv_room(I);
  if (room.oh < 0 || room.ow < 0)
    return fmt::format("load3d: the dilated {}x{} kernel is larger than the padded {}x{} feature map", I[kKh], I[kKw],
                       f.h + f.pad_top + f.pad_bottom, f.w + f.pad_left + f.pad_right);
  return {};
}

// Output geometry of the feature map in FMATRIX (load3d_fault has passed it).
Conv conv_geometry(const Issued& I) {
  const Conv room = conv_room(I);
  CUBEKIT_ASSERT(room.oh >= 0 && room.ow >= 0 && I.fmatrix.h > 0 && I.fmatrix.w > 0,
                 "load3d ran on a feature map load3d_fault refuses");
  return {room.oh / I[kSh] + 1, room.ow / I[kSw] + 1};
}

// Channels per 32-byte C0 block: 16 of 16-bit data, 32 of 8-bit.
int64_t c0_of(DType t) { return 32 / dtype_size(t); }

// The feature map's rows the window reads: for each C1 slice its positions' kernel indices reach,
// the input rows under their output rows (whole rows of w pixels, a superset); the whole map when
// the geometry faults (load3d_fault reports it, and the instruction does not run). Counting the
// whole map for every load3d reported races on rows another copy was still filling for a later
// window, and reads of rows nothing had written, in correct row-band pipelines.
void load3d_source(const Issued& I, const ChipConfig& chip, Footprint& fp) {
  const Fmatrix& f = I.fmatrix;
  Region r{.operand = kL3Src, .space = Space::L1, .base = I[kL3Src], .bytes = I[kC1] * f.h * f.w * 32,
           .align = chip.alignment(Space::L1)};
  const Conv room = conv_room(I);
  if (room.oh < 0 || room.ow < 0 || f.h <= 0 || f.w <= 0 || I[kMLen] <= 0 || I[kKLen] <= 0) return fp.add(r);
  const Conv g = conv_geometry(I);
  const int64_t first = I[kMStart], last = std::min(I[kMStart] + I[kMLen], g.oh * g.ow) - 1;  // positions
  if (last < first) return;  // every position past the output: zeros, nothing read
  const int64_t c0 = c0_of(I.type()), kernel = I[kKh] * I[kKw];
  const int64_t kk_first = I[kKStart] / c0, kk_last = kk_first + I[kKLen] / c0 - 1;
  const int64_t c1_first = kk_first / kernel, c1_last = std::min(kk_last / kernel, I[kC1] - 1);
  const int64_t row_first = std::max<int64_t>(0, first / g.ow * I[kSh] - f.pad_top);
  const int64_t row_last = std::min<int64_t>(f.h - 1, last / g.ow * I[kSh] - f.pad_top + (I[kKh] - 1) * I[kDh]);
  if (c1_last < c1_first || row_last < row_first) return;  // only padding
  r.base = I[kL3Src] + (c1_first * f.h + row_first) * f.w * 32;
  r.bytes = (row_last - row_first + 1) * f.w * 32;
  r.n1 = c1_last - c1_first + 1, r.s1 = f.h * f.w * 32;
  fp.add(r);
}

void load3d_footprint(const Issued& I, const ChipConfig& chip, Footprint& fp) {
  const Operand& dst = I.instr->ops[kL3Dst];
  load3d_source(I, chip, fp);
  fp.add({.operand = kL3Dst, .space = dst.space, .write = true, .base = I[kL3Dst],
          .bytes = I[kMLen] * I[kKLen] * dtype_size(I.type()), .align = chip.alignment(dst.space)});
}

void load3d_exec(const Issued& I, const ExecContext& ctx) {
  Conv g = conv_geometry(I);
  const Fmatrix& f = I.fmatrix;
  bool to_l0a = I.instr->ops[kL3Dst].space == Space::L0A;
  uint8_t* dst = ctx.ptr(I, kL3Dst);
  const uint8_t* src = ctx.ptr(I, kL3Src);
  // Each (position, C0 block) pair is 32 bytes: a row of a 16 x C0 fractal in either layout.
  int64_t c0 = c0_of(I.type()), mf = I[kMLen] / 16, kf = I[kKLen] / c0, kernel = I[kKh] * I[kKw];
  for (int64_t m = 0; m < I[kMLen]; ++m) {
    int64_t p = I[kMStart] + m, oh = p / g.ow, ow = p % g.ow;
    for (int64_t kb = 0; kb < kf; ++kb) {
      int64_t kk = I[kKStart] / c0 + kb, c1 = kk / kernel, i = kk % kernel / I[kKw], j = kk % I[kKw];
      int64_t ih = oh * I[kSh] - f.pad_top + i * I[kDh], iw = ow * I[kSw] - f.pad_left + j * I[kDw];
      int64_t fractal = to_l0a ? (m / 16) * kf + kb : kb * mf + m / 16;
      uint8_t* d = dst + fractal * kFractalBytes + (m % 16) * 32;
      bool inside = p < g.oh * g.ow && ih >= 0 && ih < f.h && iw >= 0 && iw < f.w;
      if (inside) std::memcpy(d, src + ((c1 * f.h + ih) * f.w + iw) * 32, 32);
      else std::memset(d, 0, 32);
    }
  }
}

Work load3d_work(const Issued& I, const ChipConfig&) {
  return {Work::Kind::Transfer, I[kMLen] * I[kKLen] * dtype_size(I.type())};
}

std::string load3d_check(const Instr& in, int& operand) {
  int64_t c0 = c0_of(in.type[0]);
  if (in.ops[kMLen].imm % 16) {
    operand = kMLen;
    return fmt::format("m_len={} must be a multiple of 16 (one fractal's rows)", in.ops[kMLen].imm);
  }
  for (int slot : {kKLen, kKStart})
    if (in.ops[slot].imm % c0) {
      operand = slot;
      return fmt::format("{}={} must be a multiple of {} (one C0 block of {} data: a fractal's columns)",
                         spec_of(in).operands[slot].name, in.ops[slot].imm, c0, dtype_name(in.type[0]));
    }
  if (in.type[0] == DType::s8 && in.ops[kL3Dst].space == Space::L0B) {
    operand = kL3Dst;
    return "load3d.s8 writes L0A only: 8-bit fractals in L0B hold 32 k by 16 n, which load3d's rows of one "
           "position do not fill; make the feature map the A operand";
  }
  int64_t k_total = in.ops[kC1].imm * in.ops[kKh].imm * in.ops[kKw].imm * c0;
  if (in.ops[kKStart].imm + in.ops[kKLen].imm > k_total) {
    operand = kKLen;
    return fmt::format("k_start+k_len={} exceeds the im2col width c1*kh*kw*C0={}",
                       in.ops[kKStart].imm + in.ops[kKLen].imm, k_total);
  }
  return {};
}

// ---- mmad -------------------------------------------------------------------------------------
enum MmSlot { kMmC, kMmA, kMmB, kM, kN, kK, kInit };

struct MmShape {
  int64_t mf, nf, kf, k0;
};
MmShape mm_shape(const Issued& I, const ChipConfig& chip) {
  const CubeFractal* f = chip.fractal(I.type());
  int64_t k0 = f ? f->k0 : 32 / dtype_size(I.type());
  return {cdiv(I[kM], 16), cdiv(I[kN], 16), cdiv(I[kK], k0), k0};
}

Work mmad_work(const Issued& I, const ChipConfig& chip) {
  MmShape s = mm_shape(I, chip);
  return {Work::Kind::Cube, s.mf * s.nf * s.kf};
}

void mmad_footprint(const Issued& I, const ChipConfig& chip, Footprint& fp) {
  MmShape s = mm_shape(I, chip);
  fp.add({.operand = kMmA, .space = Space::L0A, .base = I[kMmA], .bytes = s.mf * s.kf * kFractalBytes,
          .align = chip.alignment(Space::L0A)});
  fp.add({.operand = kMmB, .space = Space::L0B, .base = I[kMmB], .bytes = s.kf * s.nf * kFractalBytes,
          .align = chip.alignment(Space::L0B)});
  Region c{.operand = kMmC, .space = Space::L0C, .base = I[kMmC], .bytes = s.mf * s.nf * 1024,
           .align = chip.alignment(Space::L0C)};
  if (!I[kInit]) fp.add(c);
  c.write = true;
  fp.add(c);
}

// The s8 path: unpacks the fractals into row-major matrices (A: M x K, B: K x N), one fractal row
// at a time, for gemm_s8. (The 16-bit path unpacks into mmad_kernel's layouts.)
void unpack_s8(const uint8_t* a, const uint8_t* b, const MmShape& s, int K, int8_t* A, int8_t* B) {
  int64_t k0 = s.k0, N = s.nf * 16;
  const int8_t* pa = reinterpret_cast<const int8_t*>(a);
  const int8_t* pb = reinterpret_cast<const int8_t*>(b);
  for (int64_t mb = 0; mb < s.mf; ++mb)
    for (int64_t kb = 0; kb < s.kf; ++kb) {
      const int8_t* frac = pa + (mb * s.kf + kb) * 16 * k0;  // zZ: fractal rows are 16 rows of k0
      int64_t width = std::min<int64_t>(k0, K - kb * k0);
      for (int64_t r = 0; r < 16; ++r) std::memcpy(A + (mb * 16 + r) * K + kb * k0, frac + r * k0, size_t(width));
    }
  for (int64_t kb = 0; kb < s.kf; ++kb)
    for (int64_t nb = 0; nb < s.nf; ++nb) {
      const int8_t* frac = pb + (kb * s.nf + nb) * 16 * k0;  // zN: each stored row is one column of B
      int64_t height = std::min<int64_t>(k0, K - kb * k0);
      for (int64_t n = 0; n < 16; ++n)
        for (int64_t k = 0; k < height; ++k) B[(kb * k0 + k) * N + nb * 16 + n] = frac[n * k0 + k];
    }
}

// L0C (NZ) <-> row-major C: fractal (mb, nb) sits at (nb*mf + mb)*256 elements, rows of 16 inside.
void copy_c(uint8_t* l0c, int32_t* C, const MmShape& s, bool to_dense) {
  int64_t N = s.nf * 16;
  int32_t* frac_base = reinterpret_cast<int32_t*>(l0c);
  for (int64_t nb = 0; nb < s.nf; ++nb)
    for (int64_t mb = 0; mb < s.mf; ++mb) {
      int32_t* frac = frac_base + (nb * s.mf + mb) * 256;
      for (int64_t r = 0; r < 16; ++r) {
        int32_t* dense = C + (mb * 16 + r) * N + nb * 16;
        if (to_dense) std::memcpy(dense, frac + r * 16, 16 * sizeof(int32_t));
        else std::memcpy(frac + r * 16, dense, 16 * sizeof(int32_t));
      }
    }
}

std::string mmad_fault(const Issued& I, const ChipConfig& chip) {
  if (chip.fractal(I.type())) return {};
  return fmt::format("the cube of {} does not take {} inputs", chip.name, dtype_name(I.type()));
}

void mmad_exec(const Issued& I, const ExecContext& ctx) {
  CUBEKIT_ASSERT(ctx.chip.fractal(I.type()), "mmad ran on inputs mmad_fault refuses");
  MmShape s = mm_shape(I, ctx.chip);
  int M = int(s.mf * 16), N = int(s.nf * 16), K = int(I[kK]);
  const uint8_t* a = ctx.ptr(I, kMmA);
  const uint8_t* b = ctx.ptr(I, kMmB);
  uint8_t* c = ctx.ptr(I, kMmC);
  if (I.type() == DType::f16 || I.type() == DType::bf16) {
    // L0C's f32 NZ fractals are the kernel's C panels: it accumulates in place.
    thread_local std::vector<float> A, Bp;
    A.resize(size_t(M) * K), Bp.resize(size_t(K) * N);
    bool bf16 = I.type() == DType::bf16;
    unpack_a_zz(reinterpret_cast<const uint16_t*>(a), M / 16, int(s.kf), K, bf16, A.data());
    unpack_b_zn(reinterpret_cast<const uint16_t*>(b), int(s.kf), N / 16, K, bf16, Bp.data());
    gemm_f16_products(reinterpret_cast<float*>(c), A.data(), Bp.data(), M, N, K, I[kInit] != 0);
    return;
  }
  thread_local std::vector<int8_t> A8, B8;
  thread_local std::vector<int32_t> C32;
  A8.resize(size_t(M) * K), B8.resize(size_t(K) * N), C32.resize(size_t(M) * N);
  unpack_s8(a, b, s, K, A8.data(), B8.data());
  if (I[kInit]) std::fill(C32.begin(), C32.end(), 0);
  else copy_c(c, C32.data(), s, true);
  gemm_s8(C32.data(), A8.data(), B8.data(), M, N, K);
  copy_c(c, C32.data(), s, false);
}

}  // namespace

void add_cube_instructions(std::vector<InstrSpec>& t) {
  t.push_back({.mnemonic = "set_fmatrix", .pipe = Pipe::S,
               .operands = {required("h", 1, 65535, "feature map height"), required("w", 1, 65535, "feature map width"),
                            kw("pad_top", 0, 255, 0, "zero rows above"), kw("pad_bottom", 0, 255, 0, "zero rows below"),
                            kw("pad_left", 0, 255, 0, "zero columns left"),
                            kw("pad_right", 0, 255, 0, "zero columns right")},
               .summary = "set the FMATRIX register (feature-map geometry) that load3d reads",
               .semantics = "Later load3d instructions of this core read a feature map of h x w pixels with the "
                            "given zero padding. load3d captures the register when it is issued.",
               .scalar = set_fmatrix});
  t.push_back({.mnemonic = "load2d", .pipe = Pipe::MTE1, .ntypes = 1, .types = {{DType::f16}, {DType::s8}, {DType::bf16}},
               .operands = {mem("dst", bit(Space::L0A) | bit(Space::L0B), "destination fractals"),
                            mem("src", bit(Space::L1), "source fractals"),
                            kw("repeat", 1, 255, 1, "fractals to move"),
                            kw("src_stride", 0, 65535, 1, "fractals from one source fractal to the next"),
                            kw("dst_gap", 0, 65535, 0, "fractals skipped in the destination after each one"),
                            flag("transpose", "transpose each 16x16 fractal (16-bit data only)")},
               .summary = "move 512 B fractals L1 -> L0A/L0B, optionally transposing each",
               .semantics = "For i < repeat: `dst[i*(1+dst_gap)*512 ..+512] = src[i*src_stride*512 ..+512]`; with "
                            "`transpose`, element (r, c) of the 16x16 fractal lands at (c, r).",
               .exec = load2d_exec, .footprint = load2d_footprint, .validate = load2d_check,
               .work = load2d_work});
  t.push_back({.mnemonic = "load3d", .pipe = Pipe::MTE1, .ntypes = 1, .types = {{DType::f16}, {DType::s8}, {DType::bf16}},
               .operands = {mem("dst", bit(Space::L0A) | bit(Space::L0B), "destination fractals"),
                            mem("src", bit(Space::L1), "feature map, C1 x H x W x C0 (C0 = 32 bytes: 16 f16/bf16, 32 s8)"),
                            required("c1", 1, 4095, "channel slices (C1) in the feature map"),
                            required("kh", 1, 255, "kernel height"), required("kw", 1, 255, "kernel width"),
                            kw("sh", 1, 63, 1, "stride in height"), kw("sw", 1, 63, 1, "stride in width"),
                            kw("dh", 1, 255, 1, "dilation in height"), kw("dw", 1, 255, 1, "dilation in width"),
                            kw("m_start", 0, kI32Max, 0, "first output position (row of the im2col matrix)"),
                            required("m_len", 16, 65535, "output positions to load (multiple of 16)"),
                            kw("k_start", 0, kI32Max, 0, "first im2col column (multiple of C0)"),
                            required("k_len", 16, 65535, "im2col columns to load (multiple of C0)")},
               .summary = "img2col: load a window of the im2col matrix of an L1 feature map into L0A/L0B",
               .semantics = "The im2col matrix has one row per output position p = oh*OW + ow (OH, OW from FMATRIX "
                            "and the kernel) and one column per (c1, i, j, c0), c0 fastest. Element (p, k) is "
                            "`fmap[c1][oh*sh - pad_top + i*dh][ow*sw - pad_left + j*dw][c0]`, 0 in the padding and for "
                            "p >= OH*OW. Rows [m_start, m_start+m_len) x columns [k_start, k_start+k_len) are written "
                            "in the L0A (zZ) layout, or in the L0B (zN) layout as the k x p matrix (16-bit data only).",
               .exec = load3d_exec, .footprint = load3d_footprint, .validate = load3d_check,
               .work = load3d_work, .fault = load3d_fault});
  t.push_back({.mnemonic = "mmad", .pipe = Pipe::M, .ntypes = 1, .types = {{DType::f16}, {DType::s8}, {DType::bf16}},
               .operands = {mem("c", bit(Space::L0C), "accumulator, NZ"), mem("a", bit(Space::L0A), "left matrix, zZ"),
                            mem("b", bit(Space::L0B), "right matrix, zN"), required("m", 1, 4095, "rows of A and C"),
                            required("n", 1, 4095, "columns of B and C"), required("k", 1, 4095, "columns of A, rows of B"),
                            flag("init", "start from C = 0 instead of accumulating")},
               .summary = "matrix multiply-accumulate on the cube: C (+)= A x B",
               .semantics = "For every element of the ceil(m/16) x ceil(n/16) fractals of C: "
                            "`c = init ? 0 : c; for kk < k: c = c + a[i][kk] * b[kk][j]`, in increasing kk, in f32 "
                            "(f16 inputs: each product exact, one rounding per step; bf16 inputs: `c = fma(a, b, c)`, "
                            "the product exact before the one rounding of each step) or wrapping s32 (s8 inputs). "
                            "Only the input types the chip's cube lists (ChipConfig::cube) run: bf16 on the chips "
                            "with bf16, not on the ascend910.",
               .exec = mmad_exec, .footprint = mmad_footprint, .work = mmad_work, .fault = mmad_fault});
}

}  // namespace cubekit
