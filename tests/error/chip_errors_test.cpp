// User errors in choosing or describing a chip (emulator/chip_config.cpp): unknown presets, JSON
// config files that cannot be read or parsed, and configs with missing, mistyped, unknown or bad
// fields. Every message starts with the config's origin (its file name).
#include "emulator/chip_config.h"
#include "error_test_util.h"
#include "kernels/attention.h"
#include "kernels/check.h"
#include "kernels/matmul.h"

namespace cubekit::test {
namespace {

// The ascend910 preset as JSON (what `cubekit chips --json` prints) with `from` replaced by `to`.
// An edit that does not apply yields text naming the problem, so its case fails visibly.
std::string preset_with(std::string_view from, std::string_view to) {
  std::string json = chip_to_json(chip_presets().at(0));
  size_t at = json.find(from);
  if (at == std::string::npos) return "<test bug: '" + std::string(from) + "' is not in the preset's JSON>";
  return json.replace(at, from.size(), to);
}

// The preset with the text between `begin` and `end` (both kept) replaced by `to`.
std::string preset_between(std::string_view begin, std::string_view end, std::string_view to) {
  std::string json = chip_to_json(chip_presets().at(0));
  size_t b = json.find(begin), e = b == std::string::npos ? b : json.find(end, b + begin.size());
  if (e == std::string::npos) return "<test bug: no '" + std::string(begin) + "' ... '" + std::string(end) + "'>";
  return json.replace(b + begin.size(), e - b - begin.size(), to);
}

class ChipJsonError : public testing::TestWithParam<ErrorCase> {};

TEST_P(ChipJsonError, NamesTheFileTheFieldAndTheValue) {
  const ErrorCase& c = GetParam();
  expect_user_error([&] { chip_from_json(c.input, "my_chip.json"); }, c.expected, c.input);
}

const ErrorCase kSyntax[] = {
    {"InvalidJson", R"({ "name": )", {"my_chip.json: not valid JSON"}},
    {"NotAnObject", "[1, 2]", {"my_chip.json: a chip config must be a JSON object"}},
    {"MissingField", preset_with(R"("cores": 32,)", ""), {"my_chip.json: chip config has no field 'cores'"}},
    {"WrongType", preset_with(R"("cores": 32)", R"("cores": "many")"),
     {"my_chip.json: chip config field 'cores' must be a whole number, got \"many\""}},
    {"UnknownField", preset_with(R"("cores": 32,)", R"("cores": 32, "coures": 4,)"),
     {"my_chip.json: chip config has an unknown field 'coures'"}},
    {"MissingBufferSize", preset_with(R"("l0c": 262144,)", ""),
     {"my_chip.json (kind coupled): buffer l0c has an alignment but no size: give both or neither"}},
    {"UnknownBuffer", preset_with(R"("l0c": 262144,)", R"("l0c": 262144, "l2": 4096,)"),
     {"my_chip.json (kind coupled, buffer_bytes): chip config has an unknown field 'l2'"}},
    {"CubeNotAnArray", preset_between(R"("cube": )", R"(,
  "description")", R"({"input": "f16"})"),
     {"my_chip.json: chip config field 'cube' must be an array"}},
    {"CubeEntryMissingField", preset_with(R"("k0": 16,)", ""), {"my_chip.json (cube): chip config has no field 'k0'"}},
    {"CubeEntryUnknownField", preset_with(R"("input": "f16",)", R"("input": "f16", "fractal": 512,)"),
     {"my_chip.json (cube): chip config has an unknown field 'fractal'"}},
    {"CubeUnknownDtype", preset_with(R"("input": "f16")", R"("input": "f64")"),
     {"my_chip.json: 'f64' is not a dtype (f16 f32 s8 u8 s16 u16 s32 bf16)"}},
};
INSTANTIATE_TEST_SUITE_P(Syntax, ChipJsonError, testing::ValuesIn(kSyntax), case_name);

const ErrorCase kValues[] = {
    {"EmptyName", preset_with(R"("name": "ascend910")", R"("name": "")"),
     {"my_chip.json: 'name' is empty; name the chip (every report says which chip it ran on)"}},
    {"PipeListedTwice", preset_with(R"("MTE1",)", R"("MTE1", "MTE1",)"),
     {"my_chip.json (kind coupled): pipe \"MTE1\" is listed twice"}},
    {"CoresZero", preset_with(R"("cores": 32)", R"("cores": 0)"), {"my_chip.json: chip config field 'cores' must be in 1..4096, got 0"}},
    {"ClockNegative", preset_with(R"("clock_mhz": 1000.0)", R"("clock_mhz": -1.0)"),
     {"my_chip.json: chip config field 'clock_mhz' must be positive, got -1"}},
    {"EventIdsZero", preset_with(R"("event_ids": 4)", R"("event_ids": 0)"),
     {"my_chip.json: chip config field 'event_ids' must be in 1..16"}},
    // Currently fails: the message says "buffer sizes must be positive, got 0" without naming ub.
    {"BufferSizeZero", preset_with(R"("ub": 262144)", R"("ub": 0)"), {"my_chip.json", "ub", "must be positive, got 0"}},
    {"AlignmentNotAPowerOfTwo", preset_with(R"("l1": 32)", R"("l1": 48)"),
     {"my_chip.json (kind coupled): alignment of l1 must be a power of two, got 48"}},
    // A coarser alignment than the ISA's own step would misalign its instructions (load2d's next fractal).
    {"ClockBeyondAnyChip", preset_with(R"("clock_mhz": 1000.0)", R"("clock_mhz": 1e300)"),
     {"my_chip.json: chip config field 'clock_mhz' must be in 1..100000 (MHz; the presets run at 1000 to 1800), got 1e+300"}},
    {"CubeListsNothing", preset_between(R"("cube": [)", "]", ""),
     {"my_chip.json: the chip has cube cores (pipe M) but 'cube' lists nothing they multiply"}},
    {"AlignmentCoarserThanTheIsaSteps", preset_with(R"("l0a": 512)", R"("l0a": 1024)"),
     {"my_chip.json: alignment of l0a (kind coupled) must be a power of two in 1..512 (load2d and load3d fill it 512 B "
      "fractal by fractal, so a coarser alignment would misalign the ISA's own accesses), got 1024"}},
    {"CoreKindNotModelled", preset_with(R"("coupled")", R"("split")"),
     {"my_chip.json (kinds): kind 'split' is not modelled; the kinds are 'coupled' (cube and vector in one core), 'aic' "
      "(cube cores) and 'aiv' (vector cores)"}},
    // Currently fails: 1.5 is read as the int 1 without a word.
    {"CoresNotAWholeNumber", preset_with(R"("cores": 32)", R"("cores": 1.5)"), {"my_chip.json", "cores", "1.5"}},
    // Currently fails: 10^12 is narrowed to int, and the message reads "cores must be positive, got
    // -727379968" -- neither the value given nor the real problem.
    {"CoresBeyondInt", preset_with(R"("cores": 32)", R"("cores": 1000000000000)"),
     {"my_chip.json", "cores", "1000000000000"}},
    // Currently fails: the ISA's event operand takes 0..15, but a chip with 100 ids is accepted.
    {"EventIdsBeyondTheIsa", preset_with(R"("event_ids": 4)", R"("event_ids": 100)"),
     {"my_chip.json", "event_ids", "100"}},
    // Currently fails: accepted, and the first run dies of std::bad_alloc allocating 1 PiB of UB.
    {"BufferTooLarge", preset_with(R"("ub": 262144)", R"("ub": 1125899906842624)"),
     {"my_chip.json", "ub", "1125899906842624"}},
    // Currently fails: accepted, and mmad.f16 then divides by k0 = 0 (SIGFPE, see cli_errors_test).
    {"CubeK0Zero", preset_with(R"("k0": 16)", R"("k0": 0)"), {"my_chip.json", "k0", "0"}},
    // Currently fails: the emulator's fractals are 16 x 32 bytes (k0 = 16 for f16); k0 = 8 is
    // accepted and mixes 256 B layouts with 512 B footprints.
    {"CubeK0NotOneFractal", preset_with(R"("k0": 16)", R"("k0": 8)"), {"my_chip.json", "k0", "8"}},
    // Currently fails: mmad.f16 always accumulates in f32 whatever the config says.
    {"CubeAccumulatorNotModelled", preset_with(R"("accumulator": "f32")", R"("accumulator": "s8")"),
     {"my_chip.json", "accumulator", "s8"}},
    // Currently fail: the vector unit is hard-wired to 256 B repeats, 32 B blocks and 255 repeats,
    // so these fields are read and then ignored -- the variant the user describes is not the one run.
    {"VectorRepeatBytesNotModelled", preset_with(R"("vector_repeat_bytes": 256)", R"("vector_repeat_bytes": 128)"),
     {"my_chip.json", "vector_repeat_bytes", "128"}},
    {"BlockBytesNotModelled", preset_with(R"("block_bytes": 32)", R"("block_bytes": 64)"),
     {"my_chip.json", "block_bytes", "64"}},
    {"MaxRepeatNotModelled", preset_with(R"("max_repeat": 255)", R"("max_repeat": 1000)"),
     {"my_chip.json", "max_repeat", "1000"}},
    {"TimingFieldMissing", preset_with(R"("l2_hit_latency": 241,)", ""),
     {"my_chip.json (timing): chip config has no field 'l2_hit_latency'"}},
    {"TimingRateNotPositive", preset_with(R"("hbm_rate": 1000.0)", R"("hbm_rate": 0)"),
     {"my_chip.json (timing): chip config field 'hbm_rate' must be positive, got 0"}},
    {"TimingLatencyNotPositive", preset_with(R"("cube_latency": 20)", R"("cube_latency": -3)"),
     {"my_chip.json (timing): timing field 'cube_latency' must be in 1..", "got -3"}},
    {"L2LineNotAPowerOfTwo", preset_with(R"("l2_line_bytes": 512)", R"("l2_line_bytes": 500)"),
     {"my_chip.json (timing): timing field 'l2_line_bytes' must be a power of two, got 500"}},
    {"TimingFieldUnknown", preset_with(R"("hbm_rate": 1000.0)", R"("hbm_rate": 1000.0, "hbm_speed": 3)"),
     {"my_chip.json (timing): chip config has an unknown field 'hbm_speed'"}},
    // The effects of issue 11: a config written before them lacks their fields, and says which.
    {"EffectFieldMissing", preset_with(R"("cube_efficiency": 0.832,)", ""),
     {"my_chip.json (timing): chip config has no field 'cube_efficiency'"}},
    {"EfficiencyAboveOne", preset_with(R"("hbm_efficiency": 0.875)", R"("hbm_efficiency": 1.5)"),
     {"my_chip.json (timing): timing field 'hbm_efficiency' must be in 0.01..1 (a share of the peak rate), got 1.5"}},
    {"EfficiencyTooSmall", preset_with(R"("vector_efficiency": 0.843)", R"("vector_efficiency": 0.001)"),
     {"my_chip.json (timing): timing field 'vector_efficiency' must be in 0.01..1 (a share of the peak rate), got 0.001"}},
    {"OverheadNegative", preset_with(R"("launch_cycles": 1000)", R"("launch_cycles": -1)"),
     {"my_chip.json (timing): timing field 'launch_cycles' must be in 0..", "got -1"}},
    {"ReplacementCandidatesZero", preset_with(R"("l2_replacement_candidates": 2)", R"("l2_replacement_candidates": 0)"),
     {"my_chip.json (timing): timing field 'l2_replacement_candidates' must be in 1..", "got 0"}},
    {"ReplacementCandidatesTooMany", preset_with(R"("l2_replacement_candidates": 2)", R"("l2_replacement_candidates": 65)"),
     {"my_chip.json (timing): timing field 'l2_replacement_candidates' must be in 1..64 (lines compared per eviction",
      "got 65"}},
    {"GmAlignedBytesBelowABlock", preset_with(R"("gm_aligned_bytes": 512)", R"("gm_aligned_bytes": 16)"),
     {"my_chip.json (timing): timing field 'gm_aligned_bytes' must be in 32..65536", "got 16"}},
    // HBM's row-buffer locality (issue 11's calibration on the 910B2): a page and its efficiency.
    {"HbmPageFieldMissing", preset_with(R"("hbm_page_bytes": 1024,)", ""),
     {"my_chip.json (timing): chip config has no field 'hbm_page_bytes'"}},
    {"HbmPageBelowABlock", preset_with(R"("hbm_page_bytes": 1024)", R"("hbm_page_bytes": 8)"),
     {"my_chip.json (timing): timing field 'hbm_page_bytes' must be in 32..65536 (bytes: at least one 32 B block", "got 8"}},
    {"HbmScatteredEfficiencyAboveOne", preset_with(R"("hbm_scattered_efficiency": 1.0)", R"("hbm_scattered_efficiency": 2)"),
     {"my_chip.json (timing): timing field 'hbm_scattered_efficiency' must be in 0.01..1 (a share of the peak rate), got 2"}},
};
INSTANTIATE_TEST_SUITE_P(Values, ChipJsonError, testing::ValuesIn(kValues), case_name);

// Currently fails: 0.5 MHz is positive, yet it is truncated to 0 before the check and rejected as
// "clock_mhz must be positive, got 0". Either accept it or name the value given.
// A split chip's cross_core_latency below 1 is told the same range whether it is 0 or negative
// (the reader said 0.. for -1, the check after it 1.. for 0).
TEST(ChipJsonValue, CrossCoreLatencyBelowOneOnASplitChip) {
  const std::string b2 = chip_to_json(load_chip("ascend910b2"));
  const std::string field = R"("cross_core_latency": )";
  const size_t at = b2.find(field);
  ASSERT_NE(at, std::string::npos);
  const size_t end = b2.find_first_of(",\n}", at + field.size());
  for (const char* bad : {"0", "-1"}) {
    const std::string json = std::string(b2).replace(at + field.size(), end - at - field.size(), bad);
    expect_user_error([&] { chip_from_json(json, "my_chip.json"); }, {"cross_core_latency", "1..1000000", bad}, json);
  }
}

TEST(ChipJsonValue, ClockBelowOneMhzIsNotReportedAsZero) {
  std::string json = preset_with(R"("clock_mhz": 1000.0)", R"("clock_mhz": 0.5)");
  try {
    chip_from_json(json, "my_chip.json");
  } catch (const UserError& e) {
    EXPECT_THAT(std::string(e.what()), testing::HasSubstr("0.5"));
  }
}

TEST(ChipChoice, UnknownPreset) {
  expect_user_error([] { load_chip("ascend999"); },
                    {"unknown chip 'ascend999': the presets are ascend910, ascend910b2, ascend950pr (see 'cubekit chips'), or give a path to a "
                     "JSON chip config"});
}

// A name longer than a file name can be is still just an unknown chip, not a filesystem error.
TEST(ChipChoice, NameLongerThanAPath) {
  std::string name(400, 'a');
  expect_user_error([&] { load_chip(name); }, {"unknown chip '" + name + "': the presets are ascend910"});
}

TEST(ChipChoice, MissingConfigFile) {
  expect_user_error([] { load_chip("/nonexistent/cubekit/chip.json"); },
                    {"cannot read chip config file '/nonexistent/cubekit/chip.json'"});
}

// A config read from disk names its path in the message.
TEST(ChipChoice, ConfigFileWithAnError) {
  TempDir dir("chip_file");
  std::string path = dir.write("variant.json", preset_with(R"("cores": 32)", R"("cores": -4)"));
  expect_user_error([&] { load_chip(path); }, {path + ": chip config field 'cores' must be in 1..4096, got -4"});
}

}  // namespace
}  // namespace cubekit::test

namespace cubekit::test {
namespace {

// A chip edited to one event id a pipe pair (check_chip takes 1..16): the default matmul schedule
// no longer double-buffers there (it was refused, with advice to drop a double_buffer() nobody
// wrote); a kernel whose nest keeps two copies in flight is refused with the chip's fix.
TEST(ChipOfOneEventId, TheDefaultMatmulRunsAndTheFlashNestSaysWhatTheChipNeeds) {
  ChipConfig chip = chip910();
  chip.event_ids = 1;
  kernels::MatmulOptions m;
  m.m = 200, m.n = 120, m.k = 300;
  kernels::Matmul mm = kernels::matmul(m, chip);
  EXPECT_TRUE(kernels::compile_and_run(mm.out, chip).check.pass);
  kernels::AttentionOptions a;
  a.seq_q = 64, a.dim = 64;
  expect_user_error([&] { kernels::compile_and_run(kernels::attention(a, chip).funcs.o, chip); },
                    {"attention: the schedule needs 2 event ids from MTE1 to M but ascend910 has 1",
                     "give the chip at least 2 event ids (event_ids in its JSON)"});
}

}  // namespace
}  // namespace cubekit::test
