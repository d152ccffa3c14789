// The host reference's IEEE semantics, in both schedules, against numpy-like loops written here:
// maximum/minimum over rows holding -inf, +inf and NaN (numpy.max: NaN if any element is NaN, -inf
// for a row of -inf), elementwise max/min with them (numpy.maximum: NaN if either is NaN), and the
// softmax and norms built on them.
#include "dsl/host.h"
#include "emulator/rounding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <tuple>

namespace cubekit::dsl {
namespace {

double load(const std::vector<uint8_t>& bytes, size_t i, DType t) {
  if (t == DType::f16) {
    uint16_t h;
    std::memcpy(&h, &bytes[2 * i], 2);
    return f16_to_f32(h);
  }
  float f;
  std::memcpy(&f, &bytes[4 * i], 4);
  return f;
}

std::vector<uint8_t> store(const std::vector<double>& values, DType t) {
  std::vector<uint8_t> out(values.size() * size_t(dtype_size(t)));
  for (size_t i = 0; i < values.size(); ++i) {
    if (t == DType::f16) {
      uint16_t h = f64_to_f16(values[i]);
      std::memcpy(&out[2 * i], &h, 2);
    } else {
      float f = float(values[i]);
      std::memcpy(&out[4 * i], &f, 4);
    }
  }
  return out;
}

// Rows of every kind that matters, in turn: all -inf, all +inf, all NaN, NaN first / in the middle /
// last, +inf or -inf among finite values, both infinities, NaN beside -inf, finite only, one finite
// value among -inf. Values are exact in f16.
std::vector<std::vector<double>> special_rows(int rows, int cols) {
  std::mt19937 rng(7);
  std::vector<std::vector<double>> out;
  for (int r = 0; r < rows; ++r) {
    std::vector<double> row(static_cast<size_t>(cols));
    for (double& x : row) x = std::ldexp(double(int(rng() % 4001) - 2000), -7);  // within +-15.6
    size_t mid = size_t(cols / 2);
    switch (r % 11) {
      case 0: std::fill(row.begin(), row.end(), -INFINITY); break;
      case 1: std::fill(row.begin(), row.end(), INFINITY); break;
      case 2: std::fill(row.begin(), row.end(), NAN); break;
      case 3: row.front() = NAN; break;
      case 4: row[mid] = NAN; break;
      case 5: row.back() = NAN; break;
      case 6: row[mid] = INFINITY; break;
      case 7: row[mid] = -INFINITY; break;
      case 8: row.front() = -INFINITY, row.back() = INFINITY; break;
      case 9: std::fill(row.begin(), row.end(), -INFINITY), row[mid] = NAN; break;
      default: if (r % 2) std::fill(row.begin(), row.end(), -INFINITY), row[mid] = -3.5; break;
    }
    out.push_back(row);
  }
  return out;
}

std::vector<double> flat(const std::vector<std::vector<double>>& rows) {
  std::vector<double> out;
  for (const auto& r : rows) out.insert(out.end(), r.begin(), r.end());
  return out;
}

// numpy.max / numpy.min of a row.
double np_extreme(const std::vector<double>& row, bool is_max) {
  double acc = is_max ? -INFINITY : INFINITY;
  for (double x : row) {
    if (std::isnan(x)) return NAN;
    acc = is_max ? std::max(acc, x) : std::min(acc, x);
  }
  return acc;
}

// Same value, NaN matching any NaN, and the same sign of zero.
::testing::AssertionResult same(double got, double want) {
  if (std::isnan(want) ? std::isnan(got) : (got == want && std::signbit(got) == std::signbit(want)))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << got << ", want " << want;
}

// Within `rel` of the wanted value, or the same NaN / infinity.
::testing::AssertionResult close(double got, double want, double rel) {
  if (std::isnan(want) || std::isinf(want)) return same(got, want);
  if (std::fabs(got - want) <= rel * std::fabs(want) + 1e-30) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << got << ", want " << want;
}

class HostIeee : public testing::TestWithParam<std::tuple<DType, HostSchedule>> {
 protected:
  DType dtype() const { return std::get<0>(GetParam()); }
  HostTensor run(const Func& f, const std::map<std::string, const std::vector<uint8_t>*>& in) const {
    return run_on_host(f, in, std::get<1>(GetParam()));
  }
};

// 37 rows: more than a register tile of the fast schedule, with a tail.
constexpr int kRows = 37, kCols = 19;

TEST_P(HostIeee, RowMaximumAndMinimumAsNumpy) {
  auto rows = special_rows(kRows, kCols);
  Input X("X", dtype(), {kRows, kCols});
  Var r("r");
  RDom k(0, kCols, "k");
  Func Mx("Mx"), Mn("Mn");
  Mx(r) = maximum(X(r, k));
  Mn(r) = minimum(X(r, k));
  auto x = store(flat(rows), dtype());
  HostTensor mx = run(Mx, {{"X", &x}}), mn = run(Mn, {{"X", &x}});
  ASSERT_EQ(mx.dtype, dtype());
  for (int i = 0; i < kRows; ++i) {
    EXPECT_TRUE(same(load(mx.data, size_t(i), dtype()), np_extreme(rows[size_t(i)], true))) << "maximum of row " << i;
    EXPECT_TRUE(same(load(mn.data, size_t(i), dtype()), np_extreme(rows[size_t(i)], false))) << "minimum of row " << i;
  }
}

TEST_P(HostIeee, ElementwiseMaxMinAsNumpy) {
  // Every pair of these, both ways round, along 36 columns (vectors and a tail), in 3 rows.
  const std::vector<double> values = {NAN, INFINITY, -INFINITY, 1.5, -2.0, 0.0};
  const int n = int(values.size() * values.size()), rows = 3;
  std::vector<double> a, b;
  for (int r = 0; r < rows; ++r)
    for (int i = 0; i < n; ++i) a.push_back(values[size_t(i) / values.size()]), b.push_back(values[size_t(i) % values.size()]);
  Input A("A", dtype(), {rows, n}), B("B", dtype(), {rows, n});
  Var r("r"), c("c");
  Func Max("Max"), Min("Min"), Relu("Relu");
  Max(r, c) = max(A(r, c), B(r, c));
  Min(r, c) = min(A(r, c), B(r, c));
  Relu(r, c) = max(A(r, c), 0);
  auto abytes = store(a, dtype()), bbytes = store(b, dtype());
  std::map<std::string, const std::vector<uint8_t>*> in{{"A", &abytes}, {"B", &bbytes}};
  HostTensor mx = run(Max, in), mn = run(Min, in), relu = run(Relu, in);
  for (size_t i = 0; i < a.size(); ++i) {
    bool nan = std::isnan(a[i]) || std::isnan(b[i]);
    // numpy.maximum(-0, 0) may return either zero; these values have no -0
    EXPECT_TRUE(same(load(mx.data, i, dtype()), nan ? NAN : std::max(a[i], b[i]))) << "max(" << a[i] << ", " << b[i] << ")";
    EXPECT_TRUE(same(load(mn.data, i, dtype()), nan ? NAN : std::min(a[i], b[i]))) << "min(" << a[i] << ", " << b[i] << ")";
    EXPECT_TRUE(same(load(relu.data, i, dtype()), std::isnan(a[i]) ? NAN : std::max(a[i], 0.0))) << "max(" << a[i] << ", 0)";
  }
}

// Rounds to the tensor's type, as the Func's final cast does.
double round_to(double x, DType t) { return t == DType::f16 ? f16_to_f32(f64_to_f16(x)) : double(float(x)); }

TEST_P(HostIeee, SoftmaxAsNumpy) {
  // As kernels/vector.cpp defines it: statistics in f32, the result in the input type.
  auto rows = special_rows(kRows, kCols);
  Input X("X", dtype(), {kRows, kCols});
  Var r("r"), c("c");
  RDom k(0, kCols, "k");
  Func mx("row_max"), e("exp_shifted"), s("row_sum"), out("softmax");
  mx(r) = cast(DType::f32, maximum(X(r, k)));
  e(r, c) = exp(cast(DType::f32, X(r, c)) - mx(r));
  s(r) = sum(e(r, k));
  out(r, c) = cast(dtype(), e(r, c) / s(r));
  auto x = store(flat(rows), dtype());
  HostTensor y = run(out, {{"X", &x}});
  for (int i = 0; i < kRows; ++i) {
    const auto& row = rows[size_t(i)];
    float m = float(np_extreme(row, true)), total = 0;
    std::vector<float> ex;
    for (double v : row) total += ex.emplace_back(std::exp(float(v) - m));
    for (int j = 0; j < kCols; ++j) {
      double want = round_to(ex[size_t(j)] / total, dtype());
      // exp may differ from std::exp in the last bit
      EXPECT_TRUE(close(load(y.data, size_t(i * kCols + j), dtype()), want, dtype() == DType::f16 ? 1e-3 : 1e-5))
          << "row " << i << " (kind " << i % 11 << "), column " << j;
    }
  }
}

TEST_P(HostIeee, NormsAsNumpy) {
  auto rows = special_rows(kRows, kCols);
  Input X("X", dtype(), {kRows, kCols});
  Var r("r"), c("c");
  RDom k(0, kCols, "k");
  const float n = float(kCols), eps = 1e-5f;
  Func xf("x_f32"), mean("mean"), dev("deviation"), var("variance"), ln("layernorm"), ms("mean_square"), rms("rmsnorm");
  xf(r, c) = cast(DType::f32, X(r, c));
  mean(r) = sum(xf(r, k)) / n;
  dev(r, c) = xf(r, c) - mean(r);
  var(r) = sum(dev(r, k) * dev(r, k)) / n;
  ln(r, c) = cast(dtype(), dev(r, c) * (1.0f / sqrt(var(r) + eps)));
  ms(r) = sum(xf(r, k) * xf(r, k)) / n;
  rms(r, c) = cast(dtype(), xf(r, c) * (1.0f / sqrt(ms(r) + eps)));
  auto x = store(flat(rows), dtype());
  HostTensor got_ln = run(ln, {{"X", &x}}), got_rms = run(rms, {{"X", &x}});
  for (int i = 0; i < kRows; ++i) {
    const auto& row = rows[size_t(i)];
    float total = 0, squares = 0, deviations = 0;
    for (double v : row) total += float(v), squares += float(v) * float(v);
    float mu = total / n;
    for (double v : row) deviations += (float(v) - mu) * (float(v) - mu);
    float rstd = 1.0f / std::sqrt(deviations / n + eps), rrms = 1.0f / std::sqrt(squares / n + eps);
    for (int j = 0; j < kCols; ++j) {
      float v = float(row[size_t(j)]);
      size_t at = size_t(i * kCols + j);
      double rel = dtype() == DType::f16 ? 1e-3 : 1e-5;
      EXPECT_TRUE(close(load(got_ln.data, at, dtype()), round_to((v - mu) * rstd, dtype()), rel)) << "layernorm row " << i << ", column " << j;
      EXPECT_TRUE(close(load(got_rms.data, at, dtype()), round_to(v * rrms, dtype()), rel)) << "rmsnorm row " << i << ", column " << j;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Host, HostIeee,
                         testing::Combine(testing::Values(DType::f16, DType::f32),
                                          testing::Values(HostSchedule::Fast, HostSchedule::Plain)),
                         [](const auto& info) {
                           return std::string(dtype_name(std::get<0>(info.param))) +
                                  (std::get<1>(info.param) == HostSchedule::Fast ? "_fast" : "_plain");
                         });

}  // namespace
}  // namespace cubekit::dsl
