#include "emulator/mmad_kernel.h"

#include "emulator/error.h"
#include "emulator/host_cpu.h"
#include "emulator/rounding.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>

namespace cubekit {
namespace {

// Each variant walks B's 16-column panels and keeps an MR x 16 (or x 32) tile of C in registers over
// the whole K loop, so each C element sees its products in k order. Panel p of B and of C start at
// p * 16 * K and p * 16 * M floats: for a column j (a multiple of 16) that is j * K and j * M.

__attribute__((target("avx512f"))) void gemm_avx512(float* C, const float* A, const float* Bp, int M, int N, int K,
                                                   bool zero_c) {
  constexpr int MR = 8;
  int j = 0;
  for (; j + 32 <= N; j += 32) {
    const float* b0 = Bp + size_t(j) * K;
    const float* b1 = b0 + size_t(16) * K;
    float* c0 = C + size_t(j) * M;
    float* c1 = c0 + size_t(16) * M;
    for (int i = 0; i < M; i += MR) {
      __m512 c[MR][2];
      for (int r = 0; r < MR; ++r) {
        c[r][0] = zero_c ? _mm512_setzero_ps() : _mm512_loadu_ps(c0 + (i + r) * 16);
        c[r][1] = zero_c ? _mm512_setzero_ps() : _mm512_loadu_ps(c1 + (i + r) * 16);
      }
      for (int k = 0; k < K; ++k) {
        __m512 x0 = _mm512_loadu_ps(b0 + k * 16), x1 = _mm512_loadu_ps(b1 + k * 16);
        for (int r = 0; r < MR; ++r) {
          __m512 a = _mm512_set1_ps(A[(i + r) * K + k]);
          c[r][0] = _mm512_fmadd_ps(a, x0, c[r][0]);
          c[r][1] = _mm512_fmadd_ps(a, x1, c[r][1]);
        }
      }
      for (int r = 0; r < MR; ++r) {
        _mm512_storeu_ps(c0 + (i + r) * 16, c[r][0]);
        _mm512_storeu_ps(c1 + (i + r) * 16, c[r][1]);
      }
    }
  }
  for (; j < N; j += 16) {
    const float* b = Bp + size_t(j) * K;
    float* cp = C + size_t(j) * M;
    for (int i = 0; i < M; i += MR) {
      __m512 c[MR];
      for (int r = 0; r < MR; ++r) c[r] = zero_c ? _mm512_setzero_ps() : _mm512_loadu_ps(cp + (i + r) * 16);
      for (int k = 0; k < K; ++k) {
        __m512 x = _mm512_loadu_ps(b + k * 16);
        for (int r = 0; r < MR; ++r) c[r] = _mm512_fmadd_ps(_mm512_set1_ps(A[(i + r) * K + k]), x, c[r]);
      }
      for (int r = 0; r < MR; ++r) _mm512_storeu_ps(cp + (i + r) * 16, c[r]);
    }
  }
}

__attribute__((target("avx2,fma"))) void gemm_avx2(float* C, const float* A, const float* Bp, int M, int N, int K,
                                                  bool zero_c) {
  constexpr int MR = 4;
  for (int j = 0; j < N; j += 16) {
    const float* b = Bp + size_t(j) * K;
    float* cp = C + size_t(j) * M;
    for (int i = 0; i < M; i += MR) {
      __m256 c[MR][2];
      for (int r = 0; r < MR; ++r) {
        c[r][0] = zero_c ? _mm256_setzero_ps() : _mm256_loadu_ps(cp + (i + r) * 16);
        c[r][1] = zero_c ? _mm256_setzero_ps() : _mm256_loadu_ps(cp + (i + r) * 16 + 8);
      }
      for (int k = 0; k < K; ++k) {
        __m256 x0 = _mm256_loadu_ps(b + k * 16), x1 = _mm256_loadu_ps(b + k * 16 + 8);
        for (int r = 0; r < MR; ++r) {
          __m256 a = _mm256_set1_ps(A[(i + r) * K + k]);
          c[r][0] = _mm256_fmadd_ps(a, x0, c[r][0]);
          c[r][1] = _mm256_fmadd_ps(a, x1, c[r][1]);
        }
      }
      for (int r = 0; r < MR; ++r) {
        _mm256_storeu_ps(cp + (i + r) * 16, c[r][0]);
        _mm256_storeu_ps(cp + (i + r) * 16 + 8, c[r][1]);
      }
    }
  }
}

// Portable: fma, as the vector variants compute (for f16 inputs the same as c + a*b).
void gemm_plain(float* C, const float* A, const float* Bp, int M, int N, int K, bool zero_c) {
  for (int j = 0; j < N; j += 16) {
    const float* b = Bp + size_t(j) * K;
    float* cp = C + size_t(j) * M;
    if (zero_c) std::fill(cp, cp + size_t(16) * M, 0.0f);
    for (int i = 0; i < M; ++i)
      for (int k = 0; k < K; ++k) {
        float a = A[i * K + k];
        for (int n = 0; n < 16; ++n) cp[i * 16 + n] = std::fma(a, b[k * 16 + n], cp[i * 16 + n]);
      }
  }
}

// ---- widening 16-bit values to f32 --------------------------------------------------------------
// f16 -> f32 by the F16C conversion is exact and makes a signalling NaN quiet keeping its payload,
// as kF16ToF32 does (a test checks all 65,536 values); bf16 -> f32 is a shift. Each variant widens
// `rows` rows of `width` values (a fractal at a time: one call per 256 values, not per row).

__attribute__((target("avx512f"))) void widen_avx512(const uint16_t* src, int64_t src_stride, float* dst,
                                                    int64_t dst_stride, int rows, int width, bool bf16) {
  for (int r = 0; r < rows; ++r, src += src_stride, dst += dst_stride) {
    int i = 0;
    for (; i + 16 <= width; i += 16) {
      __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
      // The zero-masked forms: GCC 12 warns on the plain ones' self-initialised "undefined" source.
      __m512 f = bf16 ? _mm512_castsi512_ps(_mm512_maskz_slli_epi32(0xffff, _mm512_maskz_cvtepu16_epi32(0xffff, h), 16))
                      : _mm512_maskz_cvtph_ps(0xffff, h);
      _mm512_storeu_ps(dst + i, f);
    }
    for (; i < width; ++i) dst[i] = bf16 ? bf16_to_f32(src[i]) : f16_to_f32(src[i]);
  }
}

__attribute__((target("avx2,f16c"))) void widen_avx2(const uint16_t* src, int64_t src_stride, float* dst,
                                                    int64_t dst_stride, int rows, int width, bool bf16) {
  for (int r = 0; r < rows; ++r, src += src_stride, dst += dst_stride) {
    int i = 0;
    for (; i + 8 <= width; i += 8) {
      __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
      __m256 f = bf16 ? _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16)) : _mm256_cvtph_ps(h);
      _mm256_storeu_ps(dst + i, f);
    }
    for (; i < width; ++i) dst[i] = bf16 ? bf16_to_f32(src[i]) : f16_to_f32(src[i]);
  }
}

void widen_plain(const uint16_t* src, int64_t src_stride, float* dst, int64_t dst_stride, int rows, int width,
                 bool bf16) {
  for (int r = 0; r < rows; ++r, src += src_stride, dst += dst_stride)
    for (int i = 0; i < width; ++i) dst[i] = bf16 ? bf16_to_f32(src[i]) : f16_to_f32(src[i]);
}

// B's zN fractals into K x 16 panels: a fractal's 16 stored rows (one column of B each) widened
// into 16 registers, transposed there (the usual three rounds of 4 x 4 shuffles), and stored as
// the panel's rows -- where the scalar way moved each 16-bit value alone.
__attribute__((target("avx512f"))) inline __m512 widen16(const uint16_t* src, bool bf16) {
  __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src));
  return bf16 ? _mm512_castsi512_ps(_mm512_maskz_slli_epi32(0xffff, _mm512_maskz_cvtepu16_epi32(0xffff, h), 16))
              : _mm512_maskz_cvtph_ps(0xffff, h);
}

__attribute__((target("avx512f"))) inline __m512 pd(__m512 lo, __m512 hi, bool high) {
  const __m512d a = _mm512_castps_pd(lo), b = _mm512_castps_pd(hi);
  return _mm512_castpd_ps(high ? _mm512_maskz_unpackhi_pd(0xff, a, b) : _mm512_maskz_unpacklo_pd(0xff, a, b));
}

// 128-bit lanes chosen by Imm (2 bits each): the result's lanes 0 and 1 from a, 2 and 3 from b.
template <int Imm>
__attribute__((target("avx512f"))) inline __m512 lanes(__m512 a, __m512 b) {
  return _mm512_maskz_shuffle_f32x4(0xffff, a, b, Imm);
}

// r[n] lane c becomes r[c] lane n. (The zero-masked forms throughout: GCC 12 warns on the plain
// ones' self-initialised "undefined" source.)
__attribute__((target("avx512f"))) inline void transpose16(__m512 r[16]) {
  __m512 x[4][4];  // x[g][q], 128-bit lane l: column 4l + q of rows 4g .. 4g + 3
  for (int g = 0; g < 4; ++g) {
    const __m512 *a = r + 4 * g, *c = r + 4 * g + 2;
    const __m512 t0 = _mm512_maskz_unpacklo_ps(0xffff, a[0], a[1]), t1 = _mm512_maskz_unpackhi_ps(0xffff, a[0], a[1]);
    const __m512 t2 = _mm512_maskz_unpacklo_ps(0xffff, c[0], c[1]), t3 = _mm512_maskz_unpackhi_ps(0xffff, c[0], c[1]);
    x[g][0] = pd(t0, t2, false), x[g][1] = pd(t0, t2, true), x[g][2] = pd(t1, t3, false), x[g][3] = pd(t1, t3, true);
  }
  for (int q = 0; q < 4; ++q) {  // gather lane l of x[0..3][q] into column 4l + q
    const __m512 p0 = lanes<0x44>(x[0][q], x[1][q]), p1 = lanes<0xee>(x[0][q], x[1][q]);
    const __m512 p2 = lanes<0x44>(x[2][q], x[3][q]), p3 = lanes<0xee>(x[2][q], x[3][q]);
    r[q] = lanes<0x88>(p0, p2), r[4 + q] = lanes<0xdd>(p0, p2), r[8 + q] = lanes<0x88>(p1, p3), r[12 + q] = lanes<0xdd>(p1, p3);
  }
}

__attribute__((target("avx512f"))) void unpack_b_avx512(const uint16_t* b, int kf, int nf, int k_len, bool bf16, float* Bp) {
  for (int kb = 0; kb < kf; ++kb) {
    const int height = std::min(16, k_len - kb * 16);
    for (int nb = 0; nb < nf; ++nb) {
      const uint16_t* frac = b + (size_t(kb) * nf + nb) * 256;
      __m512 r[16];
      for (int n = 0; n < 16; ++n) r[n] = widen16(frac + n * 16, bf16);  // all 16 k: the fractal holds them
      transpose16(r);
      float* dst = Bp + size_t(nb) * 16 * k_len + kb * 256;
      for (int k = 0; k < height; ++k) _mm512_storeu_ps(dst + k * 16, r[k]);
    }
  }
}

using WidenFn = void (*)(const uint16_t*, int64_t, float*, int64_t, int, int, bool);
WidenFn best_widen() {
  if (host_cpu::avx512f()) return widen_avx512;
  if (host_cpu::avx2_fma_f16c()) return widen_avx2;
  return widen_plain;
}
const WidenFn widen_rows = best_widen();

}  // namespace

bool gemm_variant_supported(GemmVariant v) {
  switch (v) {
    case GemmVariant::Portable: return true;
    case GemmVariant::Avx2: return host_cpu::avx2_fma_f16c();
    case GemmVariant::Avx512: return host_cpu::avx512f();
  }
  return false;
}

void gemm_f16_products(GemmVariant v, float* C, const float* A, const float* Bp, int M, int N, int K, bool zero_c) {
  CUBEKIT_ASSERT(M % 16 == 0 && N % 16 == 0, "gemm shape {}x{} is not fractal-aligned", M, N);
  CUBEKIT_ASSERT(gemm_variant_supported(v), "this host cannot run gemm variant {}", int(v));
  switch (v) {
    case GemmVariant::Portable: return gemm_plain(C, A, Bp, M, N, K, zero_c);
    case GemmVariant::Avx2: return gemm_avx2(C, A, Bp, M, N, K, zero_c);
    case GemmVariant::Avx512: return gemm_avx512(C, A, Bp, M, N, K, zero_c);
  }
}

void gemm_f16_products(float* C, const float* A, const float* Bp, int M, int N, int K, bool zero_c) {
  static const GemmVariant best = gemm_variant_supported(GemmVariant::Avx512) ? GemmVariant::Avx512
                                  : gemm_variant_supported(GemmVariant::Avx2) ? GemmVariant::Avx2
                                                                              : GemmVariant::Portable;
  gemm_f16_products(best, C, A, Bp, M, N, K, zero_c);
}

void widen_16bit(const uint16_t* src, float* dst, int n, bool bf16) { widen_rows(src, 0, dst, 0, 1, n, bf16); }

// A fractal row (16 values, k fastest) is 16 consecutive k of one row of A.
void unpack_a_zz(const uint16_t* a, int mf, int kf, int k_len, bool bf16, float* A) {
  for (int mb = 0; mb < mf; ++mb)
    for (int kb = 0; kb < kf; ++kb) {
      const uint16_t* frac = a + (size_t(mb) * kf + kb) * 256;
      widen_rows(frac, 16, A + size_t(mb) * 16 * k_len + kb * 16, k_len, 16, std::min(16, k_len - kb * 16), bf16);
    }
}

// A zN fractal stores B's columns; a panel wants its rows. Without AVX-512 the 16-bit values are
// transposed first (a fractal is 512 B, in L1 either way), then a fractal's used rows --
// contiguous in the panel -- are widened in one call.
void unpack_b_zn(const uint16_t* b, int kf, int nf, int k_len, bool bf16, float* Bp) {
  static const bool avx512 = host_cpu::avx512f();
  if (avx512) return unpack_b_avx512(b, kf, nf, k_len, bf16, Bp);
  alignas(64) uint16_t t[256];
  for (int kb = 0; kb < kf; ++kb) {
    int height = std::min(16, k_len - kb * 16);
    for (int nb = 0; nb < nf; ++nb) {
      const uint16_t* frac = b + (size_t(kb) * nf + nb) * 256;
      for (int k = 0; k < height; ++k)
        for (int n = 0; n < 16; ++n) t[k * 16 + n] = frac[n * 16 + k];
      widen_rows(t, 16, Bp + size_t(nb) * 16 * k_len + kb * 256, 16, height, 16, bf16);
    }
  }
}

namespace {
// One loop, compiled three times (the vectoriser widens it as far as each target lets), picked once.
[[gnu::always_inline]] inline void gemm_s8_loops(int32_t* C, const int8_t* A, const int8_t* B, int M, int N, int K) {
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) {
      uint32_t a = uint32_t(int32_t(A[i * K + k]));
      uint32_t* c = reinterpret_cast<uint32_t*>(C + i * N);
      for (int j = 0; j < N; ++j) c[j] += a * uint32_t(int32_t(B[k * N + j]));
    }
}
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512cd"))) void gemm_s8_avx512(int32_t* C, const int8_t* A, const int8_t* B, int M,
                                                                   int N, int K) {
  gemm_s8_loops(C, A, B, M, N, K);
}
__attribute__((target("avx2"))) void gemm_s8_avx2(int32_t* C, const int8_t* A, const int8_t* B, int M, int N, int K) {
  gemm_s8_loops(C, A, B, M, N, K);
}
void gemm_s8_plain(int32_t* C, const int8_t* A, const int8_t* B, int M, int N, int K) { gemm_s8_loops(C, A, B, M, N, K); }
}  // namespace

void gemm_s8(int32_t* C, const int8_t* A, const int8_t* B, int M, int N, int K) {
  static const auto best = host_cpu::avx512_skylake() ? gemm_s8_avx512 : host_cpu::avx2_fma_f16c() ? gemm_s8_avx2 : gemm_s8_plain;
  best(C, A, B, M, N, K);
}

}  // namespace cubekit
