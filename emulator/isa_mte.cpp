// Data movement between GM, L1 and UB: burst copies (MTE1/MTE2/MTE3), byte-granular copies for
// tails, atomic-add stores, and the ND -> NZ (fractal) conversion on the way into L1.
//
// A burst copy moves `nburst` bursts of `len` 32-byte blocks; after each burst the source skips
// `src_gap` blocks and the destination `dst_gap` blocks:
//   for b in 0..nburst:  dst[b*(len+dst_gap)*32 ..+len*32] = src[b*(len+src_gap)*32 ..+len*32]
#include "emulator/isa_helpers.h"
#include "emulator/rounding.h"

namespace cubekit {
namespace {

using namespace isa;

enum CopySlot { kDst, kSrc, kNburst, kLen, kSrcGap, kDstGap, kAtomic };
const std::vector<std::string_view> kAtomicModes = {"none", "f32", "f16", "s32"};
constexpr DType kAtomicType[] = {DType::f32, DType::f32, DType::f16, DType::s32};

std::vector<OperandSpec> copy_operands(uint8_t dst, uint8_t src, bool byte_len, bool atomic) {
  std::vector<OperandSpec> ops = {
      mem("dst", dst, "destination"),
      mem("src", src, "source"),
      kw("nburst", 1, 4095, 1, "number of bursts"),
      byte_len ? required("len", 1, (1 << 21) - 1, "burst length in bytes")
               : kw("len", 1, 65535, 1, "burst length in 32 B blocks"),
      kw("src_gap", 0, byte_len && src == bit(Space::GM) ? kI32Max : 65535, 0,
         byte_len && src == bit(Space::GM) ? "bytes skipped in GM after each burst"
                                           : "32 B blocks skipped in the source after each burst"),
      kw("dst_gap", 0, byte_len && dst == bit(Space::GM) ? kI32Max : 65535, 0,
         byte_len && dst == bit(Space::GM) ? "bytes skipped in GM after each burst"
                                           : "32 B blocks skipped in the destination after each burst"),
  };
  if (atomic) ops.push_back(choice("atomic", kAtomicModes, 0, "add into GM elementwise in this dtype instead of storing"));
  return ops;
}

// Burst geometry in bytes for either form: plain (everything in blocks) or pad (length in bytes,
// the GM side's gap in bytes, the buffer side padded to whole blocks).
struct Bursts {
  int64_t n, len, src_step, dst_step;
};

Bursts plain_bursts(const Issued& I) {
  return {I[kNburst], I[kLen] * 32, (I[kLen] + I[kSrcGap]) * 32, (I[kLen] + I[kDstGap]) * 32};
}

Bursts pad_bursts(const Issued& I) {
  int64_t len = I[kLen], blocks = cdiv(len, 32) * 32;
  bool src_gm = I.instr->ops[kSrc].space == Space::GM;
  return {I[kNburst], len, src_gm ? len + I[kSrcGap] : blocks + I[kSrcGap] * 32,
          src_gm ? blocks + I[kDstGap] * 32 : len + I[kDstGap]};
}

DType atomic_type(const Issued& I, int slot) { return kAtomicType[I[slot]]; }
bool is_atomic(const Issued& I) { return spec_of(*I.instr).operands.size() > kAtomic && I[kAtomic] != 0; }

template <Bursts (*Geometry)(const Issued&)>
void copy_footprint(const Issued& I, const ChipConfig& chip, Footprint& fp) {
  Bursts b = Geometry(I);
  const Operand& dst = I.instr->ops[kDst];
  const Operand& src = I.instr->ops[kSrc];
  int64_t dst_align = chip.alignment(dst.space);
  bool atomic = is_atomic(I);
  if (atomic) dst_align = std::max<int64_t>(dst_align, dtype_size(atomic_type(I, kAtomic)));
  fp.add({.operand = kSrc, .space = src.space, .tensor = src.tensor, .base = I[kSrc], .bytes = b.len, .n1 = b.n,
          .s1 = b.src_step, .align = chip.alignment(src.space)});
  Region d{.operand = kDst, .space = dst.space, .tensor = dst.tensor, .write = true, .base = I[kDst], .bytes = b.len,
           .n1 = b.n, .s1 = b.dst_step, .align = dst_align};
  if (atomic) {
    Region read = d;
    read.write = false;
    fp.add(read);
  }
  fp.add(d);
}

template <Bursts (*Geometry)(const Issued&)>
Work copy_work(const Issued& I, const ChipConfig&) {
  Bursts b = Geometry(I);
  return {Work::Kind::Transfer, b.n * b.len};
}

template <Bursts (*Geometry)(const Issued&)>
void copy_exec(const Issued& I, const ExecContext& ctx) {
  Bursts b = Geometry(I);
  uint8_t* dst = ctx.ptr(I, kDst);
  const uint8_t* src = ctx.ptr(I, kSrc);
  bool atomic = is_atomic(I);
  bool pad = b.len % 32 != 0 && I.instr->ops[kDst].space != Space::GM;
  for (int64_t i = 0; i < b.n; ++i) {
    uint8_t* d = dst + i * b.dst_step;
    const uint8_t* s = src + i * b.src_step;
    if (atomic) atomic_add(d, s, b.len, atomic_type(I, kAtomic));
    else std::memmove(d, s, b.len);
    if (pad) std::memset(d + b.len, 0, 32 - b.len % 32);  // the rest of the last block
  }
}

// The pad form's buffer-side footprint covers the zero-filled rest of the last block.
void pad_footprint(const Issued& I, const ChipConfig& chip, Footprint& fp) {
  copy_footprint<pad_bursts>(I, chip, fp);
  if (I.instr->ops[kDst].space != Space::GM) fp.regions[fp.count - 1].bytes = cdiv(I[kLen], 32) * 32;
}

std::string check_atomic_len(const Instr& in, int& operand) {
  if (in.ops[kAtomic].imm == 0) return {};
  int size = dtype_size(kAtomicType[in.ops[kAtomic].imm]);
  if (in.ops[kLen].imm % size) {
    operand = kLen;
    return fmt::format("an atomic {} store moves whole elements: len={} is not a multiple of {} bytes",
                       kAtomicModes[in.ops[kAtomic].imm], in.ops[kLen].imm, size);
  }
  return {};
}

InstrSpec copy_spec(std::string_view mnemonic, Pipe pipe, Space dst, Space src, std::string_view summary) {
  bool atomic = dst == Space::GM;
  return {.mnemonic = mnemonic, .pipe = pipe, .operands = copy_operands(bit(dst), bit(src), false, atomic),
          .summary = summary,
          .semantics = atomic ? "Burst copy (see the section header). With `atomic=T`, each element of type T is "
                                "added to GM (`gm = gm + ub`, rounded to nearest even for f16/f32) instead of stored."
                              : "Burst copy: `for b < nburst: dst[b*(len+dst_gap)*32 .. +len*32] = "
                                "src[b*(len+src_gap)*32 .. +len*32]`.",
          .exec = copy_exec<plain_bursts>, .footprint = copy_footprint<plain_bursts>,
          .work = copy_work<plain_bursts>};
}

InstrSpec pad_spec(std::string_view mnemonic, Pipe pipe, Space dst, Space src, std::string_view summary,
                   std::string_view semantics) {
  bool atomic = dst == Space::GM;
  return {.mnemonic = mnemonic, .pipe = pipe, .operands = copy_operands(bit(dst), bit(src), true, atomic),
          .summary = summary, .semantics = semantics, .exec = copy_exec<pad_bursts>, .footprint = pad_footprint,
          .validate = atomic ? check_atomic_len : nullptr, .work = copy_work<pad_bursts>};
}

// ---- ND -> NZ -------------------------------------------------------------------------------
enum NzSlot { kNzDst, kNzSrc, kRows, kCols, kSrcStride, kDstRows };

void nd2nz_footprint(const Issued& I, const ChipConfig& chip, Footprint& fp) {
  int size = dtype_size(I.type());
  int64_t c0 = 32 / size, blocks = cdiv(I[kCols], c0);
  const Operand& src = I.instr->ops[kNzSrc];
  fp.add({.operand = kNzSrc, .space = Space::GM, .tensor = src.tensor, .base = I[kNzSrc], .bytes = I[kCols] * size,
          .n1 = I[kRows], .s1 = I[kSrcStride] * size, .align = size});
  fp.add({.operand = kNzDst, .space = Space::L1, .write = true, .base = I[kNzDst], .bytes = blocks * I[kDstRows] * 32,
          .align = chip.alignment(Space::L1)});
}

void nd2nz_exec(const Issued& I, const ExecContext& ctx) {
  int size = dtype_size(I.type());
  int64_t c0 = 32 / size, rows = I[kRows], cols = I[kCols], dst_rows = I[kDstRows];
  uint8_t* dst = ctx.ptr(I, kNzDst);
  const uint8_t* src = ctx.ptr(I, kNzSrc);
  for (int64_t j = 0; j < cdiv(cols, c0); ++j) {
    int64_t width = std::min(c0, cols - j * c0) * size;
    for (int64_t r = 0; r < dst_rows; ++r) {
      uint8_t* row = dst + (j * dst_rows + r) * 32;
      const uint8_t* from = src + (r * I[kSrcStride] + j * c0) * size;
      if (r < rows && width == 32) {  // a whole block: one fixed-size move, inlined
        std::memcpy(row, from, 32);
        continue;
      }
      std::memset(row, 0, 32);
      if (r < rows) std::memcpy(row, from, width);
    }
  }
}

Work nd2nz_work(const Issued& I, const ChipConfig&) {
  return {Work::Kind::Transfer, I[kRows] * I[kCols] * dtype_size(I.type())};
}

std::string nd2nz_check(const Instr& in, int& operand) {
  if (in.ops[kSrcStride].imm < in.ops[kCols].imm) {
    operand = kSrcStride;
    return fmt::format("src_stride={} is smaller than cols={}: rows would overlap", in.ops[kSrcStride].imm,
                       in.ops[kCols].imm);
  }
  int64_t dst_rows = in.ops[kDstRows].imm;
  if (dst_rows % 16 || dst_rows < in.ops[kRows].imm) {
    operand = kDstRows;
    return fmt::format("dst_rows={} must be a multiple of 16 and at least rows={} (fractals are 16 rows high)",
                       dst_rows, in.ops[kRows].imm);
  }
  return {};
}

}  // namespace

void add_mte_instructions(std::vector<InstrSpec>& t) {
  t.push_back(copy_spec("copy_gm_l1", Pipe::MTE2, Space::L1, Space::GM, "burst copy GM -> L1"));
  t.push_back(copy_spec("copy_gm_ub", Pipe::MTE2, Space::UB, Space::GM, "burst copy GM -> UB"));
  t.push_back(copy_spec("copy_l1_ub", Pipe::MTE1, Space::UB, Space::L1, "burst copy L1 -> UB"));
  t.push_back(copy_spec("copy_ub_gm", Pipe::MTE3, Space::GM, Space::UB, "burst copy UB -> GM, optionally atomic-add"));
  // The 950's UB -> L1 path: a vector core writes the L1 of its group's cube core.
  t.push_back(copy_spec("copy_ub_l1", Pipe::MTE3, Space::L1, Space::UB,
                        "burst copy UB -> L1 of the group's cube core (split chips with the path: the 950)"));
  t.push_back(pad_spec("copy_gm_ub_pad", Pipe::MTE2, Space::UB, Space::GM,
                       "byte-granular copy GM -> UB, zero-filling each burst's last block",
                       "For b < nburst: copy `len` bytes from `src + b*(len+src_gap)` (GM, bytes) to "
                       "`dst + b*(ceil(len/32)+dst_gap)*32` (UB) and zero the rest of the last 32 B block."));
  t.push_back(pad_spec("copy_ub_gm_pad", Pipe::MTE3, Space::GM, Space::UB,
                       "byte-granular copy UB -> GM, optionally atomic-add",
                       "For b < nburst: copy `len` bytes from `src + b*(ceil(len/32)+src_gap)*32` (UB) to "
                       "`dst + b*(len+dst_gap)` (GM, bytes); only those bytes of GM are written. With "
                       "`atomic=T`, elements are added into GM instead (len must hold whole elements)."));
  t.push_back({.mnemonic = "copy_gm_l1_nd2nz", .pipe = Pipe::MTE2, .ntypes = 1,
               .types = {{DType::f16}, {DType::s8}, {DType::bf16}},
               .operands = {mem("dst", bit(Space::L1), "NZ destination"),
                            mem("src", bit(Space::GM), "row-major source matrix"),
                            required("rows", 1, 16384, "rows to copy"),
                            required("cols", 1, 65535, "columns (elements) to copy"),
                            required("src_stride", 1, kI32Max, "elements from one source row to the next"),
                            required("dst_rows", 16, 65536, "rows of each column block in L1 (multiple of 16)")},
               .summary = "copy a row-major matrix GM -> L1 as NZ fractals, zero-padding the tails",
               .semantics = "With C0 = 32 bytes / element size (16 for f16 and bf16, 32 for s8), column block j holds columns "
                            "[j*C0, j*C0+C0) as `dst_rows` rows of C0 elements (32 B a row), blocks one after another: "
                            "element (r, c) goes to `dst + ((c/C0)*dst_rows + r)*32 + (c%C0)*size`. Rows "
                            "[rows, dst_rows) and columns [cols, ceil(cols/C0)*C0) are zero.",
               .exec = nd2nz_exec, .footprint = nd2nz_footprint, .validate = nd2nz_check,
               .work = nd2nz_work});
}

}  // namespace cubekit
