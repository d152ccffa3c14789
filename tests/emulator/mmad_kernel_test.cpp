// The mmad kernel and its unpacking, against naive loops written here: every instruction-set variant
// gives the same bits as a loop that accumulates in f32 in increasing k -- so results do not depend
// on the host's CPU -- and the fractal unpacking puts every element where the layouts say.
#include "emulator/mmad_kernel.h"
#include "emulator/rounding.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace cubekit {
namespace {

// Panel layout (16 columns a panel, rows of 16) <-> row-major, for a rows x cols matrix.
std::vector<float> to_panels(const std::vector<float>& x, int rows, int cols) {
  std::vector<float> p(x.size());
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) p[size_t(j / 16) * rows * 16 + i * 16 + j % 16] = x[size_t(i) * cols + j];
  return p;
}

TEST(MmadKernel, EveryVariantMatchesTheOrderedLoop) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> d(-8, 8);
  for (auto [M, N, K] : {std::tuple{16, 16, 1}, {32, 48, 17}, {64, 16, 128}, {48, 80, 33}, {32, 96, 16}}) {
    std::vector<float> A(size_t(M) * K), B(size_t(K) * N), C0(size_t(M) * N);
    for (float& x : A) x = f16_to_f32(f64_to_f16(d(rng)));  // f16 values: products exact in f32
    for (float& x : B) x = f16_to_f32(f64_to_f16(d(rng)));
    for (float& x : C0) x = float(d(rng));
    for (bool zero_c : {false, true}) {
      std::vector<float> want(C0.size());
      for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
          float c = zero_c ? 0.0f : C0[size_t(i) * N + j];
          for (int k = 0; k < K; ++k) c = c + A[size_t(i) * K + k] * B[size_t(k) * N + j];
          want[size_t(i) * N + j] = c;
        }
      std::vector<float> want_panels = to_panels(want, M, N), Bp = to_panels(B, K, N);
      for (GemmVariant v : {GemmVariant::Portable, GemmVariant::Avx2, GemmVariant::Avx512}) {
        if (!gemm_variant_supported(v)) continue;
        std::vector<float> C = to_panels(C0, M, N);
        if (zero_c) std::fill(C.begin(), C.end(), std::nanf(""));  // must not be read
        gemm_f16_products(v, C.data(), A.data(), Bp.data(), M, N, K, zero_c);
        EXPECT_EQ(std::memcmp(C.data(), want_panels.data(), C.size() * 4), 0)
            << "variant " << int(v) << " at " << M << "x" << N << "x" << K << (zero_c ? " from zero" : "");
      }
    }
  }
}

// The widest conversion the host has gives the table's bits for every f16 (NaNs quiet, payload
// kept) and the shift's for every bf16, at every length (vector body and scalar tail).
TEST(MmadKernel, WideningMatchesTheScalarConversionsForEveryValue) {
  std::vector<uint16_t> all(65536 + 7);
  for (size_t i = 0; i < all.size(); ++i) all[i] = uint16_t(i * 40503u);
  for (bool bf16 : {false, true})
    for (int n : {int(all.size()), 1, 15, 17, 24}) {
      std::vector<float> got(static_cast<size_t>(n));
      widen_16bit(all.data(), got.data(), n, bf16);
      for (int i = 0; i < n; ++i) {
        float want = bf16 ? bf16_to_f32(all[size_t(i)]) : f16_to_f32(all[size_t(i)]);
        ASSERT_EQ(std::bit_cast<uint32_t>(got[size_t(i)]), std::bit_cast<uint32_t>(want))
            << (bf16 ? "bf16 " : "f16 ") << std::hex << all[size_t(i)] << " of a run of " << std::dec << n;
      }
    }
}

// Element (m, k) of A sits in fractal (m/16, k/16) at (m%16)*16 + k%16 (zZ); element (k, n) of B in
// fractal (k/16, n/16) at (n%16)*16 + k%16 (zN). Values past k_len in the last fractal are not read.
TEST(MmadKernel, UnpackingPutsEveryElementWhereTheLayoutsSay) {
  for (int k_len : {16, 7, 40, 64})
    for (bool bf16 : {false, true}) {
      int mf = 3, nf = 5, kf = (k_len + 15) / 16;
      std::vector<uint16_t> a(size_t(mf) * kf * 256), b(size_t(kf) * nf * 256);
      for (size_t i = 0; i < a.size(); ++i) a[i] = uint16_t(0x3c00 + i % 1021);
      for (size_t i = 0; i < b.size(); ++i) b[i] = uint16_t(0x4000 + i % 1019);
      std::vector<float> A(size_t(mf) * 16 * k_len), Bp(size_t(k_len) * nf * 16);
      unpack_a_zz(a.data(), mf, kf, k_len, bf16, A.data());
      unpack_b_zn(b.data(), kf, nf, k_len, bf16, Bp.data());
      auto cvt = [&](uint16_t h) { return bf16 ? bf16_to_f32(h) : f16_to_f32(h); };
      for (int m = 0; m < mf * 16; ++m)
        for (int k = 0; k < k_len; ++k)
          ASSERT_EQ(A[size_t(m) * k_len + k], cvt(a[(size_t(m / 16) * kf + k / 16) * 256 + (m % 16) * 16 + k % 16]))
              << "A(" << m << ", " << k << ") with K " << k_len;
      for (int k = 0; k < k_len; ++k)
        for (int n = 0; n < nf * 16; ++n)
          ASSERT_EQ(Bp[size_t(n / 16) * k_len * 16 + k * 16 + n % 16],
                    cvt(b[(size_t(k / 16) * nf + n / 16) * 256 + (n % 16) * 16 + k % 16]))
              << "B(" << k << ", " << n << ") with K " << k_len;
    }
}

}  // namespace
}  // namespace cubekit
