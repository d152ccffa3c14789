#include "emulator/dtype.h"

namespace cubekit {

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f16: return "f16";
    case DType::f32: return "f32";
    case DType::s8: return "s8";
    case DType::u8: return "u8";
    case DType::s16: return "s16";
    case DType::u16: return "u16";
    case DType::s32: return "s32";
    case DType::bf16: return "bf16";
  }
  return "?";
}

std::string_view dtype_list() { return "f16 f32 s8 u8 s16 u16 s32 bf16"; }

std::optional<DType> parse_dtype(std::string_view name) {
  for (DType t : kAllDTypes)
    if (dtype_name(t) == name) return t;
  return std::nullopt;
}

}  // namespace cubekit
