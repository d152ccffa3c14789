// The emulator against the host reference, and both against numpy's rules, on rows holding -inf,
// +inf and NaN: the softmax kernel (a row with NaN, a row of -inf or a row with +inf is NaN
// throughout, as numpy computes it), and a row maximum and minimum of one's own.
#include "codegen_test_util.h"
#include "emulator/isa_helpers.h"
#include "emulator/rounding.h"
#include "kernels/matmul.h"
#include "kernels/vector.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

namespace cubekit {
namespace {

constexpr int64_t kRows = 24, kCols = 300;

// Row r % 8: all -inf, +inf in the middle, NaN in the middle, NaN last, -inf first, all +inf,
// finite, one finite value among -inf. Finite values within +-8.
double special(int64_t r, int64_t c, std::mt19937& rng) {
  double finite = std::ldexp(double(int(rng() % 2049) - 1024), -7);
  switch (r % 8) {
    case 0: return -INFINITY;
    case 1: return c == kCols / 2 ? INFINITY : finite;
    case 2: return c == kCols / 2 ? NAN : finite;
    case 3: return c == kCols - 1 ? NAN : finite;
    case 4: return c == 0 ? -INFINITY : finite;
    case 5: return INFINITY;
    case 6: return finite;
    default: return c == 7 ? -2.5 : -INFINITY;
  }
}

void fill_special(std::vector<uint8_t>& x, DType dt) {
  std::mt19937 rng(11);
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t c = 0; c < kCols; ++c) {
      double v = special(r, c, rng);
      size_t at = size_t(r * kCols + c);
      if (dt == DType::f16) {
        uint16_t h = f64_to_f16(v);
        std::memcpy(&x[at * 2], &h, 2);
      } else {
        float f = float(v);
        std::memcpy(&x[at * 4], &f, 4);
      }
    }
}

double element(const std::vector<uint8_t>& bytes, size_t i, DType dt) { return isa::load_as_double(&bytes[i * size_t(dtype_size(dt))], dt); }

class SpecialRows : public testing::TestWithParam<DType> {};

TEST_P(SpecialRows, SoftmaxIsNanWhereNumpySaysAndMatchesTheReference) {
  DType dt = GetParam();
  kernels::VectorOptions o;
  o.shape = {kRows, kCols}, o.dtype = dt;
  kernels::VectorKernel k = kernels::vector_kernel("softmax", o);
  kernels::RunSettings s;
  s.inputs = [dt](GlobalMemory& gm) { fill_special(gm.bytes("X"), dt); };
  kernels::KernelRun run = kernels::compile_and_run(k.out, test::chip(), s);
  EXPECT_TRUE(run.sim.report.clean()) << test::describe(run);
  EXPECT_TRUE(run.check.pass) << "max abs error " << run.check.max_abs << ", " << run.check.mismatches << " mismatches";
  const auto& y = run.gm.bytes(k.out.name());
  for (int64_t r = 0; r < kRows; ++r) {
    bool nan_row = r % 8 == 0 || r % 8 == 1 || r % 8 == 2 || r % 8 == 3 || r % 8 == 5;  // numpy: max is NaN or inf
    double total = 0;
    for (int64_t c = 0; c < kCols; ++c) {
      double v = element(y, size_t(r * kCols + c), dt);
      ASSERT_EQ(std::isnan(v), nan_row) << "row " << r << " column " << c << ": " << v;
      if (!nan_row) total += v;
    }
    if (!nan_row) {
      EXPECT_NEAR(total, 1.0, dt == DType::f16 ? 2e-2 : 1e-4) << "row " << r;
    }
  }
}

// The vector path computes per-row results as intermediates: here max(x, the row's maximum), which
// numpy makes the row's maximum in every column (min likewise).
TEST_P(SpecialRows, RowMaximumAndMinimumAreNumpys) {
  DType dt = GetParam();
  dsl::Input X("X", dt, {kRows, kCols});
  dsl::Var r("r"), c("c");
  dsl::RDom k(0, kCols, "k");
  for (bool is_max : {true, false}) {
    dsl::Func extreme(is_max ? "row_max" : "row_min"), F(is_max ? "max_by_row" : "min_by_row");
    extreme(r) = is_max ? dsl::maximum(X(r, k)) : dsl::minimum(X(r, k));
    F(r, c) = is_max ? dsl::max(X(r, c), extreme(r)) : dsl::min(X(r, c), extreme(r));
    F.schedule() = kernels::default_schedule(F, test::chip());
    kernels::RunSettings s;
    s.inputs = [dt](GlobalMemory& gm) { fill_special(gm.bytes("X"), dt); };
    kernels::KernelRun run = kernels::compile_and_run(F, test::chip(), s);
    EXPECT_TRUE(run.sim.report.clean()) << test::describe(run);
    EXPECT_TRUE(run.check.pass && run.check.max_abs == 0) << F.name() << ": the emulator and the reference differ by " << run.check.max_abs;
    std::vector<uint8_t> x(size_t(kRows * kCols * dtype_size(dt)));
    fill_special(x, dt);
    const auto& y = run.gm.bytes(F.name());
    for (int64_t row = 0; row < kRows; ++row) {
      double want = is_max ? -INFINITY : INFINITY;
      for (int64_t col = 0; col < kCols; ++col) {
        double v = element(x, size_t(row * kCols + col), dt);
        want = std::isnan(v) || std::isnan(want) ? NAN : is_max ? std::max(want, v) : std::min(want, v);
      }
      for (int64_t col = 0; col < kCols; ++col) {
        double got = element(y, size_t(row * kCols + col), dt);
        if (std::isnan(want)) ASSERT_TRUE(std::isnan(got)) << F.name() << " row " << row << " column " << col << ": " << got;
        else ASSERT_EQ(got, want) << F.name() << " row " << row << " column " << col;
      }
    }
  }
}

// A float cast to an integer out of its range saturates (NaN to 0) on the vector unit (vconv,
// docs/isa.md), and the host reference agrees: it wrapped (cast(s8, 230) was -26), so every
// quantising cast with clipping was reported as a mismatch (found by a C++ user probe).
TEST_P(SpecialRows, AFloatCastToAnIntegerSaturatesOnBoth) {
  const DType dt = GetParam();
  for (DType to : {DType::s8, DType::u8, DType::s32}) {
    dsl::Input X("X", dt, {kRows, kCols});
    dsl::Var r("r"), c("c");
    dsl::Func F("F");
    const double gain = to == DType::s32 ? 1e10 : 40.0;  // finite values within +-8: past s8's and u8's ranges
    // The vector unit converts to s8 and u8 from f16 only: the product narrows to f16 first.
    const dsl::Expr scaled = dsl::cast(DType::f32, X(r, c)) * gain;
    F(r, c) = dsl::cast(to, to == DType::s32 ? scaled : dsl::cast(DType::f16, scaled));
    F.schedule() = kernels::default_schedule(F, test::chip());
    kernels::RunSettings s;
    s.inputs = [dt](GlobalMemory& gm) { fill_special(gm.bytes("X"), dt); };
    kernels::KernelRun run = kernels::compile_and_run(F, test::chip(), s);
    EXPECT_TRUE(run.sim.report.clean()) << test::describe(run);
    EXPECT_TRUE(run.check.pass) << dtype_name(to) << ": " << run.check.mismatches << " mismatches";
    std::vector<uint8_t> x(size_t(kRows * kCols * dtype_size(dt)));
    fill_special(x, dt);
    const double lo = to == DType::s8 ? -128 : to == DType::u8 ? 0 : -2147483648.0;
    const double hi = to == DType::s8 ? 127 : to == DType::u8 ? 255 : 2147483647.0;
    for (size_t i = 0; i < size_t(kRows * kCols); ++i) {
      const float product = float(element(x, i, dt)) * float(gain);
      const double v = to == DType::s32 ? double(product) : double(f16_to_f32(f64_to_f16(product)));
      const double want = std::isnan(v) ? 0 : std::clamp(std::trunc(v), lo, hi);
      ASSERT_EQ(element(run.gm.bytes("F"), i, to), want) << dtype_name(to) << " element " << i << " of " << v;
    }
  }
}

// An f16 row sum in the reference accumulates in f32 and rounds once: summed in f16 in order, a
// row of 4096 values in [0, 1) stagnated once its sum passed 2048 (2048 + 0.7 is 2048 in f16), 29
// off, and the check reported the vector unit's sum (within an ulp) as a mismatch (a C++ user probe).
TEST(HostReference, AnF16RowSumIsTheSumRoundedOnce) {
  constexpr int64_t rows = 8, cols = 4096;
  dsl::Input X("X", DType::f16, {rows, cols});
  dsl::Var r("r");
  dsl::RDom k(0, cols, "k");
  dsl::Func F("row_sum");
  F(r) = dsl::sum(X(r, k));
  F.schedule() = kernels::default_schedule(F, test::chip());
  std::vector<uint8_t> x(size_t(rows * cols * 2));
  std::mt19937 rng(5);
  for (size_t i = 0; i < size_t(rows * cols); ++i) {
    const uint16_t h = f64_to_f16(double(rng() % 1024) / 1024);
    std::memcpy(&x[i * 2], &h, 2);
  }
  kernels::RunSettings s;
  s.inputs = [&x](GlobalMemory& gm) { gm.bytes("X") = x; };
  kernels::KernelRun run = kernels::compile_and_run(F, test::chip(), s);
  EXPECT_TRUE(run.sim.report.clean()) << test::describe(run);
  EXPECT_TRUE(run.check.pass) << run.check.mismatches << " mismatches, the largest " << run.check.max_abs;
  const dsl::HostTensor want = dsl::run_on_host(F, {{"X", &x}});
  for (int64_t row = 0; row < rows; ++row) {
    double exact = 0;
    for (int64_t col = 0; col < cols; ++col) exact += element(x, size_t(row * cols + col), DType::f16);
    // Rounded once: within half an ulp of the exact sum (2048..4096: ulp 2).
    EXPECT_LE(std::abs(element(want.data, size_t(row), DType::f16) - exact), 1.0) << "reference, row " << row;
    EXPECT_LE(std::abs(element(run.gm.bytes(F.name()), size_t(row), DType::f16) - exact), 2.0) << "emulator, row " << row;
  }
}

INSTANTIATE_TEST_SUITE_P(Host, SpecialRows, testing::Values(DType::f16, DType::f32),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

}  // namespace
}  // namespace cubekit
