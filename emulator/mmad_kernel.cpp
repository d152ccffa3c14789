#include "emulator/mmad_kernel.h"

#include "emulator/error.h"

#include <immintrin.h>

#include <cmath>

namespace cubekit {
namespace {

// Each variant walks 16-column panels of B and keeps an MR x NR tile of C in registers over the
// whole K loop, so each C element sees its products in k order.

__attribute__((target("avx512f"))) void gemm_avx512(float* C, const float* A, const float* B, int M, int N, int K) {
  constexpr int MR = 8;
  int j = 0;
  for (; j + 32 <= N; j += 32) {
    for (int i = 0; i < M; i += MR) {
      __m512 c[MR][2];
      for (int r = 0; r < MR; ++r) {
        c[r][0] = _mm512_loadu_ps(C + (i + r) * N + j);
        c[r][1] = _mm512_loadu_ps(C + (i + r) * N + j + 16);
      }
      for (int k = 0; k < K; ++k) {
        __m512 b0 = _mm512_loadu_ps(B + k * N + j), b1 = _mm512_loadu_ps(B + k * N + j + 16);
        for (int r = 0; r < MR; ++r) {
          __m512 a = _mm512_set1_ps(A[(i + r) * K + k]);
          c[r][0] = _mm512_fmadd_ps(a, b0, c[r][0]);
          c[r][1] = _mm512_fmadd_ps(a, b1, c[r][1]);
        }
      }
      for (int r = 0; r < MR; ++r) {
        _mm512_storeu_ps(C + (i + r) * N + j, c[r][0]);
        _mm512_storeu_ps(C + (i + r) * N + j + 16, c[r][1]);
      }
    }
  }
  for (; j < N; j += 16) {
    for (int i = 0; i < M; i += MR) {
      __m512 c[MR];
      for (int r = 0; r < MR; ++r) c[r] = _mm512_loadu_ps(C + (i + r) * N + j);
      for (int k = 0; k < K; ++k) {
        __m512 b = _mm512_loadu_ps(B + k * N + j);
        for (int r = 0; r < MR; ++r) c[r] = _mm512_fmadd_ps(_mm512_set1_ps(A[(i + r) * K + k]), b, c[r]);
      }
      for (int r = 0; r < MR; ++r) _mm512_storeu_ps(C + (i + r) * N + j, c[r]);
    }
  }
}

__attribute__((target("avx2,fma"))) void gemm_avx2(float* C, const float* A, const float* B, int M, int N, int K) {
  constexpr int MR = 4;
  for (int j = 0; j < N; j += 16) {
    for (int i = 0; i < M; i += MR) {
      __m256 c[MR][2];
      for (int r = 0; r < MR; ++r) {
        c[r][0] = _mm256_loadu_ps(C + (i + r) * N + j);
        c[r][1] = _mm256_loadu_ps(C + (i + r) * N + j + 8);
      }
      for (int k = 0; k < K; ++k) {
        __m256 b0 = _mm256_loadu_ps(B + k * N + j), b1 = _mm256_loadu_ps(B + k * N + j + 8);
        for (int r = 0; r < MR; ++r) {
          __m256 a = _mm256_set1_ps(A[(i + r) * K + k]);
          c[r][0] = _mm256_fmadd_ps(a, b0, c[r][0]);
          c[r][1] = _mm256_fmadd_ps(a, b1, c[r][1]);
        }
      }
      for (int r = 0; r < MR; ++r) {
        _mm256_storeu_ps(C + (i + r) * N + j, c[r][0]);
        _mm256_storeu_ps(C + (i + r) * N + j + 8, c[r][1]);
      }
    }
  }
}

// Portable: fma, as the vector variants compute (for f16 inputs the same as c + a*b).
void gemm_plain(float* C, const float* A, const float* B, int M, int N, int K) {
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) {
      float a = A[i * K + k];
      for (int j = 0; j < N; ++j) C[i * N + j] = std::fma(a, B[k * N + j], C[i * N + j]);
    }
}

}  // namespace

bool gemm_variant_supported(GemmVariant v) {
  __builtin_cpu_init();
  switch (v) {
    case GemmVariant::Portable: return true;
    case GemmVariant::Avx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case GemmVariant::Avx512: return __builtin_cpu_supports("avx512f");
  }
  return false;
}

void gemm_f16_products(GemmVariant v, float* C, const float* A, const float* B, int M, int N, int K) {
  CUBEKIT_ASSERT(M % 16 == 0 && N % 16 == 0, "gemm shape {}x{} is not fractal-aligned", M, N);
  CUBEKIT_ASSERT(gemm_variant_supported(v), "this host cannot run gemm variant {}", int(v));
  switch (v) {
    case GemmVariant::Portable: return gemm_plain(C, A, B, M, N, K);
    case GemmVariant::Avx2: return gemm_avx2(C, A, B, M, N, K);
    case GemmVariant::Avx512: return gemm_avx512(C, A, B, M, N, K);
  }
}

void gemm_f16_products(float* C, const float* A, const float* B, int M, int N, int K) {
  static const GemmVariant best = gemm_variant_supported(GemmVariant::Avx512) ? GemmVariant::Avx512
                                  : gemm_variant_supported(GemmVariant::Avx2) ? GemmVariant::Avx2
                                                                              : GemmVariant::Portable;
  gemm_f16_products(best, C, A, B, M, N, K);
}

__attribute__((target_clones("arch=skylake-avx512", "avx2", "default"))) void gemm_s8(int32_t* C, const int8_t* A,
                                                                          const int8_t* B, int M, int N, int K) {
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) {
      uint32_t a = uint32_t(int32_t(A[i * K + k]));
      uint32_t* c = reinterpret_cast<uint32_t*>(C + i * N);
      for (int j = 0; j < N; ++j) c[j] += a * uint32_t(int32_t(B[k * N + j]));
    }
}

}  // namespace cubekit
