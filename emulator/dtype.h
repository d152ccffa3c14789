// Element types of the AI Core's data paths.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace cubekit {

// bf16 (bfloat16: f32's sign and exponent, 7 mantissa bits) is last so the others keep their values.
enum class DType : uint8_t { f16, f32, s8, u8, s16, u16, s32, bf16 };

inline constexpr DType kAllDTypes[] = {DType::f16, DType::f32, DType::s8, DType::u8,
                                       DType::s16, DType::u16, DType::s32, DType::bf16};

constexpr int dtype_size(DType t) {
  switch (t) {
    case DType::s8:
    case DType::u8: return 1;
    case DType::f16:
    case DType::bf16:
    case DType::s16:
    case DType::u16: return 2;
    case DType::f32:
    case DType::s32: return 4;
  }
  return 0;
}

constexpr bool is_float(DType t) { return t == DType::f16 || t == DType::f32 || t == DType::bf16; }

// A float type's largest finite value and smallest normal one (f16, bf16, f32).
constexpr double largest_finite(DType t) {
  return t == DType::f16 ? 65504.0 : t == DType::bf16 ? 3.3895313892515355e38 /* 0x7F7F */ : 3.4028234663852886e38;
}
constexpr double smallest_normal(DType t) { return t == DType::f16 ? 6.103515625e-05 : 1.1754943508222875e-38; }

std::string_view dtype_name(DType t);
std::optional<DType> parse_dtype(std::string_view name);
std::string_view dtype_list();  // "f16 f32 s8 u8 s16 u16 s32 bf16", for messages

}  // namespace cubekit
