// The arithmetic of mmad on unpacked (row-major) matrices.
//
// C[M][N] += A[M][K] * B[K][N], where every C element is accumulated in increasing k order with
// one rounding to f32 per step: c = fl(fma(a, b, c)). For f16 inputs a*b is exact in f32, so this
// is also fl(c + a*b); for bf16 inputs the product of two 8-bit significands is exact too, except
// where it leaves f32's range, and fma states the result there. Every variant uses FMA, so it stays
// bit-identical on every host and instruction set (a library GEMM reassociates the sum, differently
// per CPU). The integer form wraps like the cube's s32 accumulator.
#pragma once

#include <cstdint>

namespace cubekit {

// Requires: M and N multiples of 16; every A and B value exactly representable in f16 or in bf16.
void gemm_f16_products(float* C, const float* A, const float* B, int M, int N, int K);

// The instruction-set variants behind gemm_f16_products (the best the host has is used); tests run
// each one the host supports, since they must agree bit for bit.
enum class GemmVariant { Portable, Avx2, Avx512 };
bool gemm_variant_supported(GemmVariant v);
void gemm_f16_products(GemmVariant v, float* C, const float* A, const float* B, int M, int N, int K);
void gemm_s8(int32_t* C, const int8_t* A, const int8_t* B, int M, int N, int K);

}  // namespace cubekit
