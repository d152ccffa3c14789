// Vector reductions (per repeat, per 32 B block) and compare/select.
//
// Reductions combine the active elements of a repeat (or block) as a pairwise tree -- elements
// (0,1), (2,3), ... then pairs of those -- rounding every partial result to the dtype, with
// inactive elements as the identity (-0 for sum, so that a sum of -0s stays -0, as IEEE adds
// them; -inf for max, +inf for min). Of two equal values (+0 and -0) max and min keep the first.
#include "emulator/rounding.h"
#include "emulator/vector_engine.h"

#include <cmath>
#include <limits>

namespace cubekit {
namespace {

using namespace isa;

const std::vector<std::array<DType, kMaxTypes>> kFloats = {{DType::f16}, {DType::f32}};

double round_to(DType t, double v) { return t == DType::f16 ? f16_to_f32(f64_to_f16(v)) : double(float(v)); }

struct Sum {
  static constexpr double identity = -0.0;  // x + -0 is x for every x, -0 too (+0 would make -0 + +0 = +0)
  double operator()(double a, double b) const { return a + b; }
};
struct Max {
  static constexpr double identity = -std::numeric_limits<double>::infinity();
  double operator()(double a, double b) const { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); }
};
struct Min {
  static constexpr double identity = std::numeric_limits<double>::infinity();
  double operator()(double a, double b) const { return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b); }
};

template <class Op>
double tree(double* v, int n, DType t) {
  Op op;
  for (int width = n; width > 1; width /= 2)
    for (int i = 0; i < width / 2; ++i) v[i] = round_to(t, op(v[2 * i], v[2 * i + 1]));
  return v[0];
}

// Per-repeat reductions: dst, src, repeat, src_blk, dst_rep (elements), src_rep, mask.
enum RSlot { kRDst, kRSrc, kRRepeat, kRSrcBlk, kRDstRep, kRSrcRep, kRMask };

std::vector<OperandSpec> reduce_operands(std::string_view dst_rep_doc) {
  return {mem("dst", bit(Space::UB), "results"),
          mem("src", bit(Space::UB), "source"),
          kw("repeat", 0, 255, 1, "repeats"),
          kw("src_blk", 0, 255, 1, "source block stride (32 B blocks)"),
          kw("dst_rep", 0, 65535, 1, dst_rep_doc),
          kw("src_rep", 0, 255, 8, "source repeat stride (32 B blocks)"),
          mask_operand()};
}

template <class Op, bool PerBlock>
void reduce_exec(const Issued& I, const ExecContext& ctx) {
  DType t = I.type();
  int size = dtype_size(t), epr = 256 / size, epb = 32 / size;
  VecMask m = vec_mask(I, kRMask, kRRepeat, epr);
  VecOperand src{kRSrc, size, I[kRSrcBlk] * 32, I[kRSrcRep] * 32};
  const uint8_t* s = ctx.ptr(I, kRSrc);
  uint8_t* d = ctx.ptr(I, kRDst);
  double v[128];
  for (int64_t r = 0; r < m.repeats; ++r) {
    for (int i = 0; i < epr; ++i) v[i] = m.active(r, i) ? load_as_double(s + src.offset(r, i), t) : Op::identity;
    if (!PerBlock) {
      store_from_double(d + r * I[kRDstRep] * size, t, tree<Op>(v, epr, t));
      continue;
    }
    for (int b = 0; b < 8; ++b) {  // a block with no active element is not written
      bool any = false;
      for (int i = b * epb; i < (b + 1) * epb; ++i) any |= m.active(r, i);
      if (any) store_from_double(d + (r * I[kRDstRep] * 8 + b) * size, t, tree<Op>(v + b * epb, epb, t));
    }
  }
}

template <bool PerBlock>
void reduce_footprint(const Issued& I, const ChipConfig& chip, Footprint& fp) {
  int size = dtype_size(I.type()), epr = 256 / size;
  VecMask m = vec_mask(I, kRMask, kRRepeat, epr);
  add_vec_region(fp, I, {kRSrc, size, I[kRSrcBlk] * 32, I[kRSrcRep] * 32}, m, false, chip.alignment(Space::UB));
  const Operand& dst = I.instr->ops[kRDst];
  if (!PerBlock) {
    fp.add({.operand = kRDst, .space = dst.space, .write = true, .base = I[kRDst], .bytes = size, .n1 = m.repeats,
            .s1 = I[kRDstRep] * size, .align = size});
    return;
  }
  // Counter mode's last repeat may have fewer blocks; the region covers whole repeats (a superset).
  if (m.dense()) {
    int64_t blocks = cdiv(m.mode == MaskMode::Counter ? epr : m.prefix(0), 32 / size);
    fp.add({.operand = kRDst, .space = dst.space, .write = true, .base = I[kRDst], .bytes = blocks * size,
            .n1 = m.repeats, .s1 = I[kRDstRep] * 8 * size, .align = size});
    return;
  }
  // A bit pattern with gaps: the results of the blocks with an active element, in runs (a block with
  // none is not written).
  for_each_block_run(m.active_blocks(size), 8, [&](int k, int end) {
    fp.add({.operand = kRDst, .space = dst.space, .write = true, .base = I[kRDst] + k * size, .bytes = (end - k) * size,
            .n1 = m.repeats, .s1 = I[kRDstRep] * 8 * size, .align = size});
  });
}


Work reduce_work(const Issued& I, const ChipConfig&) {
  return {Work::Kind::Vector, vec_mask(I, kRMask, kRRepeat, 256 / dtype_size(I.type())).repeats, VecClass::Reduce};
}

template <class Op, bool PerBlock>
InstrSpec reduce_spec(std::string_view mnemonic, std::string_view summary, std::string_view semantics) {
  return {.mnemonic = mnemonic, .pipe = Pipe::V, .ntypes = 1, .types = kFloats,
          .operands = reduce_operands(PerBlock ? "dst repeat stride (units of 8 results)" : "dst repeat stride (elements)"),
          .summary = summary, .semantics = semantics, .exec = reduce_exec<Op, PerBlock>,
          .footprint = reduce_footprint<PerBlock>, .validate = mask_check, .work = reduce_work};
}

// ---- compare and select -----------------------------------------------------------------------
// vcmp: dst(bits), src0, src1, cmp, repeat, src0_blk, src1_blk, src0_rep, src1_rep, mask.
enum CSlot { kCDst, kCSrc0, kCSrc1, kCmp, kCRepeat, kCBlk0, kCBlk1, kCRep0, kCRep1, kCMask };
const std::vector<std::string_view> kCmpModes = {"eq", "ne", "lt", "le", "gt", "ge"};

bool compare(int mode, double a, double b) {
  switch (mode) {
    case 0: return a == b;
    case 1: return a != b;  // true when either is NaN, as IEEE
    case 2: return a < b;
    case 3: return a <= b;
    case 4: return a > b;
    default: return a >= b;
  }
}

void vcmp_exec(const Issued& I, const ExecContext& ctx) {
  DType t = I.type();
  int size = dtype_size(t), epr = 256 / size;
  VecMask m = vec_mask(I, kCMask, kCRepeat, epr);
  VecOperand a{kCSrc0, size, I[kCBlk0] * 32, I[kCRep0] * 32}, b{kCSrc1, size, I[kCBlk1] * 32, I[kCRep1] * 32};
  const uint8_t *pa = ctx.ptr(I, kCSrc0), *pb = ctx.ptr(I, kCSrc1);
  uint8_t* d = ctx.ptr(I, kCDst);
  for (int64_t r = 0; r < m.repeats; ++r) {
    uint8_t bits[16] = {};
    for (int i = 0; i < epr; ++i)
      if (m.active(r, i) && compare(int(I[kCmp]), load_as_double(pa + a.offset(r, i), t), load_as_double(pb + b.offset(r, i), t)))
        bits[i / 8] |= uint8_t(1u << (i % 8));
    std::memcpy(d + r * epr / 8, bits, epr / 8);
  }
}

Work vcmp_work(const Issued& I, const ChipConfig&) {
  return {Work::Kind::Vector, vec_mask(I, kCMask, kCRepeat, 256 / dtype_size(I.type())).repeats};
}

void vcmp_footprint(const Issued& I, const ChipConfig& chip, Footprint& fp) {
  int size = dtype_size(I.type()), epr = 256 / size;
  VecMask m = vec_mask(I, kCMask, kCRepeat, epr);
  int64_t align = chip.alignment(Space::UB);
  add_vec_region(fp, I, {kCSrc0, size, I[kCBlk0] * 32, I[kCRep0] * 32}, m, false, align);
  add_vec_region(fp, I, {kCSrc1, size, I[kCBlk1] * 32, I[kCRep1] * 32}, m, false, align);
  fp.add({.operand = kCDst, .space = Space::UB, .write = true, .base = I[kCDst], .bytes = m.repeats * epr / 8,
          .align = align});
}


// vsel: dst, src0, src1, sel, then the standard two-source keywords.
constexpr VecSlots kSel2{2, false};
constexpr int sel_slot(int standard) { return standard >= 3 ? standard + 1 : standard; }
constexpr int kSel = 3;

void vsel_exec(const Issued& I, const ExecContext& ctx) {
  DType t = I.type();
  int size = dtype_size(t), epr = 256 / size;
  VecMask m = vec_mask(I, sel_slot(kSel2.mask()), sel_slot(kSel2.repeat()), epr);
  VecOperand d{0, size, I[sel_slot(kSel2.blk(0))] * 32, I[sel_slot(kSel2.rep(0))] * 32};
  VecOperand a{1, size, I[sel_slot(kSel2.blk(1))] * 32, I[sel_slot(kSel2.rep(1))] * 32};
  VecOperand b{2, size, I[sel_slot(kSel2.blk(2))] * 32, I[sel_slot(kSel2.rep(2))] * 32};
  uint8_t* pd = ctx.ptr(I, 0);
  const uint8_t *pa = ctx.ptr(I, 1), *pb = ctx.ptr(I, 2), *ps = ctx.ptr(I, kSel);
  uint8_t tmp[128 * 4];
  for (int64_t r = 0; r < m.repeats; ++r) {
    const uint8_t* bits = ps + r * epr / 8;
    for (int i = 0; i < epr; ++i)
      if (m.active(r, i)) std::memcpy(tmp + i * size, ((bits[i / 8] >> (i % 8)) & 1) ? pa + a.offset(r, i) : pb + b.offset(r, i), size);
    for (int i = 0; i < epr; ++i)
      if (m.active(r, i)) std::memcpy(pd + d.offset(r, i), tmp + i * size, size);
  }
}

Work vsel_work(const Issued& I, const ChipConfig&) {
  return {Work::Kind::Vector, vec_mask(I, sel_slot(kSel2.mask()), sel_slot(kSel2.repeat()), 256 / dtype_size(I.type())).repeats};
}

void vsel_footprint(const Issued& I, const ChipConfig& chip, Footprint& fp) {
  int size = dtype_size(I.type()), epr = 256 / size;
  VecMask m = vec_mask(I, sel_slot(kSel2.mask()), sel_slot(kSel2.repeat()), epr);
  int64_t align = chip.alignment(Space::UB);
  for (int s = 1; s <= 2; ++s)
    add_vec_region(fp, I, {s, size, I[sel_slot(kSel2.blk(s))] * 32, I[sel_slot(kSel2.rep(s))] * 32}, m, false, align);
  fp.add({.operand = kSel, .space = Space::UB, .base = I[kSel], .bytes = m.repeats * epr / 8, .align = align});
  add_vec_region(fp, I, {0, size, I[sel_slot(kSel2.blk(0))] * 32, I[sel_slot(kSel2.rep(0))] * 32}, m, true, align);
}

std::vector<OperandSpec> vsel_operands() {
  std::vector<OperandSpec> ops = vec_operands(2, false);
  ops.insert(ops.begin() + kSel, mem("sel", bit(Space::UB), "selection bits, as vcmp writes them"));
  return ops;
}


}  // namespace

void add_vector_reduce(std::vector<InstrSpec>& t) {
  t.push_back(reduce_spec<Sum, false>("vcadd", "sum each repeat", "`dst[r*dst_rep] = sum of the active elements of repeat r` (pairwise tree; a sum of -0s is -0)"));
  t.push_back(reduce_spec<Max, false>("vcmax", "max of each repeat", "`dst[r*dst_rep] = max of the active elements of repeat r` (NaN if any is NaN; of equal values, +0 and -0, the earlier)"));
  t.push_back(reduce_spec<Min, false>("vcmin", "min of each repeat", "`dst[r*dst_rep] = min of the active elements of repeat r` (NaN if any is NaN; of equal values, +0 and -0, the earlier)"));
  t.push_back(reduce_spec<Sum, true>("vcgadd", "sum each 32 B block",
                                     "`dst[r*dst_rep*8 + b] = sum of the active elements of block b of repeat r`; blocks "
                                     "with no active element are not written"));
  t.push_back(reduce_spec<Max, true>("vcgmax", "max of each 32 B block", "as vcgadd, with max"));
  t.push_back(reduce_spec<Min, true>("vcgmin", "min of each 32 B block", "as vcgadd, with min"));
  t.push_back({.mnemonic = "vcmp", .pipe = Pipe::V, .ntypes = 1, .types = kFloats,
               .operands = {mem("dst", bit(Space::UB), "result bits"), mem("src0", bit(Space::UB), "left"),
                            mem("src1", bit(Space::UB), "right"),
                            {.name = "cmp", .kind = OperandKind::Enum, .keyword = true, .def = kRequiredKeyword,
                             .symbols = kCmpModes, .doc = "comparison"},
                            kw("repeat", 0, 255, 1, "repeats"), kw("src0_blk", 0, 255, 1, "block stride"),
                            kw("src1_blk", 0, 255, 1, "block stride"), kw("src0_rep", 0, 255, 8, "repeat stride"),
                            kw("src1_rep", 0, 255, 8, "repeat stride"), mask_operand()},
               .summary = "compare elementwise into a bit mask",
               .semantics = "Bit i of repeat r's epr/8 result bytes at `dst + r*epr/8` is `src0[i] cmp src1[i]` for active "
                            "elements (IEEE: every comparison with NaN is false except ne), 0 for inactive ones.",
               .exec = vcmp_exec, .footprint = vcmp_footprint, .validate = mask_check, .work = vcmp_work});
  t.push_back({.mnemonic = "vsel", .pipe = Pipe::V, .ntypes = 1, .types = kFloats, .operands = vsel_operands(),
               .summary = "select elementwise by a bit mask",
               .semantics = "`dst[i] = bit i of sel ? src0[i] : src1[i]`, the bits of repeat r at `sel + r*epr/8`.",
               .exec = vsel_exec, .footprint = vsel_footprint, .validate = mask_check, .work = vsel_work});
}

}  // namespace cubekit
