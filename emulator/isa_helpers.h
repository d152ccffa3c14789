// Shorthands for writing the instruction table (internal to emulator/isa_*.cpp).
#pragma once

#include "emulator/arith.h"
#include "emulator/error.h"
#include "emulator/isa.h"
#include "emulator/memory.h"
#include "emulator/rounding.h"

#include <fmt/format.h>

#include <algorithm>

#include <bit>
#include <cstring>
#include <limits>

namespace cubekit::isa {

constexpr uint8_t bit(Space s) { return uint8_t(1u << int(s)); }
inline constexpr int64_t kI32Min = std::numeric_limits<int32_t>::min();
inline constexpr int64_t kI32Max = std::numeric_limits<int32_t>::max();
inline constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
inline constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();

inline OperandSpec reg(std::string_view name, std::string_view doc) {
  return {.name = name, .kind = OperandKind::Reg, .doc = doc};
}
inline OperandSpec reg_or_imm(std::string_view name, std::string_view doc) {
  return {.name = name, .kind = OperandKind::RegOrImm, .lo = kI32Min, .hi = kI32Max, .doc = doc};
}
inline OperandSpec imm(std::string_view name, int64_t lo, int64_t hi, std::string_view doc) {
  return {.name = name, .kind = OperandKind::Imm, .lo = lo, .hi = hi, .doc = doc};
}
inline OperandSpec kw(std::string_view name, int64_t lo, int64_t hi, int64_t def, std::string_view doc) {
  return {.name = name, .kind = OperandKind::Imm, .keyword = true, .lo = lo, .hi = hi, .def = def, .doc = doc};
}
// A keyword operand with no default: it must be written.
inline OperandSpec required(std::string_view name, int64_t lo, int64_t hi, std::string_view doc) {
  return {.name = name, .kind = OperandKind::Imm, .keyword = true, .lo = lo, .hi = hi, .def = kRequiredKeyword, .doc = doc};
}
inline OperandSpec mem(std::string_view name, uint8_t spaces, std::string_view doc) {
  return {.name = name, .kind = OperandKind::Mem, .spaces = spaces, .doc = doc};
}
inline OperandSpec flag(std::string_view name, std::string_view doc) {
  return {.name = name, .kind = OperandKind::Flag, .keyword = true, .lo = 0, .hi = 1, .doc = doc};
}
inline OperandSpec choice(std::string_view name, std::vector<std::string_view> symbols, int64_t def, std::string_view doc) {
  return {.name = name, .kind = OperandKind::Enum, .keyword = true, .def = def, .symbols = std::move(symbols), .doc = doc};
}
inline OperandSpec label(std::string_view name, std::string_view doc) {
  return {.name = name, .kind = OperandKind::Label, .doc = doc};
}
inline OperandSpec pipe(std::string_view name, bool allow_all, std::string_view doc) {
  return {.name = name, .kind = OperandKind::PipeName, .allow_all = allow_all, .doc = doc};
}
inline OperandSpec scalar(std::string_view name, std::string_view doc) {
  return {.name = name, .kind = OperandKind::Scalar, .doc = doc};
}
inline OperandSpec mask_operand() {
  return {.name = "mask", .kind = OperandKind::Mask, .keyword = true,
          .doc = "active elements of each repeat: N (the first N), 0xHI:0xLO (bit i = element i), "
                 "counter:N (N elements in all, repeat derived); default all"};
}

// Typed element access to raw bytes (unaligned-safe, little-endian host).
template <class T>
inline T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
inline void store(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

// Reads/writes one element of dtype t as a double (exact for every dtype here). Stores round
// floats to nearest even and wrap integers, as the vector unit's results do.
double load_as_double(const uint8_t* p, DType t);
void store_from_double(uint8_t* p, DType t, double v);

}  // namespace cubekit::isa
