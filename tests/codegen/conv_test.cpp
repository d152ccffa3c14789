// The conv path (schedules/conv.h, codegen/conv_edges.h): convolutions of every shape the cube
// lowers (strides, padding, dilation, kernels from 1x1 to 7x7, channels past C0, edge tiles) and
// schedules, each against the Halide reference and checker-clean, on every chip preset.
#include "codegen/lower.h"
#include "emulator/emulator.h"
#include "codegen_test_util.h"
#include "kernels/check.h"
#include "emulator/error.h"
#include "kernels/conv.h"
#include "emulator/rounding.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>

namespace cubekit {
namespace {

using kernels::Conv2dOptions;
using test::describe;

Conv2dOptions conv(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t kh, int64_t kw, int64_t stride,
                   int64_t pad, int64_t dilation = 1) {
  Conv2dOptions o;
  o.n = n, o.c = c, o.h = h, o.w = w, o.k = k, o.kh = kh, o.kw = kw, o.stride = stride, o.pad = pad, o.dilation = dilation;
  return o;
}

std::string name(const Conv2dOptions& o) {
  return fmt::format("n{} c{} {}x{} k{} {}x{} s{} p{} d{} g{} rows{} tn{} ch{} {}", o.n, o.c, o.h, o.w, o.k, o.kh, o.kw,
                     o.stride, o.pad, o.dilation, o.groups, o.rows, o.tn, o.channels, dtype_name(o.in));
}

void expect_correct(const Conv2dOptions& o, const ChipConfig& chip) {
  SCOPED_TRACE(name(o) + " on " + chip.name);
  kernels::Conv2d cv = kernels::conv2d(o, chip);
  kernels::KernelRun run = kernels::compile_and_run(cv.out, chip, {.seed = 3});
  ASSERT_TRUE(run.checked);
  EXPECT_TRUE(run.check.pass) << "max abs " << run.check.max_abs << ", " << run.check.mismatches << " mismatches";
  EXPECT_TRUE(run.sim.report.diagnostics.empty()) << describe(run);
}

// An f32 result of a long sum: the default check's tolerance grows with the terms summed (4,096
// channels x 9 taps: 36,864 of them), as the CLI's does; a fixed 1e-4 failed a correct conv (its
// error 7.8e-4 on values of about 200, from float64).
TEST(ConvCheck, ALongF32SumIsCheckedWithATolerancePerTerm) {
  const ChipConfig& chip = load_chip("ascend910");
  kernels::Conv2d cv = kernels::conv2d(conv(1, 4096, 4, 4, 16, 3, 3, 1, 1), chip);
  kernels::KernelRun run = kernels::compile_and_run(cv.out, chip, {.seed = 3});
  ASSERT_TRUE(run.checked);
  EXPECT_DOUBLE_EQ(run.check.atol, 4096 * 9 * 0x1p-23);
  EXPECT_TRUE(run.check.pass) << "max abs " << run.check.max_abs << ", " << run.check.mismatches << " mismatches";
}

struct Case {
  const char* name;
  Conv2dOptions o;
};

const std::vector<Case> kCases = {
    {"Same3x3", conv(1, 3, 9, 9, 4, 3, 3, 1, 1)},
    {"Stride2", conv(2, 4, 11, 8, 6, 3, 3, 2, 1)},
    {"Dilation2", conv(1, 4, 10, 10, 4, 3, 3, 1, 2, 2)},
    {"Stem7x7", conv(1, 3, 30, 30, 8, 7, 7, 2, 3)},
    {"OneByOne", conv(1, 8, 5, 6, 5, 1, 1, 1, 0)},
    {"WideKernelStride3", conv(1, 2, 7, 5, 3, 2, 3, 3, 0)},
    {"ChannelsPastC0", conv(2, 40, 7, 7, 40, 3, 3, 1, 1)},
    {"ManyChannels", conv(1, 64, 8, 8, 80, 3, 3, 1, 1)},
    {"Bottleneck1x1", conv(1, 128, 7, 7, 96, 1, 1, 1, 0)},
    {"Stride2OneByOne", conv(1, 32, 9, 9, 64, 1, 1, 2, 0)},
    // A tile of one image's every row: L1 holds every other (third) input row alone.
    {"Stride2OneByOneSkipsRows", [] { auto o = conv(2, 48, 10, 6, 40, 1, 1, 2, 0); o.images = 1; return o; }()},
    {"Stride3Int8SkipsRows", [] {
       auto o = conv(1, 64, 12, 9, 32, 1, 1, 3, 0);
       o.images = 1, o.in = DType::s8, o.out = DType::s32;
       return o;
     }()},
    // INT8 inference: C0 = 32 channels per block, s32 accumulators.
    {"Int8", [] { auto o = conv(1, 40, 8, 8, 24, 3, 3, 1, 1); o.in = DType::s8, o.out = DType::s32; return o; }()},
    {"Int8Stride2", [] { auto o = conv(2, 64, 9, 9, 32, 3, 3, 2, 1); o.in = DType::s8, o.out = DType::s32; return o; }()},
    {"F16Out", [] { auto o = conv(1, 16, 6, 6, 20, 3, 3, 1, 1); o.out = DType::f16; return o; }()},
    // Fused epilogues: inference batch norm, ReLU, a residual (ResNet's block ends), f16 out.
    {"BatchNorm", [] { auto o = conv(1, 24, 7, 7, 40, 3, 3, 1, 1); o.epilogue = {"bn"}; return o; }()},
    {"BatchNormRelu", [] { auto o = conv(2, 16, 9, 9, 20, 3, 3, 2, 1); o.epilogue = {"bn", "relu"}; return o; }()},
    {"Residual", [] { auto o = conv(1, 32, 6, 6, 36, 1, 1, 1, 0); o.epilogue = {"bn", "residual", "relu"}; return o; }()},
    {"ResidualF16", [] {
       auto o = conv(2, 20, 7, 7, 24, 3, 3, 1, 1);
       o.epilogue = {"bn", "residual", "relu"}, o.out = DType::f16;
       return o;
     }()},
    // Groups: each a GEMM of its own (channels padded per group), depthwise included.
    {"Groups2", [] { auto o = conv(2, 8, 9, 9, 12, 3, 3, 2, 1); o.groups = 2; return o; }()},
    {"Groups4Wide", [] { auto o = conv(1, 64, 7, 7, 128, 1, 1, 1, 0); o.groups = 4; return o; }()},
    {"Depthwise", [] { auto o = conv(1, 24, 10, 10, 24, 3, 3, 1, 1, 1); o.groups = 24; return o; }()},
    {"DepthwiseMultiplier", [] { auto o = conv(1, 4, 8, 8, 8, 3, 3, 2, 1, 2); o.groups = 4; return o; }()},
    {"GroupsBnResidual", [] {
       auto o = conv(1, 32, 6, 6, 32, 3, 3, 1, 1);
       o.groups = 2, o.epilogue = {"bn", "residual", "relu"};
       return o;
     }()},
    {"ReluOnly", [] { auto o = conv(1, 8, 8, 8, 16, 3, 3, 1, 1); o.epilogue = {"relu"}, o.out = DType::f16; return o; }()},
    // Whole images stacked per tile (1x1, and windows that tile the rows): the last tile has fewer.
    {"Stacked1x1", [] { auto o = conv(5, 64, 7, 7, 48, 1, 1, 1, 0); o.images = 2; return o; }()},
    {"StackedStride2", [] { auto o = conv(3, 32, 6, 5, 40, 1, 1, 2, 0); o.images = 3, o.out = DType::f16; return o; }()},
    // Stacked images lie h rows apart in L1, though a 1x1 stride-2 window reads (oh - 1) * 2 + 1 of
    // them: L1 was sized for those, and the next copy's fill overwrote the last image (a Python probe).
    {"StackedStride2OnOneCore", [] {
       auto o = conv(8, 16, 4, 4, 16, 1, 1, 2, 0);
       o.images = 2, o.l1_copies = 2, o.use_cores = false;
       return o;
     }()},
    {"Stacked2x2Stride2", [] { auto o = conv(4, 16, 8, 8, 16, 2, 2, 2, 0); o.images = 3; return o; }()},
    {"StackedGroupsRelu", [] {
       auto o = conv(3, 32, 7, 7, 64, 1, 1, 1, 0);
       o.groups = 2, o.images = 2, o.epilogue = {"relu"}, o.out = DType::f16;
       return o;
     }()},
    {"StackedInt8", [] { auto o = conv(3, 64, 7, 7, 32, 1, 1, 1, 0); o.images = 2, o.in = DType::s8, o.out = DType::s32; return o; }()},
};

// Inputs set by RunSettings::inputs in GM's layouts are what the reference reads too, the
// weights (FRACTAL_Z, grouped) as well as the feature map: weights set so were not read back, and
// a correct kernel was reported as a mismatch (found by a C++ user probe).
TEST(ConvInputs, WeightsSetInTheirLayoutAreTheReferences) {
  for (int64_t groups : {1, 2}) {
    Conv2dOptions o = conv(1, 32, 6, 6, 32, 3, 3, 1, 1);
    o.groups = groups;
    const ChipConfig chip = load_chip("ascend910");
    kernels::Conv2d cv = kernels::conv2d(o, chip);
    kernels::RunSettings s;
    s.seed = 5;
    s.inputs = [](GlobalMemory& gm) {
      for (size_t t = 0; t < gm.decls.size(); ++t) {
        if (gm.decls[t].role != TensorRole::In || gm.decls[t].dtype != DType::f16) continue;
        std::vector<uint8_t>& b = gm.data[t];
        for (size_t i = 0; i + 1 < b.size(); i += 2) {  // every element a new value (padding lanes too)
          const uint16_t h = f64_to_f16(double(int(i / 2 % 13) - 6) / 8);
          std::memcpy(&b[i], &h, 2);
        }
      }
    };
    kernels::KernelRun run = kernels::compile_and_run(cv.out, chip, s);
    ASSERT_TRUE(run.checked);
    EXPECT_TRUE(run.check.pass) << "groups " << groups << ": max abs " << run.check.max_abs << ", " << run.check.mismatches
                                << " mismatches";
    for (const codegen::TensorLayout& l : run.layouts)  // and the layouts convert back whatever they hold
      EXPECT_EQ(l.to_device(l.to_host(run.gm.bytes(l.tensor))).size(), run.gm.bytes(l.tensor).size()) << l.str();
  }
}

// Stacked images with a batch norm and residual: on the coupled core's UB strips, and on the split
// chips' vector cores (each image's rows halved between the two).
TEST(ConvStacked, EpilogueOnEveryPreset) {
  for (const char* preset : {"ascend910", "ascend910b2", "ascend950pr"}) {
    Conv2dOptions o = conv(5, 48, 7, 7, 40, 1, 1, 1, 0);
    o.images = 2, o.epilogue = {"bn", "residual", "relu"};
    expect_correct(o, load_chip(preset));
    o.images = 4, o.out = DType::f16;
    expect_correct(o, load_chip(preset));
  }
}

// A strided 1x1 convolution over a tile of one image's every row copies only the rows it reads
// into L1 (ConvGeometry::skips_rows); split into tiles of fewer rows it reads them all.
TEST(ConvSkipsRows, ReadsOnlyTheRowsItUses) {
  for (const char* preset : {"ascend910", "ascend910b2"}) {
    Conv2dOptions o = conv(1, 32, 8, 6, 16, 1, 1, 2, 0);  // 2 channel blocks, 4 of 8 rows, one tile, one fill
    o.images = 1, o.rows = 4, o.channels = 32, o.tn = 16;
    const ChipConfig chip = load_chip(preset);
    kernels::KernelRun run = kernels::compile_and_run(kernels::conv2d(o, chip).out, chip, {.seed = 5});
    EXPECT_TRUE(run.checked && run.check.pass) << preset;
    const int64_t a = 2 * 4 * 6 * 32, b = 32 * 16 * 2;
    EXPECT_EQ(run.sim.report.bytes[int(DataPath::GmToL1)], a + b) << preset;
    o.rows = 2;  // two tiles of 2 output rows, each reading its 3 input rows
    run = kernels::compile_and_run(kernels::conv2d(o, chip).out, chip, {.seed = 5});
    EXPECT_TRUE(run.checked && run.check.pass) << preset;
    EXPECT_EQ(run.sim.report.bytes[int(DataPath::GmToL1)], 2 * (2 * 3 * 6 * 32 + b)) << preset;
  }
}

class ConvCases : public testing::TestWithParam<Case> {};

TEST_P(ConvCases, MatchesHalideOnEveryPreset) {
  for (const char* preset : {"ascend910", "ascend910b2", "ascend950pr"}) expect_correct(GetParam().o, load_chip(preset));
}

INSTANTIATE_TEST_SUITE_P(Shapes, ConvCases, testing::ValuesIn(kCases), [](const auto& i) { return std::string(i.param.name); });

// bf16 where the chip's cube has it (the split presets), with an epilogue.
TEST(ConvBf16, MatchesHalideOnTheSplitPresets) {
  for (const char* preset : {"ascend910b2", "ascend950pr"}) {
    Conv2dOptions o = conv(2, 20, 9, 9, 24, 3, 3, 1, 1);
    o.in = DType::bf16;
    expect_correct(o, load_chip(preset));
    o.epilogue = {"bn", "relu"}, o.out = DType::f16;
    expect_correct(o, load_chip(preset));
    o.out = DType::bf16;  // the epilogue's result converted on the vector unit
    expect_correct(o, load_chip(preset));
    o.epilogue = {"bn", "residual", "relu"};  // the residual read in bf16 (vconv to f32)
    expect_correct(o, load_chip(preset));
    o.epilogue.clear();  // on the FixPipe (F322BF16)
    expect_correct(o, load_chip(preset));
  }
}

// Random shapes under random schedules (rows and channels per tile, channels per L1 fill, double
// buffering, L1 copies): every schedule the planner accepts computes the convolution.
TEST(ConvRandom, EveryAcceptedScheduleIsCorrect) {
  std::mt19937_64 rng(12);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  const ChipConfig& chip = test::chip();
  int accepted = 0;
  for (int i = 0; i < 24; ++i) {
    int64_t kh = pick(1, 4), kw = pick(1, 4), d = pick(1, 2), s = pick(1, 3);
    const bool stack = pick(0, 3) == 0;  // images stacked per tile: windows that tile the rows
    if (stack) kh = 1, d = 1;
    Conv2dOptions o = conv(pick(1, 2), pick(1, 40), pick(kh * d, 14), pick(kw * d, 14), pick(1, 40), kh, kw, s, pick(0, 2), d);
    if (pick(0, 1)) o.rows = pick(1, 4);
    if (pick(0, 1)) o.tn = 16 * pick(1, 3);
    if (pick(0, 1)) o.channels = 16 * pick(1, 2);
    if (pick(0, 1)) o.double_buffer = pick(0, 1) == 1;
    if (pick(0, 2) == 0) o.l1_copies = int(pick(1, 4));
    if (pick(0, 3) == 0) {  // groups: a divisor of both channel counts
      int64_t g = pick(1, 4);
      o.c = g * pick(1, 12), o.k = g * pick(1, 12), o.groups = g;
    }
    if (stack) o.pad = 0, o.h = s * pick(1, 14 / s), o.images = pick(2, 3), o.rows = 0;
    if (kernels::conv_output_extent(o.h, kh, s, o.pad, d) < 1 || kernels::conv_output_extent(o.w, kw, s, o.pad, d) < 1) continue;
    try {
      kernels::conv2d(o, chip);
    } catch (const UserError&) {
      continue;  // a schedule the planner refuses, with its reason
    }
    ++accepted;
    expect_correct(o, chip);
  }
  EXPECT_GE(accepted, 16);
}

// ---- mutation: the generated conv kernel needs all of its synchronisation ----

class ConvMutation : public testing::TestWithParam<const char*> {};

// One core, so that it runs every row class, chunk and copy; padding at both edges (three row
// classes), two channel chunks per tile, two channel tiles, a fused batch norm, residual and ReLU
// (on the split chips: the FixPipe's NZ16 slots and the vector cores' strips); channel tiles of
// 32 and 8, whose per-channel inputs take two tokens on the vector cores.
TEST_P(ConvMutation, DeletingAnyExecutedSynchronisationIsReported) {
  const ChipConfig chip = load_chip(GetParam());
  Conv2dOptions o = conv(1, 40, 7, 7, 40, 3, 3, 1, 1);
  o.rows = 2, o.tn = 32, o.channels = 32, o.use_cores = false, o.epilogue = {"bn", "residual", "relu"};
  kernels::Conv2d cv = kernels::conv2d(o, chip);
  Program p = parse_program(print_program(codegen::compile(cv.out, chip).program));
  test::expect_every_sync_needed(p, chip, "generated conv", 30);
}

INSTANTIATE_TEST_SUITE_P(Presets, ConvMutation, testing::Values("ascend910", "ascend910b2"));

// Stacked images: a copy per image into L1, a store (or FixPipe move) per image and block.
TEST_P(ConvMutation, StackedImagesNeedAllTheirSynchronisation) {
  const ChipConfig chip = load_chip(GetParam());
  Conv2dOptions o = conv(5, 40, 7, 7, 40, 1, 1, 1, 0);
  o.images = 2, o.tn = 32, o.channels = 32, o.use_cores = false, o.epilogue = {"bn", "residual", "relu"};
  kernels::Conv2d cv = kernels::conv2d(o, chip);
  Program p = parse_program(print_program(codegen::compile(cv.out, chip).program));
  test::expect_every_sync_needed(p, chip, "generated stacked conv", 20);
}

}  // namespace
}  // namespace cubekit
