// The DSL and its Halide host backend against naive loops written here.
#include "dsl/host.h"
#include "emulator/rounding.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

namespace cubekit::dsl {
namespace {

std::vector<uint8_t> random_f16(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-1, 1);
  std::vector<uint8_t> out(n * 2);
  for (size_t i = 0; i < n; ++i) {
    uint16_t h = f64_to_f16(d(rng));
    std::memcpy(&out[2 * i], &h, 2);
  }
  return out;
}
float f16_at(const std::vector<uint8_t>& v, size_t i) {
  uint16_t h;
  std::memcpy(&h, &v[2 * i], 2);
  return f16_to_f32(h);
}

TEST(Host, MatmulSumsInOrder) {
  const int M = 7, N = 9, K = 33;
  Input A("A", DType::f16, {M, K}), B("B", DType::f16, {K, N});
  Var m("m"), n("n");
  RDom k(0, K, "k");
  Func C("C");
  C(m, n) = sum(cast(DType::f32, A(m, k)) * cast(DType::f32, B(k, n)));
  EXPECT_EQ(C.shape(), (std::vector<int64_t>{M, N}));
  auto a = random_f16(M * K, 1), b = random_f16(K * N, 2);
  HostTensor c = run_on_host(C, {{"A", &a}, {"B", &b}});
  ASSERT_EQ(c.data.size(), size_t(M * N * 4));
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float want = 0;
      for (int kk = 0; kk < K; ++kk) want = want + f16_at(a, i * K + kk) * f16_at(b, kk * N + j);
      float got;
      std::memcpy(&got, &c.data[size_t(i * N + j) * 4], 4);
      EXPECT_EQ(got, want) << i << "," << j;
    }
}

TEST(Host, ElementwiseInF16) {
  Input X("X", DType::f16, {4, 5});
  Var i("i"), j("j");
  Func Y("Y");
  Y(i, j) = max(X(i, j) * 2 + 1, 0);
  EXPECT_EQ(Y.type().dtype, DType::f16);
  auto x = random_f16(20, 3);
  HostTensor y = run_on_host(Y, {{"X", &x}});
  for (int e = 0; e < 20; ++e) {
    float want = std::max(f16_to_f32(f64_to_f16(f16_to_f32(f64_to_f16(f16_at(x, e) * 2.0)) + 1.0)), 0.0f);
    EXPECT_EQ(f16_at(y.data, e), want) << e;
  }
}

// Scores under a causal mask and a sliding window of 100 (attention's S, 4 heads of 200 x 200):
// both schedules against naive loops. Computed at its owner's tiles, the sum's region was trimmed
// by the two selects into guarded rows and vectors that LLVM took 39 s to compile.
TEST(Host, BandedContractionInEverySchedule) {
  const int H = 4, S = 200, D = 64, W = 100;
  Input Q("Q", DType::f16, {H, S, D}), K("K", DType::f16, {H, S, D});
  Var h("h"), i("i"), j("j");
  RDom r(0, D, "r");
  Func P("P");
  Expr dot = sum(cast(DType::f32, Q(h, i, r)) * cast(DType::f32, K(h, j, r)));
  P(h, i, j) = select(Expr(j) <= Expr(i), select(Expr(i) - Expr(j) < W, dot * 0.125, Expr(-1e30)), Expr(-1e30));
  auto q = random_f16(H * S * D, 4), k = random_f16(H * S * D, 5);
  for (HostSchedule schedule : {HostSchedule::Fast, HostSchedule::Plain}) {
    HostTensor p = run_on_host(P, {{"Q", &q}, {"K", &k}}, schedule);
    ASSERT_EQ(p.data.size(), size_t(H * S * S * 4));
    int wrong = 0;
    for (int hh = 0; hh < H; ++hh)
      for (int ii = 0; ii < S; ++ii)
        for (int jj = 0; jj < S; ++jj) {
          float want = -1e30f;
          if (jj <= ii && ii - jj < W) {
            float acc = 0;
            for (int d = 0; d < D; ++d)
              acc = acc + f16_at(q, size_t((hh * S + ii) * D + d)) * f16_at(k, size_t((hh * S + jj) * D + d));
            want = acc * 0.125f;
          }
          float got;
          std::memcpy(&got, &p.data[size_t((hh * S + ii) * S + jj) * 4], 4);
          wrong += got != want;
        }
    EXPECT_EQ(wrong, 0) << (schedule == HostSchedule::Fast ? "fast" : "plain");
  }
}

}  // namespace
}  // namespace cubekit::dsl
