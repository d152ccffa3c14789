// TransData on the vector unit (codegen/transdata.h): NCHW <-> NC1HWC0 of 16-bit maps, channel
// counts and plane sizes that are and are not multiples of 16, groups, against the host's
// conversion (layouts.h, itself held to naive loops by emulator/layout_test) bit for bit, both
// ways, checker-clean on every preset; and every executed synchronisation needed.
#include "codegen/transdata.h"
#include "codegen_test_util.h"
#include "emulator/emulator.h"
#include "kernels/check.h"
#include "kernels/conv.h"

#include <gtest/gtest.h>

#include <random>

namespace cubekit {
namespace {

using codegen::TensorLayout;

TensorLayout map(int64_t n, int64_t c, int64_t h, int64_t w, DType t = DType::f16, int64_t groups = 1) {
  return {"X", TensorLayout::Kind::NC1HWC0, t, {n, c, h, w}, 16, groups};
}

// Runs one direction's program on `in`, returns its result (checker-clean).
std::vector<uint8_t> convert(const TensorLayout& l, bool to_device, const std::vector<uint8_t>& in, const ChipConfig& chip) {
  Program p = parse_program(print_program(codegen::compile_transdata(l, to_device, chip)));
  GlobalMemory gm = GlobalMemory::for_program(p);
  gm.bytes(codegen::transdata_source(l, to_device)) = in;
  SimResult r = simulate(chip, p, gm);
  for (const Diagnostic& d : r.report.diagnostics) ADD_FAILURE() << format_diagnostic(p, d);
  return gm.bytes(codegen::transdata_result(l, to_device));
}

struct Case {
  const char* name;
  TensorLayout l;
};

const std::vector<Case> kCases = {
    {"Whole", map(2, 32, 8, 8)},
    {"ChannelsPastABlock", map(1, 20, 5, 7)},
    {"ThreeChannels", map(2, 3, 9, 9)},
    {"BigPlane", map(1, 16, 56, 56)},
    {"ResNet7x7", map(3, 64, 7, 7)},
    {"Bf16", map(1, 24, 6, 6, DType::bf16)},
    {"Groups", map(2, 24, 5, 5, DType::f16, 2)},
};

class TransData : public testing::TestWithParam<Case> {};

TEST_P(TransData, MatchesTheHostConversionBothWays) {
  const TensorLayout& l = GetParam().l;
  std::mt19937 rng(7);
  std::vector<uint8_t> logical(size_t(l.logical_bytes()));
  for (uint8_t& b : logical) b = uint8_t(rng());
  for (const char* preset : {"ascend910", "ascend910b2", "ascend950pr"}) {
    SCOPED_TRACE(preset);
    ChipConfig chip = load_chip(preset);
    std::vector<uint8_t> device = convert(l, true, logical, chip);
    EXPECT_TRUE(device == l.to_device(logical)) << "NCHW -> NC1HWC0 differs from the host's";
    EXPECT_TRUE(convert(l, false, device, chip) == logical) << "NC1HWC0 -> NCHW does not give the map back";
  }
}

INSTANTIATE_TEST_SUITE_P(Maps, TransData, testing::ValuesIn(kCases), [](const auto& i) { return std::string(i.param.name); });

TEST(TransData, DeletingAnyExecutedSynchronisationIsReported) {
  for (const char* preset : {"ascend910", "ascend910b2"}) {
    ChipConfig chip = load_chip(preset);
    for (bool to_device : {true, false}) {
      ChipConfig one = chip;
      Program p = parse_program(print_program(codegen::compile_transdata(map(1, 20, 5, 7), to_device, one)));
      test::expect_every_sync_needed(p, chip, to_device ? "transdata in" : "transdata out", 4);
    }
  }
}

// compile_and_run converts a conv's 16-bit feature maps on the emulator, in and out, and reports
// their cycles; its weights and per-channel inputs convert on the host.
TEST(TransData, ConvRunsConvertTheirMapsOnTheVectorUnit) {
  kernels::Conv2dOptions o;
  o.n = 2, o.c = 20, o.h = 9, o.w = 9, o.k = 24, o.pad = 1, o.epilogue = {"bn", "relu"}, o.out = DType::f16;
  for (bool timing_only : {false, true}) {
    ChipConfig chip = load_chip("ascend910b2");
    kernels::RunSettings s;
    s.sim.timing_only = timing_only;
    kernels::KernelRun run = kernels::compile_and_run(kernels::conv2d(o, chip).out, chip, s);
    ASSERT_EQ(run.conversions.size(), 5u);  // X, W, scale, shift in; Y out
    for (const kernels::Conversion& c : run.conversions) {
      const bool map = c.layout.tensor == "X" || c.layout.tensor == "Y";
      EXPECT_EQ(c.emulated, map) << c.layout.str();
      EXPECT_EQ(c.cycles > 0, map) << c.layout.str();
      EXPECT_TRUE(c.matches_host && c.clean) << c.layout.str();
      EXPECT_EQ(c.to_device, c.layout.tensor != "Y");
    }
    if (!timing_only) {
      EXPECT_TRUE(run.check.pass);
    }
  }
}

}  // namespace
}  // namespace cubekit
