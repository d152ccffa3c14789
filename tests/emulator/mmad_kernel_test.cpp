// Every instruction-set variant of the mmad kernel gives the same bits as a naive loop that
// accumulates in f32 in increasing k -- so results do not depend on the host's CPU.
#include "emulator/mmad_kernel.h"
#include "emulator/rounding.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

namespace cubekit {
namespace {

TEST(MmadKernel, EveryVariantMatchesTheOrderedLoop) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> d(-8, 8);
  for (auto [M, N, K] : {std::tuple{16, 16, 1}, {32, 48, 17}, {64, 16, 128}, {48, 80, 33}}) {
    std::vector<float> A(size_t(M) * K), B(size_t(K) * N), C0(size_t(M) * N);
    for (float& x : A) x = f16_to_f32(f64_to_f16(d(rng)));  // f16 values: products exact in f32
    for (float& x : B) x = f16_to_f32(f64_to_f16(d(rng)));
    for (float& x : C0) x = float(d(rng));
    std::vector<float> want = C0;
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j)
        for (int k = 0; k < K; ++k) want[i * N + j] = want[i * N + j] + A[i * K + k] * B[k * N + j];
    for (GemmVariant v : {GemmVariant::Portable, GemmVariant::Avx2, GemmVariant::Avx512}) {
      if (!gemm_variant_supported(v)) continue;
      std::vector<float> C = C0;
      gemm_f16_products(v, C.data(), A.data(), B.data(), M, N, K);
      EXPECT_EQ(std::memcmp(C.data(), want.data(), C.size() * 4), 0) << "variant " << int(v) << " at " << M << "x" << N << "x" << K;
    }
  }
}

}  // namespace
}  // namespace cubekit
