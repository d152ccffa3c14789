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

}  // namespace
}  // namespace cubekit::dsl
