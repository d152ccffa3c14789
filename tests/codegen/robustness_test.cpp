// Issue 10, robustness on every input a user can give: inputs that used to hit an internal error,
// be silently ignored, or be refused although they are valid, each run against an independent
// reference (Halide, or naive loops in the test) and checked clean.
#include "codegen_test_util.h"
#include "emulator/emulator.h"
#include "kernels/check.h"
#include "kernels/matmul.h"
#include "kernels/vector.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>

namespace cubekit {
namespace {

using test::chip;
using test::describe;

void expect_matches_halide(const dsl::Func& f, const std::string& what) {
  kernels::KernelRun run = kernels::compile_and_run(f, chip(), {.seed = 5});
  EXPECT_TRUE(run.sim.report.clean()) << what << "\n" << describe(run);
  ASSERT_TRUE(run.checked) << what;
  EXPECT_TRUE(run.check.pass) << what << ": max abs error " << run.check.max_abs << ", " << run.check.mismatches
                              << " mismatches";
}

// ---- 1. rows whose 32 B blocks are more than a repeat stride (255) apart ----
// An f32 row of 2033..2040 columns is padded to 2048 (256 blocks), the pad blocks zeroed with one
// vdup over all rows; its dst_rep (the row pitch in blocks) was out of range. Every length around
// the limit, and some far past it, through every vector kernel that reduces rows.

std::vector<int64_t> row_lengths() {
  std::vector<int64_t> cols;
  for (int64_t c = 2025; c <= 2064; ++c) cols.push_back(c);
  for (int64_t c : {3000, 4097, 8193}) cols.push_back(c);
  return cols;
}

struct SweepCase {
  std::string kernel;
  DType dtype;
};
void PrintTo(const SweepCase& c, std::ostream* os) { *os << c.kernel << "_" << dtype_name(c.dtype); }

class LongRows : public testing::TestWithParam<SweepCase> {};

TEST_P(LongRows, EveryRowLengthMatchesHalide) {
  for (int64_t cols : row_lengths()) {
    kernels::VectorOptions o;
    o.shape = {3, cols};
    o.dtype = GetParam().dtype;
    // Two tiles of one f32 layernorm row of 8192+ columns (inputs, output, gamma, beta, scratch)
    // do not fit UB: a user error that says to drop double buffering, as here.
    if (GetParam().kernel == "layernorm" && o.dtype == DType::f32 && cols >= 8192) o.double_buffer = false;
    kernels::VectorKernel k = kernels::vector_kernel(GetParam().kernel, o);
    expect_matches_halide(k.out, fmt::format("{} [3, {}] {}", GetParam().kernel, cols, dtype_name(o.dtype)));
  }
}

INSTANTIATE_TEST_SUITE_P(Robustness, LongRows,
                         testing::Values(SweepCase{"softmax", DType::f32}, SweepCase{"softmax", DType::f16},
                                         SweepCase{"layernorm", DType::f32}, SweepCase{"layernorm", DType::f16},
                                         SweepCase{"rmsnorm", DType::f32}, SweepCase{"rmsnorm", DType::f16}),
                         [](const testing::TestParamInfo<SweepCase>& i) {
                           return fmt::format("{}_{}", i.param.kernel, dtype_name(i.param.dtype));
                         });

// A user's own f32 row reductions (sum, max, min, a sum of products) and a per-column input,
// whose padded row is zeroed the same way.
TEST(LongRows, UserRowReductionsMatchHalide) {
  for (int64_t cols : {2033, 2040, 2049, 2056, 3000, 4097}) {
    dsl::Input X("X", DType::f32, {5, cols}), W("W", DType::f32, {cols});
    dsl::Var r("r"), c("c");
    dsl::RDom k(0, cols, "k");
    dsl::Func s("s"), mx("mx"), mn("mn"), dot("dot"), F("F");
    s(r) = dsl::sum(X(r, k));
    mx(r) = dsl::maximum(X(r, k));
    mn(r) = dsl::minimum(X(r, k));
    dot(r) = dsl::sum(X(r, k) * X(r, k));
    F(r, c) = (X(r, c) - mx(r)) * W(c) + s(r) * 0.001f + mn(r) + dot(r) * 0.0001f;
    F.cores({r});
    expect_matches_halide(F, fmt::format("F [5, {}] f32", cols));
  }
}

}  // namespace
}  // namespace cubekit
