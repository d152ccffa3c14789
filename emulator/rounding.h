// IEEE binary16, bfloat16 and the rounding modes of the vector unit's conversions.
//
// Every fp16 result the emulator produces goes through f32_to_f16: values are computed exactly (or
// in f32, where that is provably the same as computing exactly and rounding once) and rounded
// once. Modes follow Ascend's RoundMode names: rint (nearest, ties to even), floor, ceil,
// round (nearest, ties away from zero), trunc (toward zero), odd (von Neumann rounding to odd).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace cubekit {

enum class RoundMode : uint8_t { none, rint, floor, ceil, round, trunc, odd };

std::string_view round_mode_name(RoundMode m);

// binary16 <-> binary32. f16_to_f32 is exact (a table of all 65,536 values, computed by the
// compiler: the vector unit converts every f16 operand it reads); f32_to_f16 rounds to nearest
// even (the default of every f16 vector result), handling subnormals, infinities and NaN as IEEE
// 754 does.
extern const std::array<float, 65536> kF16ToF32;
inline float f16_to_f32(uint16_t h) { return kF16ToF32[h]; }
uint16_t f32_to_f16(float f);
uint16_t f64_to_f16(double d);  // round to nearest even, like f32_to_f16

// bfloat16 <-> binary32. bf16 is the top half of an f32 (sign, 8 exponent bits, 7 mantissa bits),
// so bf16_to_f32 is exact; f32_to_bf16 rounds to nearest even -- subnormals like any other value,
// overflow to infinity -- and keeps a NaN a quiet NaN with its top payload bits.
float bf16_to_f32(uint16_t b);
uint16_t f32_to_bf16(float f);

// Rounds x (exact in double) to binary16 / binary32 with the given mode; overflow goes to
// infinity or to the largest finite value as the mode directs.
uint16_t double_to_f16(double x, RoundMode mode);
float double_to_f32(double x, RoundMode mode);
uint16_t double_to_bf16(double x, RoundMode mode);  // likewise, to bfloat16

// Rounds x to an integer with the given mode and saturates it to [lo, hi]; NaN becomes 0.
int64_t double_to_int(double x, RoundMode mode, int64_t lo, int64_t hi);

}  // namespace cubekit
