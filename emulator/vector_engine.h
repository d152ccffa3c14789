// The vector unit's addressing, shared by every V instruction (internal to emulator/isa_*.cpp).
//
// A vector instruction runs `repeat` repeats; repeat r processes `epr` elements (256 bytes of the
// widest operand). Each operand has a block stride and a repeat stride in 32 B blocks; element i
// of repeat r of an operand with element size s lies at
//     base + r*rep*32 + floor(i*s/32)*blk*32 + (i*s mod 32)
// so with the defaults (blk 1, rep 8 for 256 B operands) the operand is contiguous. The mask
// says which elements of a repeat are active; inactive elements are neither read nor written.
#pragma once

#include "emulator/checked_math.h"
#include "emulator/isa_helpers.h"

#include <array>
#include <bit>

namespace cubekit::isa {

struct VecMask {
  MaskMode mode = MaskMode::Full;
  uint64_t lo = 0, hi = 0;  // Bits
  int64_t count = 0;        // Count: per repeat; Counter: in all
  int epr = 0;
  int64_t repeats = 0;

  bool active(int64_t r, int i) const {
    if (i >= epr) return false;
    switch (mode) {
      case MaskMode::Full: return true;
      case MaskMode::Count: return i < count;
      case MaskMode::Bits: return i < 64 ? (lo >> i) & 1 : (hi >> (i - 64)) & 1;
      case MaskMode::Counter: return r * epr + i < count;
    }
    return false;
  }
  // Whether the active elements of every repeat are [0, prefix(r)) exactly: all modes but a bit
  // pattern with a gap or inactive low elements.
  bool dense() const { return mode != MaskMode::Bits || std::popcount(lo) + std::popcount(hi) == prefix(0); }
  // A bit pattern's 32 B blocks (of an operand of `size`-byte elements) that hold an active element:
  // bit k for block k of a repeat.
  uint32_t active_blocks(int size) const {
    const int per_block = 32 / size;
    uint32_t blocks = 0;
    for (int i = 0; i < epr; ++i)
      if (active(0, i)) blocks |= 1u << (i / per_block);
    return blocks;
  }
  // Elements [0, prefix(r)) hold every active element of repeat r.
  int prefix(int64_t r) const {
    switch (mode) {
      case MaskMode::Full: return epr;
      case MaskMode::Count: return int(std::min<int64_t>(count, epr));
      case MaskMode::Bits: return std::min(epr, hi ? 128 - std::countl_zero(hi) : 64 - std::countl_zero(lo));
      case MaskMode::Counter: return int(std::clamp<int64_t>(count - r * epr, 0, epr));
    }
    return 0;
  }
};

// repeat_slot < 0: the instruction has one repeat.
inline VecMask vec_mask(const Issued& I, int mask_slot, int repeat_slot, int epr) {
  const Operand& m = I.instr->ops[mask_slot];
  VecMask v{.mode = m.mask, .epr = epr};
  if (m.mask == MaskMode::Bits) v.lo = uint64_t(m.imm), v.hi = m.hi;
  else v.count = m.imm;
  v.repeats = repeat_slot < 0 ? 1 : I[repeat_slot];
  if (m.mask == MaskMode::Counter) v.repeats = cdiv(m.imm, epr);
  return v;
}

struct VecOperand {
  int slot;
  int size;     // element bytes
  int64_t blk;  // bytes
  int64_t rep;  // bytes

  int64_t offset(int64_t r, int i) const { return r * rep + (int64_t(i) * size / 32) * blk + (int64_t(i) * size) % 32; }
};

// f(first, end) for each run of consecutive set bits [first, end) among bits [0, n) of `blocks`.
template <class F>
void for_each_block_run(uint32_t blocks, int n, F f) {
  for (int k = 0; k < n;) {
    if (!(blocks >> k & 1)) {
      ++k;
      continue;
    }
    int end = k;
    while (end < n && (blocks >> end & 1)) ++end;
    f(k, end);
    k = end;
  }
}

// Adds the blocks an operand touches (every block holding an active element) to the footprint.
inline void add_vec_region(Footprint& fp, const Issued& I, const VecOperand& op, const VecMask& m, bool write,
                           int64_t align) {
  const Operand& o = I.instr->ops[op.slot];
  auto group = [&](int64_t first_repeat, int64_t repeats, int prefix) {
    int64_t bytes = int64_t(prefix) * op.size, full = bytes / 32, tail = bytes % 32;
    int64_t base = wrapping_add(I[op.slot], first_repeat * op.rep);  // check() rejects a wrapped one
    Region r{.operand = uint8_t(op.slot), .space = o.space, .write = write, .by_repeat = true,
             .first_repeat = uint16_t(first_repeat), .base = base, .bytes = 32, .n1 = full, .s1 = op.blk, .n2 = repeats,
             .s2 = op.rep, .align = align};
    fp.add(r);
    r.base = wrapping_add(base, full * op.blk), r.bytes = tail, r.n1 = 1;
    fp.add(r);
  };
  if (m.mode == MaskMode::Counter && m.repeats > 0) {
    group(0, m.repeats - 1, m.epr);
    group(m.repeats - 1, 1, m.prefix(m.repeats - 1));
    return;
  }
  if (m.dense()) return group(0, m.repeats, m.prefix(0));
  // A bit pattern with gaps: the blocks that hold an active element (blocks with none are neither
  // read nor written; [0, prefix) counted the inactive low ones, hiding a read of bytes nothing
  // wrote and reporting races on bytes never touched), in runs of blocks whose active bytes are the
  // same (Region::byte_mask: two masks that split a block between them do not race). Runs start at
  // block starts, so the operand's alignment is checked as before.
  std::array<uint32_t, 32> bytes{};  // per block of a repeat
  for (int i = 0; i < m.epr; ++i)
    if (m.active(0, i)) bytes[size_t(i * op.size / 32)] |= uint32_t((uint64_t(1) << op.size) - 1) << (i * op.size % 32);
  auto add = [&](int k, int end, uint32_t mask) {
    fp.add({.operand = uint8_t(op.slot), .space = o.space, .write = write, .by_repeat = true, .first_repeat = 0,
            .base = wrapping_add(I[op.slot], k * op.blk), .bytes = 32, .n1 = end - k, .s1 = op.blk, .n2 = m.repeats,
            .s2 = op.rep, .align = align, .byte_mask = mask == ~0u ? 0 : mask});
  };
  int runs = 0;
  for (int k = 0; k < 32;) {
    int end = k + 1;
    while (end < 32 && bytes[size_t(end)] == bytes[size_t(k)]) ++end;
    runs += bytes[size_t(k)] != 0;
    k = end;
  }
  // Three operands of 4 runs each fit a footprint (Footprint::regions); a pattern of more runs keeps
  // the runs of blocks with an active element, each with the union of its blocks' bytes (more bytes
  // than it touches: a race found there may be on bytes inactive in one of its blocks).
  if (runs > 4)
    return for_each_block_run(m.active_blocks(op.size), 32, [&](int k, int end) {
      uint32_t mask = 0;
      for (int b = k; b < end; ++b) mask |= bytes[size_t(b)];
      add(k, end, mask);
    });
  for (int k = 0; k < 32;) {
    int end = k + 1;
    while (end < 32 && bytes[size_t(end)] == bytes[size_t(k)]) ++end;
    if (bytes[size_t(k)]) add(k, end, bytes[size_t(k)]);
    k = end;
  }
}

// Slots of the standard vector operand list: dst, src.., [scalar], repeat, dst_blk, src.._blk,
// dst_rep, src.._rep, mask.
struct VecSlots {
  int nsrc;
  bool has_scalar;
  constexpr int dst() const { return 0; }
  constexpr int src(int s) const { return 1 + s; }
  constexpr int scalar() const { return 1 + nsrc; }
  constexpr int repeat() const { return 1 + nsrc + has_scalar; }
  constexpr int blk(int operand) const { return repeat() + 1 + operand; }  // operand 0 = dst, 1.. = srcs
  constexpr int rep(int operand) const { return repeat() + 2 + nsrc + operand; }
  constexpr int mask() const { return repeat() + 3 + 2 * nsrc; }
};

std::vector<OperandSpec> vec_operands(int nsrc, bool has_scalar);

// Checks the mask against the repeat and the dtype (finds both operands by name).
std::string mask_check(const Instr& in, int& operand);

// The scalar operand of an issued instruction, already rounded to the instruction's dtype.
inline double scalar_of(const Issued& I, int slot) { return std::bit_cast<double>(I[slot]); }

}  // namespace cubekit::isa

namespace cubekit {
void add_vector_elementwise(std::vector<InstrSpec>& table);
void add_vector_reduce(std::vector<InstrSpec>& table);
void add_vector_move(std::vector<InstrSpec>& table);
}  // namespace cubekit
