// The vector path end to end: every vector kernel against the Halide reference on odd shapes in
// f16 and f32, softmax's rows summing to one, extreme inputs, and fused matmul epilogues against
// Halide and against the unfused pair of kernels (GM bytes and cycles).
#include "codegen/vector_ops.h"
#include "emulator/emulator.h"
#include "emulator/error.h"
#include "codegen_test_util.h"
#include "kernels/check.h"
#include "kernels/matmul.h"
#include "kernels/vector.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>

namespace cubekit {
namespace {

using test::chip;
using test::describe;
using dsl::cast;
using dsl::Expr;

// ---- every kernel, odd shapes, both types ----

struct Case {
  std::string kernel;
  std::vector<int64_t> shape;
  DType dtype;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.kernel; }

std::vector<Case> cases() {
  std::vector<Case> out;
  const std::vector<std::vector<int64_t>> shapes = {{7, 1}, {1, 100}, {17, 1000}, {1000, 17}, {3, 5, 7, 300}};
  for (const std::string& k : kernels::vector_kernel_names())
    for (const auto& s : shapes)
      for (DType t : {DType::f16, DType::f32}) out.push_back({k, s, t});
  return out;
}

class VectorKernels : public testing::TestWithParam<Case> {};

TEST_P(VectorKernels, MatchHalideAndRunClean) {
  const Case& c = GetParam();
  kernels::VectorOptions o;
  o.shape = c.shape;
  o.dtype = c.dtype;
  o.to = c.dtype == DType::f16 ? DType::f32 : DType::f16;
  kernels::VectorKernel k = kernels::vector_kernel(c.kernel, o);
  kernels::KernelRun run = kernels::compile_and_run(k.out, chip(), {.seed = 11});
  EXPECT_TRUE(run.sim.report.clean()) << describe(run);
  ASSERT_TRUE(run.checked);
  EXPECT_TRUE(run.check.pass) << "max abs error " << run.check.max_abs << ", " << run.check.mismatches << " mismatches";
}

INSTANTIATE_TEST_SUITE_P(Vector, VectorKernels, testing::ValuesIn(cases()), [](const testing::TestParamInfo<Case>& i) {
  return fmt::format("{}_{}_{}", i.param.kernel, fmt::join(i.param.shape, "x"), dtype_name(i.param.dtype));
});

// ---- softmax and the norms on the numbers that break naive versions ----

double f16_at(const std::vector<uint8_t>& bytes, size_t i) {
  _Float16 h;
  std::memcpy(&h, bytes.data() + i * 2, 2);
  return double(h);
}

// select(): the three bugs the randomized test (vector_random_test.cpp) found, one case each.
struct SelectCase {
  const char* name;
  DType in;
  int64_t n;
  std::function<Expr(const dsl::Input&, const dsl::Var&)> value;
};
void PrintTo(const SelectCase& c, std::ostream* os) { *os << c.name; }

class Select : public testing::TestWithParam<SelectCase> {};

TEST_P(Select, MatchesHalideAndRunsClean) {
  const SelectCase& c = GetParam();
  dsl::Input X("X", c.in, {c.n});
  dsl::Var i("i");
  dsl::Func out("out");
  out(i) = c.value(X, i);
  kernels::KernelRun run = kernels::compile_and_run(out, chip(), {.seed = 2});
  EXPECT_TRUE(run.sim.report.clean()) << describe(run);
  EXPECT_TRUE(run.checked && run.check.pass) << run.check.mismatches << " mismatches, max abs error " << run.check.max_abs;
}

INSTANTIATE_TEST_SUITE_P(
    Vector, Select,
    testing::Values(
        // The mask of the instruction after a masked tail starts 32 B aligned.
        SelectCase{"MaskAfterATail", DType::f32, 100, [](auto& X, auto& i) { return dsl::select(X(i) > 0, X(i), 0); }},
        // An f32 comparison picking f16 values compares in f32, as Halide does.
        SelectCase{"F32CompareF16Result", DType::f32, 256,
                   [](auto& X, auto& i) {
                     Expr h = cast(DType::f16, X(i));
                     return dsl::select(X(i) != cast(DType::f32, h), h, -h);
                   }},
        // A constant in the comparison has the comparison's type, on either side.
        SelectCase{"ConstantInAnF32CompareOfF16", DType::f16, 128,
                   [](auto& X, auto& i) { return dsl::select(cast(DType::f32, X(i)) > 0.5, X(i), -X(i)); }},
        SelectCase{"ConstantFirst", DType::f16, 128,
                   [](auto& X, auto& i) { return dsl::select(0.5 < cast(DType::f32, X(i)), X(i), -X(i)); }},
        SelectCase{"F16CompareF32Result", DType::f16, 128,
                   [](auto& X, auto& i) { return dsl::select(X(i) < 0.1, cast(DType::f32, X(i)), 1); }}),
    [](const testing::TestParamInfo<SelectCase>& i) { return std::string(i.param.name); });

TEST(Softmax, RowsSumToOneInF16) {
  kernels::VectorOptions o;
  o.shape = {64, 1000};
  kernels::KernelRun run = kernels::compile_and_run(kernels::vector_kernel("softmax", o).out, chip(), {.seed = 5});
  ASSERT_TRUE(run.check.pass && run.sim.report.clean()) << describe(run);
  const auto& y = run.gm.bytes("softmax");
  double worst = 0;
  for (size_t r = 0; r < 64; ++r) {
    double sum = 0;
    for (size_t c = 0; c < 1000; ++c) sum += f16_at(y, r * 1000 + c);
    worst = std::max(worst, std::fabs(sum - 1));
  }
  std::printf("softmax 64 x 1000 f16: the worst row sums to 1 within %.2g\n", worst);
  EXPECT_LT(worst, 1e-2);
}

// Inputs of +-60000 in f16: exp must only ever see x - max <= 0, variances stay in f32.
class ExtremeInputs : public testing::TestWithParam<std::string> {};

TEST_P(ExtremeInputs, StayFiniteAndMatchHalide) {
  kernels::VectorOptions o;
  o.shape = {33, 700};
  kernels::RunSettings s{.seed = 9};
  s.inputs = [](GlobalMemory& gm) {
    std::mt19937 rng(3);
    std::vector<uint8_t>& x = gm.bytes("X");
    for (size_t i = 0; i < x.size() / 2; ++i) {
      _Float16 h = _Float16(std::uniform_real_distribution<float>(-60000.0f, 60000.0f)(rng));
      std::memcpy(x.data() + i * 2, &h, 2);
    }
  };
  kernels::VectorKernel k = kernels::vector_kernel(GetParam(), o);
  kernels::KernelRun run = kernels::compile_and_run(k.out, chip(), s);
  EXPECT_TRUE(run.sim.report.clean()) << describe(run);
  EXPECT_TRUE(run.check.pass) << "max abs error " << run.check.max_abs;
  const auto& y = run.gm.bytes(k.out.name());
  for (size_t i = 0; i < y.size() / 2; ++i) ASSERT_TRUE(std::isfinite(f16_at(y, i))) << "element " << i;
}

INSTANTIATE_TEST_SUITE_P(Vector, ExtremeInputs, testing::Values("softmax", "layernorm", "rmsnorm"));

// ---- fused matmul epilogues ----

struct Epi {
  const char* name;
  int64_t m, n, k, batch;
  std::vector<std::string> items;
  DType out;
};
void PrintTo(const Epi& e, std::ostream* os) { *os << e.name; }

class FusedEpilogue : public testing::TestWithParam<Epi> {};

TEST_P(FusedEpilogue, MatchesHalide) {
  const Epi& e = GetParam();
  kernels::MatmulOptions o;
  o.m = e.m, o.n = e.n, o.k = e.k, o.batch = e.batch, o.epilogue = e.items, o.out = e.out, o.scale = 0.125;
  kernels::Matmul mm = kernels::matmul(o, chip());
  kernels::KernelRun run = kernels::compile_and_run(mm.out, chip(), {.seed = 4, .atol = e.out == DType::f16 ? 1e-2 : 1e-3});
  EXPECT_TRUE(run.sim.report.clean()) << describe(run);
  EXPECT_TRUE(run.check.pass) << "max abs error " << run.check.max_abs << ", " << run.check.mismatches << " mismatches";
}

INSTANTIATE_TEST_SUITE_P(
    Matmul, FusedEpilogue,
    testing::Values(Epi{"BiasRelu", 200, 300, 150, 0, {"bias", "relu"}, DType::f16},
                    Epi{"BiasGelu", 77, 131, 45, 0, {"bias", "gelu"}, DType::f16},
                    Epi{"ScaleBiasF32", 128, 100, 64, 0, {"scale", "bias"}, DType::f32},
                    Epi{"ReluOnly", 300, 17, 500, 0, {"relu"}, DType::f32},
                    Epi{"BatchedBiasGelu", 64, 96, 80, 2, {"bias", "gelu"}, DType::f16}),
    [](const testing::TestParamInfo<Epi>& i) { return std::string(i.param.name); });

int64_t gm_bytes(const Report& r) {
  return r.bytes[size_t(DataPath::GmToL1)] + r.bytes[size_t(DataPath::GmToUb)] + r.bytes[size_t(DataPath::UbToGm)];
}

// The fused kernel reads A, B and the bias and writes D once; the unfused pair writes C (f32) to
// GM and reads it back. Cycles of the fused kernel against the two kernels one after the other.
TEST(FusedEpilogue, MovesNoMoreThanTheMatmulPlusTheBiasAndBeatsTwoKernels) {
  kernels::MatmulOptions o;
  o.m = o.n = o.k = 1024;
  o.out = DType::f16;
  SimOptions timing{.timing_only = true};
  Report plain = kernels::compile_and_run(kernels::matmul(o, chip()).out, chip(), {.sim = timing}).sim.report;
  kernels::MatmulOptions f = o;
  f.epilogue = {"bias", "relu"};
  kernels::Matmul fused_mm = kernels::matmul(f, chip());
  kernels::KernelRun fused = kernels::compile_and_run(fused_mm.out, chip(), {.sim = timing});
  kernels::MatmulOptions c32 = o;
  c32.out = DType::f32;
  Report first = kernels::compile_and_run(kernels::matmul(c32, chip()).out, chip(), {.sim = timing}).sim.report;
  Report second = kernels::compile_and_run(kernels::unfused_epilogue(f, chip()).out, chip(), {.sim = timing}).sim.report;

  // The bias is read once per output tile (each tile its own columns of it).
  int64_t bias_reads = fused.sim.report.bytes[size_t(DataPath::GmToUb)];
  int64_t bias_bytes = o.n * 4;
  std::printf("1024^3 matmul + bias + ReLU: GM bytes fused %lld, matmul alone %lld, bias %lld (read %lld in all, once "
              "per tile); unfused %lld\n",
              (long long)gm_bytes(fused.sim.report), (long long)gm_bytes(plain), (long long)bias_bytes,
              (long long)bias_reads, (long long)(gm_bytes(first) + gm_bytes(second)));
  std::printf("cycles: fused %llu, matmul alone %llu, unfused %llu + %llu = %llu\n",
              (unsigned long long)fused.sim.report.cycles, (unsigned long long)plain.cycles,
              (unsigned long long)first.cycles, (unsigned long long)second.cycles,
              (unsigned long long)(first.cycles + second.cycles));
  EXPECT_EQ(fused.sim.report.bytes[size_t(DataPath::GmToL1)], plain.bytes[size_t(DataPath::GmToL1)]);
  EXPECT_EQ(fused.sim.report.bytes[size_t(DataPath::UbToGm)], plain.bytes[size_t(DataPath::UbToGm)]);
  EXPECT_EQ(bias_reads % bias_bytes, 0) << "the bias is read in whole copies";
  EXPECT_LE(gm_bytes(fused.sim.report), gm_bytes(plain) + bias_reads);
  EXPECT_LT(gm_bytes(fused.sim.report), gm_bytes(first) + gm_bytes(second));
  EXPECT_LT(fused.sim.report.cycles, first.cycles + second.cycles);
}


// ---- instruction selection: rows of several repeats a column of repeats at a time ----

// The V instructions a list of nodes holds, and whether any sits in a loop.
int vector_instructions(const std::vector<codegen::Node>& nodes, bool& looped) {
  int n = 0;
  for (const codegen::Node& node : nodes) {
    if (node.kind == codegen::Node::Kind::Loop) looped = true;
    if (node.kind == codegen::Node::Kind::Instr) ++n;
    n += vector_instructions(node.body, looped);
  }
  return n;
}

TEST(VectorSelection, ARowBroadcastAndAReductionOverLongRowsTakeAnInstructionPerColumnOfRepeats) {
  // 64 rows of 128 f32 (two repeats each): x - m[r] is one instruction per 64 columns over all 64
  // rows (the spread m one block further a row), not a loop of 64; so is each level of the max.
  codegen::Kernel k;
  const int x = k.new_buffer("X", Space::UB, 64 * 128 * 4, 1), m = k.new_buffer("M", Space::UB, 64 * 4, 1);
  codegen::ScratchPool pool(k);
  std::vector<codegen::Node> out;
  {
    codegen::VectorOps ops(k, pool, out, {64, 128, 128, false});
    const codegen::VValue full{codegen::VShape::Full, DType::f32, {-1, x, codegen::Affine(0)}, 0};
    const codegen::VValue row{codegen::VShape::Row, DType::f32, {-1, m, codegen::Affine(0)}, 0};
    ops.reduce(codegen::VReduce::Max, row, full);
    ops.binary(codegen::VBinary::Sub, full, full, row);
  }
  bool looped = false;
  // max: one vmax (the halves), one vcmax; the spread: one vbrcb; the sub: two vsub.
  EXPECT_EQ(vector_instructions(out, looped), 5);
  EXPECT_FALSE(looped);
}

// A per-channel value over an NZ strip (a conv's epilogue on a split chip) takes 8 rows a repeat,
// each 32 B block of the row its own instruction, for the strip's whole groups of 8 rows, and a row
// a repeat for the rest only: strips of 63 or 49 rows took a row a repeat throughout, a quarter of
// an f32 repeat's lanes (ResNet-50's 56x56 1x1 conv with bn on the 910B2: 1.30x the cycles).
TEST(VectorSelection, APerChannelValueOverAnNzStripTakesEightRowsARepeat) {
  for (int64_t rows : {63, 64}) {
    codegen::Kernel k;
    const int x = k.new_buffer("X", Space::UB, rows * 64 * 4, 1), c = k.new_buffer("C", Space::UB, 64 * 4, 1);
    codegen::ScratchPool pool(k);
    std::vector<codegen::Node> out;
    {
      codegen::VectorOps ops(k, pool, out, {rows, 64, 64, true});
      const codegen::VValue full{codegen::VShape::Full, DType::f32, {-1, x, codegen::Affine(0)}, 0};
      const codegen::VValue col{codegen::VShape::Col, DType::f32, {-1, c, codegen::Affine(0)}, 0};
      ops.binary(codegen::VBinary::Mul, full, full, col);
    }
    bool looped = false;
    // A loop over the 4 fractal columns: two instructions of 8-row repeats (the f32 row's two
    // blocks), and for 63 rows one more, a row a repeat, for the last 7.
    EXPECT_EQ(vector_instructions(out, looped), rows == 64 ? 2 : 3) << rows << " rows";
    EXPECT_TRUE(looped);
  }
}

// A reduction of rows of 16 f32 (flash attention's scores on the 910) folds each row's two blocks
// and reduces a block to a value 8 rows a repeat: a vmax and a vcgmax of 16 repeats for 128 rows,
// where a vcmax took 128 reducing repeats (9% of BERT-Large's attention on the 910).
TEST(VectorSelection, ShortRowsReduceEightRowsARepeat) {
  codegen::Kernel k;
  const int x = k.new_buffer("X", Space::UB, 128 * 16 * 4, 1), m = k.new_buffer("M", Space::UB, 128 * 4, 1);
  codegen::ScratchPool pool(k);
  std::vector<codegen::Node> out;
  {
    codegen::VectorOps ops(k, pool, out, {128, 16, 16, false});
    ops.reduce(codegen::VReduce::Max, {codegen::VShape::Row, DType::f32, {-1, m, codegen::Affine(0)}, 0},
               {codegen::VShape::Full, DType::f32, {-1, x, codegen::Affine(0)}, 0});
  }
  std::vector<std::string> mnemonics;
  for (const codegen::Node& n : out)
    if (n.kind == codegen::Node::Kind::Instr) mnemonics.push_back(n.mnemonic);
  EXPECT_EQ(mnemonics, (std::vector<std::string>{"vmax.f32", "vcgmax.f32"}));
}

}  // namespace
}  // namespace cubekit
