// The vector unit's commonest arithmetic on the host's SIMD units (AVX2 and F16C), for one repeat
// whose elements lie back to back: the same bits as the scalar path, many times faster.
//
// Why the bits agree: f16 and f32 operands go to float; +, -, *, / of two floats rounded once to
// float, and then once more to f16, equal the exact result rounded once (binary32 has the 2p + 2
// bits of precision over binary16's that make rounding twice innocuous, as binary64 over
// binary32's does for the scalar path's doubles); F16C's conversions round to nearest even like
// f32_to_f16 (tests/emulator/rounding_test.cpp) and keep a NaN's top payload bits; max and min
// return a canonical quiet NaN when either operand is NaN and the second operand on ties, as
// max_of / min_of do. tests/emulator/vector_simd_test.cpp holds both paths to the same bits.
#pragma once

#include "emulator/dtype.h"

#include <cstdint>

namespace cubekit {

// The operations with a SIMD path: the binary ones of simd_binary, and Exp (simd_exp_to_f32).
enum class SimdOp : uint8_t { None, Add, Sub, Mul, Div, Max, Min, Exp };

// One operand of a repeat: its first byte and its block stride in bytes (32: back to back; 0: one
// block read again and again, a row broadcast). Element i is at at + (i * size / 32) * blk +
// (i * size) % 32, as the vector unit addresses it.
struct SimdOperand {
  const uint8_t* at;
  int64_t blk = 32;
};

// d[i] = a[i] op b[i] for the first n elements of a repeat (n <= 128), elements of t (f16 or f32).
// Every source element is read before any is written (d may overlap a or b), elements are written
// in order. False, and nothing done, when the host has no AVX2 and F16C or the vector path is
// switched off: the caller runs its scalar loop.
bool simd_binary(SimdOp op, DType t, SimdOperand a, SimdOperand b, uint8_t* d, int64_t d_blk, int n);

// d[i] = s[i] converted (f16 -> f32 exactly, f32 -> f16 to nearest even), i < n (n <= 128); reads
// before writing, false when unavailable, as above.
bool simd_convert(DType from, DType to, const uint8_t* s, uint8_t* d, int n);

// y[i] = e^x[i] in double for i < n (n <= 128), close enough that float(y[i]) is exactly
// float(std::exp(x[i])), the scalar path's vexp into f32: a polynomial on AVX2 and FMA, 4 lanes at a
// time, 1-2 ulps of double from e^x; a lane whose float rounding that error could change (within 64
// ulps of a point halfway between two floats), or whose result is not a normal float, or NaN, is
// std::exp's. 4-10x faster than std::exp, which was a quarter of a functional softmax of 4096^2.
// False when unavailable, as above.
bool simd_exp_to_f32(const double* x, double* y, int n);

// Whether the SIMD path is taken where the host allows it (true by default); tests switch it off to
// compare with the scalar path. Not thread-safe: set it before a run.
void set_simd_enabled(bool on);
bool simd_available();

}  // namespace cubekit
