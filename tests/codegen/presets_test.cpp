// Every kernel on every chip preset: the coupled ascend910 and the split ascend910b2 and
// ascend950pr (cube cores with a FixPipe, vector cores, cross-core flags). Each run is checked
// against the Halide reference and must be checker-clean; on the split chips the tests also look
// at where the work ran (the contraction on the cube cores leaving through the FixPipe, epilogues
// the FixPipe cannot do on the vector cores, vector kernels on every vector core), and deleting
// any synchronisation of a generated mixed kernel must be reported.
#include "codegen/lower.h"
#include "codegen_test_util.h"
#include "emulator/emulator.h"
#include "kernels/check.h"
#include "kernels/matmul.h"
#include "kernels/vector.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>

namespace cubekit {
namespace {

using kernels::MatmulOptions;
using test::describe;

const ChipConfig& preset(const std::string& name) {
  static std::map<std::string, ChipConfig> chips;
  auto it = chips.find(name);
  if (it == chips.end()) it = chips.emplace(name, load_chip(name)).first;
  return it->second;
}

const std::vector<std::string> kPresets = {"ascend910", "ascend910b2", "ascend950pr"};

int count(const Program& p, std::string_view prefix) {
  int n = 0;
  for (const Instr& in : p.code) n += spec_of(in).mnemonic.starts_with(prefix);
  return n;
}

// ---- matmul: every option and epilogue ----

struct MatmulCase {
  const char* name;
  MatmulOptions o;
};

using test::mm;
using test::with;

const std::vector<MatmulCase> kMatmuls = {
    {"One", mm(1, 1, 1)},
    // Tiles 1..8 columns past a multiple of 16: the vector cores' per-column inputs have padding
    // that is zeroed at the start and must be ordered before the epilogue reads it.
    {"OneBias", with(mm(1, 1, 1), [](auto& o) { o.epilogue = {"bias"}; })},
    {"NarrowBias", with(mm(33, 20, 17), [](auto& o) { o.epilogue = {"bias", "relu"}; })},
    {"Odd", mm(77, 131, 45)},
    {"Square", mm(256, 256, 256)},
    {"LongK", mm(40, 50, 1500)},
    {"Batch", with(mm(70, 90, 60), [](auto& o) { o.batch = 3; })},
    {"TransposedA", with(mm(130, 70, 100), [](auto& o) { o.transpose_a = true; })},
    {"TransposedB", with(mm(130, 70, 100), [](auto& o) { o.transpose_b = true; })},
    {"Int8", with(mm(100, 70, 300), [](auto& o) { o.in = DType::s8, o.out = DType::s32, o.transpose_b = true; })},
    {"HalfOut", with(mm(90, 200, 70), [](auto& o) { o.out = DType::f16; })},
    {"Naive", with(mm(100, 60, 90), [](auto& o) { o.schedule = MatmulOptions::Schedule::Naive; })},
    {"OneCore", with(mm(100, 150, 90), [](auto& o) { o.use_cores = false; })},
    {"Group", with(mm(200, 150, 64), [](auto& o) { o.core_group = 2, o.tm = o.tn = 32; })},
    {"Relu", with(mm(77, 131, 45), [](auto& o) { o.epilogue = {"relu"}; })},
    {"ReluHalf", with(mm(77, 131, 45), [](auto& o) { o.epilogue = {"relu"}, o.out = DType::f16; })},
    {"BiasRelu", with(mm(77, 131, 45), [](auto& o) { o.epilogue = {"bias", "relu"}; })},
    {"ReluBias", with(mm(77, 131, 45), [](auto& o) { o.epilogue = {"relu", "bias"}, o.out = DType::f16; })},
    {"BiasGeluHalf", with(mm(150, 270, 64), [](auto& o) { o.epilogue = {"bias", "gelu"}, o.out = DType::f16; })},
    {"ScaleBias", with(mm(64, 40, 33), [](auto& o) { o.epilogue = {"scale", "bias", "bias"}, o.scale = 0.3; })},
    {"BatchedEpilogue", with(mm(33, 47, 20), [](auto& o) { o.batch = 2, o.epilogue = {"bias", "gelu"}; })},
    {"WideTileEpilogue", with(mm(64, 512, 32), [](auto& o) { o.tm = 16, o.tn = 512, o.epilogue = {"bias", "relu"}; })},
};

double atol_for(const MatmulOptions& o) {
  if (o.in == DType::s8) return 0;
  return o.out == DType::f16 ? 1e-2 : std::max(1e-4, double(o.k) * 0x1p-23);
}

struct MatmulParam {
  std::string chip;
  MatmulCase c;
};
void PrintTo(const MatmulParam& p, std::ostream* os) { *os << p.chip << "/" << p.c.name; }

class MatmulOnPresets : public testing::TestWithParam<MatmulParam> {};

TEST_P(MatmulOnPresets, MatchesHalideAndRunsClean) {
  const ChipConfig& chip = preset(GetParam().chip);
  const MatmulOptions& o = GetParam().c.o;
  kernels::Matmul m = kernels::matmul(o, chip);
  kernels::KernelRun run = kernels::compile_and_run(m.out, chip, {.seed = 3, .atol = atol_for(o)});
  EXPECT_TRUE(run.sim.report.clean()) << describe(run);
  ASSERT_TRUE(run.checked);
  EXPECT_TRUE(run.check.pass) << "max abs error " << run.check.max_abs << ", " << run.check.mismatches << " mismatches";
  if (!chip.split()) return;
  // The cube cores' results leave through the FixPipe; only an epilogue it cannot do (anything
  // but casts and ReLU) makes a mixed kernel, whose vector cores read a workspace.
  bool vector_epilogue = !o.epilogue.empty() && o.epilogue != std::vector<std::string>{"relu"};
  EXPECT_GT(count(run.program, "fixpipe"), 0);
  EXPECT_EQ(count(run.program, "mov_l0c_ub"), 0);
  EXPECT_EQ(run.program.entries.size(), vector_epilogue ? 2u : 0u);
  EXPECT_EQ(count(run.program, "set_cross") > 0, vector_epilogue);
  EXPECT_EQ(run.sim.report.cores, vector_epilogue ? 3 * run.program.block_dim : run.program.block_dim);
}

std::vector<MatmulParam> matmul_params() {
  std::vector<MatmulParam> out;
  for (const std::string& chip : kPresets)
    for (const MatmulCase& c : kMatmuls) out.push_back({chip, c});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Presets, MatmulOnPresets, testing::ValuesIn(matmul_params()),
                         [](const testing::TestParamInfo<MatmulParam>& i) { return i.param.chip + "_" + i.param.c.name; });

// ---- the vector kernels ----

struct VectorCase {
  std::string kernel;
  std::vector<int64_t> shape;
  DType dtype;
  std::vector<int64_t> y_shape;
  bool elementwise = false;  // tiled by elements rather than rows
};

struct VectorParam {
  std::string chip;
  VectorCase c;
};

class VectorOnPresets : public testing::TestWithParam<VectorParam> {};

TEST_P(VectorOnPresets, MatchesHalideAndRunsClean) {
  const ChipConfig& chip = preset(GetParam().chip);
  const VectorCase& c = GetParam().c;
  kernels::VectorOptions o;
  o.shape = c.shape, o.dtype = c.dtype, o.y_shape = c.y_shape;
  o.to = c.dtype == DType::f16 ? DType::f32 : DType::f16;
  kernels::VectorKernel k = kernels::vector_kernel(c.kernel, o);
  kernels::KernelRun run = kernels::compile_and_run(k.out, chip, {.seed = 5});
  EXPECT_TRUE(run.sim.report.clean()) << describe(run);
  ASSERT_TRUE(run.checked);
  EXPECT_TRUE(run.check.pass) << "max abs error " << run.check.max_abs << ", " << run.check.mismatches << " mismatches";
  // Row kernels hand the rows to every vector core in tiles of ceil(rows / cores) rows where the
  // chip starts its cores at once (the 910); where it starts them one after another (the split
  // chips), to no more of them (codegen/launch_width.h; LaunchWidth tests).
  int64_t rows = 1, cores = chip.vector_cores();
  for (size_t i = 0; i + 1 < c.shape.size(); ++i) rows *= c.shape[i];
  int64_t per_tile = (rows + cores - 1) / cores;
  if (!c.elementwise && chip.timing.core_start_cycles == 0) {
    EXPECT_EQ(run.program.block_dim, (rows + per_tile - 1) / per_tile);
  }
  if (!c.elementwise) {
    EXPECT_LE(run.program.block_dim, (rows + per_tile - 1) / per_tile);
  }
}

std::vector<VectorParam> vector_params() {
  const std::vector<VectorCase> cases = {
      {"add", {77, 131}, DType::f16, {131}, true},  {"mul", {50, 33}, DType::f32, {50, 1}, true},
      {"gelu", {100, 45}, DType::f16, {}, true},    {"cast", {61, 70}, DType::f32, {}, true},
      {"softmax", {99, 300}, DType::f16, {}}, {"softmax", {7, 2049}, DType::f32, {}},
      {"layernorm", {3, 5, 7, 300}, DType::f32, {}}, {"rmsnorm", {60, 257}, DType::f16, {}},
      {"sum", {70, 129}, DType::f32, {}},     {"max", {53, 40}, DType::f16, {}},
      {"mean", {1, 1000}, DType::f32, {}},
  };
  std::vector<VectorParam> out;
  for (const std::string& chip : kPresets)
    for (const VectorCase& c : cases) out.push_back({chip, c});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Presets, VectorOnPresets, testing::ValuesIn(vector_params()),
                         [](const testing::TestParamInfo<VectorParam>& i) {
                           std::string name = i.param.chip + "_" + i.param.c.kernel + "_" + std::string(dtype_name(i.param.c.dtype));
                           for (int64_t d : i.param.c.shape) name += "_" + std::to_string(d);
                           return name;
                         });

// ---- the generated mixed kernel needs all of its synchronisation ----

class MixedMatmul : public testing::TestWithParam<int64_t> {};

// n = 40 (tiles of 32 and 8 columns) and 52 (32 and 20: the 20-column tiles' bias has padding the
// vector cores zero at the start).
TEST_P(MixedMatmul, DeletingAnyExecutedSynchronisationIsReported) {
  const ChipConfig& chip = preset("ascend910b2");
  MatmulOptions o = mm(40, GetParam(), 40);
  // One core, so that it runs every tile and every copy of every buffer.
  o.tm = o.tn = 32, o.tk_l1 = o.tk_l0 = 16, o.use_cores = false, o.epilogue = {"bias", "relu"}, o.out = DType::f16;
  kernels::Matmul m = kernels::matmul(o, chip);
  Program p = parse_program(print_program(codegen::compile(m.out, chip).program));
  auto run = [&](const Program& program) {
    GlobalMemory gm = GlobalMemory::for_program(program);
    gm.fill_inputs(9);
    return simulate(chip, program, gm).report;
  };
  ASSERT_TRUE(run(p).clean());
  test::Mutations d = test::delete_each_sync(p, run);
  for (const std::string& s : d.survivors) ADD_FAILURE() << s;
  std::printf("generated mixed matmul: %d of %d executed deletions reported (%d cross-core; %d not reached)\n", d.reported,
              d.mutants, d.cross, d.unreached);
  EXPECT_EQ(d.reported, d.mutants);
  EXPECT_GE(d.cross, 6);
}

INSTANTIATE_TEST_SUITE_P(Widths, MixedMatmul, testing::Values(40, 52));

}  // namespace
}  // namespace cubekit
