// Issue 10, robustness on every input a user can give: inputs that used to hit an internal error,
// be silently ignored, or be refused although they are valid, each run against an independent
// reference (Halide, or naive loops in the test) and checked clean.
#include "codegen_test_util.h"
#include "emulator/emulator.h"
#include "kernels/check.h"
#include "kernels/matmul.h"
#include "kernels/vector.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <tuple>

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
// vdup over all rows; its dst_rep (the row pitch in blocks) was out of range. Around the limit of
// the row's own dtype (254..258 blocks), and some lengths far past it, through every vector
// kernel that reduces rows: every f32 length (the bug's), and for f16 (16 to a block) each block
// count's first and last length and one between.

std::vector<int64_t> row_lengths(DType t) {
  const int64_t per = 32 / dtype_size(t);
  std::vector<int64_t> cols;
  for (int64_t blocks = 254; blocks <= 258; ++blocks) {
    const int64_t first = (blocks - 1) * per + 1, last = blocks * per;
    if (per == 8) {
      for (int64_t c = first; c <= last; ++c) cols.push_back(c);
    } else {
      cols.insert(cols.end(), {first, first + per / 2, last});
    }
  }
  for (int64_t c : {3000, 8193}) cols.push_back(c);
  return cols;
}

struct SweepCase {
  std::string kernel;
  DType dtype;
};
void PrintTo(const SweepCase& c, std::ostream* os) { *os << c.kernel << "_" << dtype_name(c.dtype); }

class LongRows : public testing::TestWithParam<SweepCase> {};

TEST_P(LongRows, EveryRowLengthMatchesHalide) {
  for (int64_t cols : row_lengths(GetParam().dtype)) {
    kernels::VectorOptions o;
    o.shape = {3, cols};
    o.dtype = GetParam().dtype;
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

// ---- 2. the matmul epilogue's steps, in the order written ----

float f16_value(const std::vector<uint8_t>& t, size_t i) {
  _Float16 h;
  std::memcpy(&h, t.data() + i * 2, 2);
  return float(h);
}

// D = the steps applied in order to A x B (f32 sums in k order), written from the definitions:
// bias adds bias[n], scale multiplies, relu is max(x, 0), gelu is x (1 + tanh(0.79788456 (x + 0.044715 x^3))) / 2.
std::vector<uint8_t> naive_epilogue(const kernels::MatmulOptions& o, const std::vector<uint8_t>& a,
                                    const std::vector<uint8_t>& b, const std::vector<uint8_t>& bias) {
  std::vector<uint8_t> d(size_t(o.m * o.n * 4));
  for (int64_t i = 0; i < o.m; ++i)
    for (int64_t j = 0; j < o.n; ++j) {
      float acc = 0;
      for (int64_t k = 0; k < o.k; ++k) acc += f16_value(a, size_t(i * o.k + k)) * f16_value(b, size_t(k * o.n + j));
      double x = acc;
      for (const std::string& step : o.epilogue) {
        if (step == "bias") {
          float bj;
          std::memcpy(&bj, bias.data() + j * 4, 4);
          x += bj;
        }
        if (step == "scale") x *= o.scale;
        if (step == "relu") x = std::max(x, 0.0);
        if (step == "gelu") x = 0.5 * x * (1 + std::tanh(0.7978845608 * (x + 0.044715 * x * x * x)));
      }
      float out = float(x);
      std::memcpy(d.data() + (i * o.n + j) * 4, &out, 4);
    }
  return d;
}

std::vector<std::vector<std::string>> orders(std::vector<std::string> steps) {
  std::sort(steps.begin(), steps.end());
  std::vector<std::vector<std::string>> all;
  do all.push_back(steps);
  while (std::next_permutation(steps.begin(), steps.end()));
  return all;
}

TEST(EpilogueOrder, EveryOrderMatchesNaiveLoops) {
  std::vector<std::vector<std::string>> lists;
  for (const auto& steps : std::vector<std::vector<std::string>>{
           {"bias", "relu", "scale"}, {"bias", "gelu"}, {"bias", "bias"}, {"bias", "bias", "relu"}, {"scale", "scale", "bias"}})
    for (auto& l : orders(steps)) lists.push_back(l);
  for (const auto& list : lists) {
    kernels::MatmulOptions o;
    o.m = 70, o.n = 90, o.k = 64, o.scale = -0.75, o.epilogue = list;
    std::string what = fmt::format("epilogue {}", fmt::join(list, ","));
    kernels::Matmul mm = kernels::matmul(o, chip());
    kernels::KernelRun run = kernels::compile_and_run(mm.out, chip(), {.seed = 9, .reference = false});
    EXPECT_TRUE(run.sim.report.clean()) << what << "\n" << describe(run);
    std::vector<uint8_t> want = naive_epilogue(o, run.gm.bytes("A"), run.gm.bytes("B"), run.gm.bytes("bias"));
    kernels::Comparison c = kernels::compare(run.gm.bytes("D"), want, DType::f32, 1e-3);
    EXPECT_TRUE(c.pass) << what << ": max abs error " << c.max_abs << ", " << c.mismatches << " mismatches";
  }
}

// The orders give different results on these inputs, so the test above tells them apart.
TEST(EpilogueOrder, OrdersDifferOnTheTestInputs) {
  kernels::MatmulOptions o;
  o.m = 70, o.n = 90, o.k = 64, o.epilogue = {"bias", "relu"};
  kernels::Matmul mm = kernels::matmul(o, chip());
  kernels::KernelRun run = kernels::compile_and_run(mm.out, chip(), {.seed = 9, .reference = false});
  const auto &a = run.gm.bytes("A"), &b = run.gm.bytes("B"), &bias = run.gm.bytes("bias");
  std::vector<uint8_t> bias_relu = naive_epilogue(o, a, b, bias);
  o.epilogue = {"relu", "bias"};
  EXPECT_GT(kernels::compare(bias_relu, naive_epilogue(o, a, b, bias), DType::f32, 1e-3).mismatches, 0);
  o.epilogue = {"bias"};
  std::vector<uint8_t> once = naive_epilogue(o, a, b, bias);
  o.epilogue = {"bias", "bias"};
  EXPECT_GT(kernels::compare(once, naive_epilogue(o, a, b, bias), DType::f32, 1e-3).mismatches, 0);
}

// ---- 6. a schedule written for a big shape, run on small ones ----

// README's schedule: 128 x 128 tiles, k 256 per L1 fill and 64 per L0 fill, tiles over the
// cores (in groups of `group` m tiles).
dsl::Func readme_matmul(int64_t M, int64_t N, int64_t K, int64_t group = 1) {
  using namespace dsl;  // NOLINT
  Input A("A", DType::f16, {M, K}), B("B", DType::f16, {K, N});
  Var m("m"), n("n"), mo("mo"), mi("mi"), no("no"), ni("ni");
  RDom k(0, K, "k");
  RVar ko("ko"), ki("ki"), kio("kio"), kii("kii");
  Func C("C");
  C(m, n) = sum(cast(DType::f32, A(m, k)) * cast(DType::f32, B(k, n)));
  C.split(m, mo, mi, 128).split(n, no, ni, 128).split(k, ko, ki, 256).split(ki, kio, kii, 64)
      .reorder({kii, ni, mi, kio, ko, no, mo}).cores({mo, no}, group)
      .stage(A, Level::L1, ko).stage(B, Level::L1, ko).stage(A, Level::L0A, kio).stage(B, Level::L0B, kio)
      .cube(mi, ni, kii).double_buffer();
  return C;
}

TEST(BigScheduleSmallShape, SplitsBeyondTheExtentMatchHalide) {
  for (int64_t K : {1, 16, 40, 64, 100, 255, 300})
    for (auto [M, N] : std::vector<std::pair<int64_t, int64_t>>{{16, 16}, {40, 50}, {100, 200}, {130, 70}})
      expect_matches_halide(readme_matmul(M, N, K), fmt::format("README schedule on {}x{}x{}", M, N, K));
}

// Groups that do not divide the m tiles: a last, smaller group (and one group when G exceeds them).
TEST(BigScheduleSmallShape, CoreGroupsThatDoNotDivideMatchHalide) {
  for (auto [M, N, G] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
           {384, 256, 2}, {640, 384, 3}, {300, 200, 8}, {1000, 1000, 3}, {2000, 600, 7}, {1000, 1000, 5}})
    expect_matches_halide(readme_matmul(M, N, 128, G), fmt::format("README schedule on {}x{}x128, group {}", M, N, G));
  for (auto [M, N, G] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{{200, 150, 2}, {1000, 1000, 3}, {77, 131, 4}}) {
    kernels::MatmulOptions o;
    o.m = M, o.n = N, o.k = 96, o.core_group = G;
    expect_matches_halide(kernels::matmul(o, chip()).c, fmt::format("matmul {}x{}x96, core_group {}", M, N, G));
  }
}

// A matmul whose B passes 2 GiB: the tiles past 2^31 bytes are addressed through a register (an
// address's immediate holds 32 bits; the assembler refused "offset 2162688000 does not fit").
// Timing-only (the data would be 2.2 GB): every access is bounds-checked, and B's traffic is
// whole. A functional run matched Halide by hand (cubekit kernel matmul --m 64 --n 33000 --k 33000).
TEST(PastTwoGiB, MatmulTilesAddressedThroughRegisters) {
  kernels::MatmulOptions o;
  o.m = 64, o.n = 33000, o.k = 33000;
  const kernels::Matmul mm = kernels::matmul(o, chip());
  const codegen::Compiled c = codegen::compile(mm.c, chip());
  bool far = false;
  for (const Instr& in : c.program.code)
    far |= spec_of(in).mnemonic == "li" && in.ops[1].imm > INT32_MAX;
  EXPECT_TRUE(far) << "no address past 2^31 was loaded into a register";
  GlobalMemory gm = GlobalMemory::shape_only(c.program);
  const SimResult r = simulate(chip(), c.program, gm, {.timing_only = true});
  EXPECT_TRUE(r.report.clean()) << report_text(r.report, c.program);
  EXPECT_GE(r.report.gm_bytes(), int64_t(33000) * 33000 * 2) << "B is read whole at least once";
}

}  // namespace
}  // namespace cubekit
