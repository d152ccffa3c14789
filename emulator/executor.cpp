#include "emulator/executor.h"

#include "emulator/checked_math.h"
#include "emulator/error.h"
#include "emulator/rounding.h"

#include <fmt/format.h>

#include <bit>

namespace cubekit {
namespace {

// The scalar operand of a vector instruction as the exact value of its dtype.
double scalar_value(const Operand& o, const ScalarState& s, DType t) {
  if (o.kind == Operand::Kind::Reg) {
    int64_t bits = s.x[o.reg];
    switch (t) {
      case DType::f16: return f16_to_f32(uint16_t(bits));
      case DType::f32: return std::bit_cast<float>(uint32_t(bits));
      case DType::s8: return int8_t(bits);
      case DType::u8: return uint8_t(bits);
      case DType::s16: return int16_t(bits);
      case DType::u16: return uint16_t(bits);
      case DType::s32: return int32_t(bits);
      case DType::bf16: return bf16_to_f32(uint16_t(bits));
    }
  }
  switch (t) {
    case DType::f16: return f16_to_f32(f64_to_f16(o.f));
    case DType::f32: return float(o.f);
    case DType::s8: return int8_t(int64_t(o.f));
    case DType::u8: return uint8_t(int64_t(o.f));
    case DType::s16: return int16_t(int64_t(o.f));
    case DType::u16: return uint16_t(int64_t(o.f));
    case DType::s32: return int32_t(int64_t(o.f));
    case DType::bf16: return bf16_to_f32(double_to_bf16(o.f, RoundMode::rint));
  }
  return 0;
}

// The dtype a GM operand must have, when the instruction says one.
std::optional<DType> gm_dtype(const InstrSpec& spec, const Issued& I) {
  const int atomic = spec.atomic;
  if (atomic >= 0) {
    static constexpr DType types[] = {DType::f32, DType::f32, DType::f16, DType::s32};
    if (I[atomic] == 0) return std::nullopt;
    return types[I[atomic]];
  }
  if (spec.ntypes == 1) return I.type();
  if (spec.pipe == Pipe::FIX) return I.type(1);  // fixpipe.SRC.DST writes GM in its destination type
  return std::nullopt;
}

}  // namespace

Issued issue(const Instr& in, int index, const ScalarState& s) {
  Issued I;
  issue_into(I, in, index, s);
  return I;
}

void issue_into(Issued& I, const Instr& in, int index, const ScalarState& s) {
  const InstrSpec& spec = spec_of(in);
  I.instr = &in;
  I.index = index;
  for (size_t i = 0; i < spec.operands.size(); ++i) {
    const Operand& o = in.ops[i];
    if (o.kind == Operand::Kind::None) {  // an optional keyword operand left out
      I.v[i] = 0;
      continue;
    }
    if (spec.operands[i].kind == OperandKind::Scalar) {
      I.v[i] = std::bit_cast<int64_t>(scalar_value(o, s, spec.operands[i].scalar_type.value_or(in.type[0])));
      continue;
    }
    switch (o.kind) {
      case Operand::Kind::Mem: I.v[i] = wrapping_add(o.reg == kNoReg ? 0 : s.x[o.reg], o.imm); break;
      case Operand::Kind::Reg: I.v[i] = s.x[o.reg]; break;
      default: I.v[i] = o.imm; break;
    }
  }
  I.fmatrix = s.fmatrix;
}

AccessError check(const Issued& I, const ChipConfig& chip, const GlobalMemory& gm, Footprint& fp) {
  const InstrSpec& spec = spec_of(*I.instr);
  fp.count = 0;
  if (spec.fault)
    if (std::string m = spec.fault(I, chip); !m.empty()) return {AccessError::Fault, std::move(m)};
  if (spec.footprint) spec.footprint(I, chip, fp);
  std::optional<DType> want = gm_dtype(spec, I);
  for (int k = 0; k < fp.count; ++k) {
    const Region& r = fp.regions[k];
    std::string_view operand = spec.operands[r.operand].name;
    bool gm_region = r.space == Space::GM;
    const TensorDecl* tensor = gm_region ? &gm.decls[r.tensor] : nullptr;
    int64_t size = gm_region ? gm.tensor_bytes(size_t(r.tensor)) : chip.buffer_size(r.space);
    // Named only in a message: formatting it for every region of every instruction cost timing-only
    // runs a tenth of their time.
    auto buffer = [&] { return gm_region ? fmt::format("tensor {}", tensor->name) : std::string(space_name(r.space)); };
    if (gm_region && want && tensor->dtype != *want)
      return {AccessError::DtypeMismatch,
              fmt::format("operand '{}' accesses tensor {} as {}, but it is declared {}", operand, tensor->name,
                          dtype_name(*want), dtype_name(tensor->dtype)),
              k};
    // A region starts at its operand's address plus non-negative offsets; computed with wrapping,
    // so one that passed 2^63 shows as negative: then the message names the address instead.
    std::optional<int64_t> end = r.end();
    if (r.lo() < 0 || r.lo() > size || !end || *end > size) {
      const int64_t address = I[r.operand];
      // xN + imm past the 64-bit range wraps (the machine's registers do): name both terms.
      const Operand& o = I.instr->ops[r.operand];
      const int64_t reg = wrapping_add(address, -o.imm);
      const bool wrapped = o.kind == Operand::Kind::Mem && o.reg != kNoReg && !checked_add(reg, o.imm);
      const bool exact = !wrapped && end && !(address >= 0 && r.lo() < 0);
      std::string bytes = wrapped ? fmt::format("bytes from address {} + {}, past the 64-bit range", reg, o.imm)
                          : exact ? fmt::format("bytes [{}, {})", r.lo(), *end)
                                  : fmt::format("bytes from address {} to beyond 2^63", address);
      return {AccessError::OutOfBounds,
              fmt::format("operand '{}' {} {} {}, outside its {} bytes [0, {}){}", operand, r.write ? "writes" : "reads",
                          buffer(), bytes, buffer(), size, exact && r.lo() < 0 ? " (a negative address)" : ""),
              k};
    }
    auto misaligned = [&](int64_t address) {
      return AccessError{AccessError::Misaligned,
                         fmt::format("operand '{}' {} address {} is not {}-byte aligned ({} mod {} = {})", operand,
                                     buffer(), address, r.align, address, r.align, address % r.align),
                         k};
    };
    if (r.base % r.align) return misaligned(r.base);
    if (r.n1 > 1 && r.s1 % r.align) return misaligned(r.base + r.s1);
    if (r.n2 > 1 && r.s2 % r.align) return misaligned(r.base + r.s2);
  }
  return {};
}

}  // namespace cubekit
