// The launch width (codegen/launch_width.h), on the vector and the cube path: on a chip that starts
// its cores one after another, a small kernel starts no more cores than pay off; spread over every
// core, the same kernel takes longer. On a chip that starts them at once, every core is used.
#include "emulator/chip_config.h"
#include "emulator/simulator.h"
#include "codegen/lower.h"
#include "codegen/transdata.h"
#include "kernels/check.h"
#include "kernels/conv.h"
#include "kernels/matmul.h"
#include "kernels/pool.h"
#include "kernels/vector.h"

#include <gtest/gtest.h>

namespace cubekit {
namespace {

kernels::KernelRun softmax(int64_t rows, int64_t cols, const ChipConfig& chip, int64_t tile_rows, bool timing_only) {
  kernels::VectorOptions o;
  o.shape = {rows, cols}, o.dtype = DType::f16, o.tile_rows = tile_rows, o.use_tuned = false;
  kernels::VectorKernel k = kernels::vector_kernel("softmax", o);
  return kernels::compile_and_run(k.out, chip, {.seed = 3, .sim = {.timing_only = timing_only}});
}

TEST(LaunchWidth, ASmallKernelStartsTheCoresWorthStarting) {
  for (const char* name : {"ascend910b2", "ascend950pr"}) {
    ChipConfig chip = load_chip(name);
    ASSERT_GT(chip.timing.core_start_cycles, 0) << name;
    kernels::KernelRun chosen = softmax(64, 2, chip, 0, false);  // with the Halide check
    EXPECT_TRUE(chosen.sim.report.clean()) << name;
    ASSERT_TRUE(chosen.checked);
    EXPECT_TRUE(chosen.check.pass) << name << ": " << chosen.check.mismatches << " mismatches";
    kernels::KernelRun spread = softmax(64, 2, chip, 1, true);  // a row a tile: every core
    EXPECT_EQ(spread.program.block_dim, chip.vector_cores()) << name;
    EXPECT_LT(chosen.program.block_dim, 16) << name;
    // The choice is at least twice as fast as every core: the last of 48 or 64 starts 47 x 360 or
    // 63 x 330 cycles after the first, where one core does the whole softmax in about 3,000.
    EXPECT_LT(2 * chosen.sim.report.cycles, spread.sim.report.cycles) << name;
  }
}

TEST(LaunchWidth, EveryCoreWhereTheChipStartsThemAtOnce) {
  ChipConfig chip = load_chip("ascend910");
  ASSERT_EQ(chip.timing.core_start_cycles, 0);
  EXPECT_EQ(softmax(64, 2, chip, 0, true).program.block_dim, 32);  // tiles of 2 rows
}

TEST(LaunchWidth, ABigKernelUsesEveryCore) {
  ChipConfig chip = load_chip("ascend950pr");
  EXPECT_EQ(softmax(4096, 1024, chip, 0, true).program.block_dim, 64);
}

// A small convolution with a fused epilogue (a mixed kernel: each group's cube core and its two
// vector cores) on the split chips: the fewer groups it starts beat every group, and it still
// computes the convolution; a big matmul keeps every core.
TEST(LaunchWidth, TheCubePathStartsTheGroupsWorthStarting) {
  kernels::Conv2dOptions o;
  o.n = 2, o.c = 40, o.h = 13, o.w = 13, o.k = 72, o.pad = 1, o.stride = 2, o.out = DType::f16;
  o.epilogue = {"bn", "relu"}, o.use_tuned = false;
  for (const char* name : {"ascend910b2", "ascend950pr"}) {
    ChipConfig chip = load_chip(name);
    ASSERT_GT(chip.timing.core_start_cycles, 0) << name;
    kernels::KernelRun chosen = kernels::compile_and_run(kernels::conv2d(o, chip).outputs(), chip, {.seed = 3});
    EXPECT_TRUE(chosen.sim.report.clean()) << name;
    ASSERT_TRUE(chosen.checked);
    EXPECT_TRUE(chosen.check.pass) << name << ": " << chosen.check.mismatches << " mismatches";
    // Every group: compiled where the cores start at once, run where they do not.
    ChipConfig at_once = chip;
    at_once.timing.core_start_cycles = 0;
    const Program spread = codegen::compile(kernels::conv2d(o, at_once).outputs(), at_once).program;
    EXPECT_EQ(spread.block_dim, 24) << name;  // its 24 tiles, a group each
    EXPECT_LT(chosen.program.block_dim, spread.block_dim) << name;
    GlobalMemory gm = GlobalMemory::shape_only(spread);
    const uint64_t spread_cycles = simulate(chip, spread, gm, {.timing_only = true}).report.cycles;
    EXPECT_LT(2 * chosen.sim.report.cycles, spread_cycles) << name;
  }
  kernels::MatmulOptions big;
  big.m = big.n = big.k = 2048, big.use_tuned = false;
  const ChipConfig chip = load_chip("ascend910b2");
  EXPECT_EQ(codegen::compile(kernels::matmul(big, chip).out, chip).program.block_dim, chip.cores);
}

// A small pooling on the vector cores of a split chip: fewer cores than its tiles, faster than
// every tile on a core of its own, and still the pooling.
TEST(LaunchWidth, APoolingStartsTheCoresWorthStarting) {
  kernels::Pool2dOptions o;
  o.kind = kernels::Pool2dOptions::Kind::Avg, o.global = true, o.n = 2, o.c = 64, o.h = 7, o.w = 7;
  const ChipConfig chip = load_chip("ascend910b2");
  kernels::KernelRun chosen = kernels::compile_and_run(kernels::pool2d(o, chip).out, chip, {.seed = 3});
  EXPECT_TRUE(chosen.sim.report.clean());
  ASSERT_TRUE(chosen.checked);
  EXPECT_TRUE(chosen.check.pass) << chosen.check.mismatches << " mismatches";
  ChipConfig at_once = chip;
  at_once.timing.core_start_cycles = 0;
  const Program spread = codegen::compile(kernels::pool2d(o, at_once).out, at_once).program;
  EXPECT_EQ(spread.block_dim, 8);  // its 8 planes of 16 channels
  EXPECT_LT(chosen.program.block_dim, spread.block_dim);
  GlobalMemory gm = GlobalMemory::shape_only(spread);
  EXPECT_LT(chosen.sim.report.cycles, simulate(chip, spread, gm, {.timing_only = true}).report.cycles);
}

// TransData too: a small feature map's conversion (2 images of 72 channels, 7 x 7: 10 planes of 16
// channels) on the cores worth starting, converting what it converted on every core.
TEST(LaunchWidth, TransDataStartsTheCoresWorthStarting) {
  const codegen::TensorLayout y{"Y", codegen::TensorLayout::Kind::NC1HWC0, DType::f16, {2, 72, 7, 7}, 16};
  const ChipConfig chip = load_chip("ascend910b2");
  ChipConfig at_once = chip;
  at_once.timing.core_start_cycles = 0;
  for (bool to_device : {true, false}) {
    const Program chosen = codegen::compile_transdata(y, to_device, chip), spread = codegen::compile_transdata(y, to_device, at_once);
    EXPECT_EQ(spread.block_dim, 10);
    EXPECT_LT(chosen.block_dim, spread.block_dim);
    GlobalMemory gm = GlobalMemory::for_program(chosen), spread_gm = GlobalMemory::for_program(spread);
    std::vector<uint8_t>& in = gm.data[0];
    for (size_t i = 0; i < in.size(); i += 2) in[i] = uint8_t(i * 7 + 1), in[i + 1] = uint8_t(0x3c);  // finite f16s
    spread_gm.data[0] = in;
    const SimResult a = simulate(chip, chosen, gm), b = simulate(chip, spread, spread_gm);
    EXPECT_TRUE(a.report.clean()) << to_device;
    EXPECT_LT(a.report.cycles, b.report.cycles) << to_device;
    EXPECT_EQ(gm.data[1], spread_gm.data[1]) << to_device;  // the same conversion
  }
}

}  // namespace
}  // namespace cubekit
