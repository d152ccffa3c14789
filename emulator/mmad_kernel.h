// The arithmetic of mmad, on the operands converted to f32 in layouts the cube's own are one step from.
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

//
// Layouts, chosen so that neither C nor the unpacking needs a copy in another order:
//   A  row-major, M x K;
//   Bp B in column panels: panel p (columns 16p .. 16p + 15) is K rows of 16, at Bp + p * K * 16;
//   C  as L0C holds f32 (NZ): panel p is M rows of 16, at C + p * M * 16.
// zero_c starts every C element at +0 instead of reading it (mmad's init).
// Requires: M and N multiples of 16; every A and B value exactly representable in f16 or in bf16.
void gemm_f16_products(float* C, const float* A, const float* Bp, int M, int N, int K, bool zero_c);

// The instruction-set variants behind gemm_f16_products (the best the host has is used); tests run
// each one the host supports, since they must agree bit for bit.
enum class GemmVariant { Portable, Avx2, Avx512 };
bool gemm_variant_supported(GemmVariant v);
void gemm_f16_products(GemmVariant v, float* C, const float* A, const float* Bp, int M, int N, int K, bool zero_c);

// Unpacking 16-bit (f16 or bf16) fractals into those layouts, converting exactly (a NaN made quiet
// with its payload kept, as f16_to_f32 does). k_len: the K of the product (the last K fractal may be
// partly used). a: mf x kf fractals zZ (row-major, 16 x 16 each). b: kf x nf fractals zN (each
// stored column-major: element (k, n) at n * 16 + k).
void unpack_a_zz(const uint16_t* a, int mf, int kf, int k_len, bool bf16, float* A);
void unpack_b_zn(const uint16_t* b, int kf, int nf, int k_len, bool bf16, float* Bp);

// n 16-bit values to f32 with the host's widest conversion (exposed for its test).
void widen_16bit(const uint16_t* src, float* dst, int n, bool bf16);
void gemm_s8(int32_t* C, const int8_t* A, const int8_t* B, int M, int N, int K);

}  // namespace cubekit
