// User errors from inputs that used to crash, hang or run without bound (issue 10, items 7-16):
// block counts, chip JSON figures (L2 of no lines, buffers no chip has, rates that overflow the
// cycle counters, numbers beyond a double), .npy headers (huge descr, lengths beyond the file),
// and the bounds on a whole run's work and trace. One test per user error, each checking its message;
// CLI cases exit 2.
#include "emulator/chip_config.h"
#include "emulator/emulator.h"
#include "emulator/program.h"
#include "emulator/simulator.h"
#include "error_test_util.h"
#include "kernels/matmul.h"
#include "tools/npy.h"

namespace cubekit::test {
namespace {

using testing::HasSubstr;

// Four blocks, each copying its own 256 B slice of X into UB and back out to Y (X and Y hold four
// slices): the program's tensors cover blocks 0..3.
const char* kSlices = R"(.kernel slices
.block_dim 4
.tensor X f16 [512] in
.tensor Y f16 [512] out
    block_idx x1
    mul x1, x1, 256
    copy_gm_ub ub[0], X[x1], len=8
    set_flag MTE2, MTE3, 0
    wait_flag MTE2, MTE3, 0
    copy_ub_gm Y[x1], ub[0], len=8
    end
)";

// An endless loop: each block runs until max_steps (500 M instructions by default).
const char* kEndless = ".kernel spin\n.block_dim 32\ntop:\n    add x1, x1, 1\n    jmp top\n    end\n";

SimResult simulate_text(const std::string& text, SimOptions options, const ChipConfig& chip = chip910()) {
  Program p = parse_program(text, "t.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  return simulate(chip, p, gm, options);
}

RunResult run_text_in_order(const std::string& text, RunOptions options) {
  Program p = parse_program(text, "t.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  return run_in_order(chip910(), p, gm, options);
}

// The ascend910 preset as JSON with `from` replaced by `to` (a bad edit shows in the failure).
std::string preset_with(std::string_view from, std::string_view to) {
  std::string json = chip_to_json(chip910());
  size_t at = json.find(from);
  if (at == std::string::npos) return "<test bug: '" + std::string(from) + "' is not in the preset's JSON>";
  return json.replace(at, from.size(), to);
}

// ---- item 7: the block count ---------------------------------------------------------------------

TEST(RobustnessBlocks, MoreThanALaunchCanHave) {
  expect_user_error([] { simulate_text(kSlices, {.blocks = 1'000'000}); },
                    {"a launch of 1000000 blocks is more than a launch can have: 1..65535"});
}

TEST(RobustnessBlocks, NegativeCount) {
  expect_user_error([] { simulate_text(kSlices, {.blocks = -3}); }, {"a launch needs at least one block, got -3"});
}

TEST(RobustnessBlocks, BeyondWhatTheTensorsHold) {
  expect_user_error([] { simulate_text(kSlices, {.blocks = 9}); },
                    {"a launch of 9 blocks goes beyond what slices's tensors hold: block 4 would access",
                     "tensor X bytes [1024, 1280)", "its tensors cover blocks 0..3 (.block_dim 4); launch at most 4 blocks"});
}

// Blocks 4 and 5 overrun but from block 6 on a block does nothing (it skips its work, as a
// block past a kernel's tiles skips its tile loop): the last block alone does not show the overrun.
const char* kSkipsFromSix = R"(.kernel skips
.block_dim 4
.tensor X f16 [512] in
.tensor Y f16 [512] out
    block_idx x1
    blt x1, 6, work
    end
work:
    mul x1, x1, 256
    copy_gm_ub ub[0], X[x1], len=8
    set_flag MTE2, MTE3, 0
    wait_flag MTE2, MTE3, 0
    copy_ub_gm Y[x1], ub[0], len=8
    end
)";

TEST(RobustnessBlocks, BeyondWhatTheTensorsHoldThoughTheLastBlockIsIdle) {
  expect_user_error([] { simulate_text(kSkipsFromSix, {.blocks = 8}); },
                    {"a launch of 8 blocks goes beyond what skips's tensors hold: block 4 would access",
                     "its tensors cover blocks 0..3 (.block_dim 4); launch at most 4 blocks"});
}

TEST(RobustnessBlocks, BeyondWhatTheTensorsHoldInOrder) {
  expect_user_error([] { run_text_in_order(kSlices, {.cores = 6}); },
                    {"a launch of 6 blocks goes beyond what slices's tensors hold: block 4", "launch at most 4 blocks"});
}

TEST(RobustnessBlocks, CliCoresBeyondInt32Range) {
  TempDir dir("blocks");
  std::string path = dir.write("slices.s", kSlices);
  auto [code, err] = cubekit_stderr("run '" + path + "' --cores 2147483647");
  EXPECT_EQ(code, 2) << err;
  EXPECT_THAT(err, HasSubstr("cubekit: error: a launch of 2147483647 blocks is more than a launch can have: 1..65535"));
}

// ---- items 8, 9, 11, 12, 16: chip figures ----------------------------------------------------------

class RobustnessChipJson : public testing::TestWithParam<ErrorCase> {};

TEST_P(RobustnessChipJson, NamesTheFieldTheRangeAndWhy) {
  const ErrorCase& c = GetParam();
  expect_user_error([&] { chip_from_json(c.input, "my_chip.json"); }, c.expected, c.input);
}

const ErrorCase kChipFigures[] = {
    {"L2SmallerThanALine", preset_with(R"("l2_bytes": 33554432)", R"("l2_bytes": 100)"),
     {"my_chip.json (timing): timing field 'l2_bytes' must be in 512..1099511627776", "at least one line", "got 100"}},
    {"L2LineBelowABlock", preset_with(R"("l2_line_bytes": 512)", R"("l2_line_bytes": 16)"),
     {"timing field 'l2_line_bytes' must be in 32..65536", "got 16"}},
    {"L0cBelowOneAccumulatorFractal", preset_with(R"("l0c": 262144)", R"("l0c": 512)"),
     {"my_chip.json: buffer l0c is 512 bytes, but a chip's l0c holds 1024..1048576 bytes",
      "one 16x16 f32 accumulator fractal"}},
    {"UbOfAGibibyte", preset_with(R"("ub": 262144)", R"("ub": 1073741824)"),
     {"my_chip.json: buffer ub is 1073741824 bytes, but a chip's ub holds 256..1048576 bytes", "4x the Ascend 910's"}},
    {"L0aBelowOneFractal", preset_with(R"("l0a": 65536)", R"("l0a": 256)"),
     {"buffer l0a is 256 bytes, but a chip's l0a holds 512..262144 bytes"}},
    {"CoresBeyondADouble", preset_with(R"("cores": 32)", R"("cores": 1e999)"),
     {"my_chip.json: not valid JSON: a number is out of range"}},
    {"RateThatOverflowsTheCycleCounters", preset_with(R"("hbm_rate": 1000.0)", R"("hbm_rate": 1e-300)"),
     {"my_chip.json (timing): timing field 'hbm_rate' must be in 0.01..1000000 bytes per cycle, got 1e-300",
      "a slower rate makes one transfer outlast the cycle counters"}},
    {"RateBeyondAnyChip", preset_with(R"("hbm_rate": 1000.0)", R"("hbm_rate": 1e300)"),
     {"timing field 'hbm_rate' must be in 0.01..1000000 bytes per cycle, got 1e+300"}},
    {"QueueDepthBeyondAnyChip", preset_with(R"("queue_depth": 32)", R"("queue_depth": 2000000000)"),
     {"timing field 'queue_depth' must be in 1..1024", "got 2000000000"}},
    {"LatencyBeyondAnyChip", preset_with(R"("cube_latency": 20)", R"("cube_latency": 2000000000)"),
     {"timing field 'cube_latency' must be in 1..1000000", "got 2000000000"}},
};
INSTANTIATE_TEST_SUITE_P(Figures, RobustnessChipJson, testing::ValuesIn(kChipFigures), case_name);

// A config built in C++ skips the JSON reader: the runs check it the same way.
TEST(RobustnessChip, CppConfigWithAnL2OfNoLines) {
  ChipConfig chip = chip_with("no_l2", [](ChipConfig& c) { c.timing.l2_bytes = 64; });
  expect_user_error([&] { simulate_text(kSlices, {}, chip); },
                    {"chip 'no_l2' (timing): timing field 'l2_bytes' must be in 512..", "got 64"});
}

TEST(RobustnessChip, CppConfigWithATinyRate) {
  ChipConfig chip = chip_with("slow", [](ChipConfig& c) { c.timing.gm_read_hbm_rate = 1e-300; });
  expect_user_error([&] { simulate_text(kSlices, {}, chip); },
                    {"chip 'slow' (timing): timing field 'gm_read_hbm_rate' must be in 0.01..1000000"});
}

TEST(RobustnessChip, MatmulOnAChipWhoseL0cHoldsNoTile) {
  ChipConfig chip = chip_with("tiny_l0c", [](ChipConfig& c) { c.set_buffer_size(Space::L0C, 512); });
  kernels::MatmulOptions o;
  o.m = o.n = o.k = 64;
  expect_user_error([&] { kernels::matmul(o, chip); },
                    {"chip 'tiny_l0c': buffer l0c is 512 bytes, but a chip's l0c holds 1024..1048576 bytes (at least "
                     "one 16x16 f32 accumulator fractal (1024 B)"});
}

TEST(RobustnessChip, CliKernelMatmulWithATinyL0c) {
  TempDir dir("l0c");
  std::string path = dir.write("tiny.json", preset_with(R"("l0c": 262144)", R"("l0c": 1000)"));
  auto [code, err] = cubekit_stderr("kernel matmul --m 64 --n 64 --k 64 --chip '" + path + "'");
  EXPECT_EQ(code, 2) << err;
  EXPECT_THAT(err, HasSubstr("buffer l0c is 1000 bytes, but a chip's l0c holds 1024..1048576 bytes"));
}

// Not an error since a split may exceed its extent (one partial tile, as in Halide): the tile size
// saturates instead of overflowing (it did in up16), and the kernel runs and matches.
TEST(RobustnessChip, CliTileOverrideAtInt64MaxIsOneTile) {
  auto [code, err] = cubekit_stderr("kernel matmul --m 64 --n 64 --k 64 --tm 9223372036854775807");
  EXPECT_EQ(code, 0) << err;
  EXPECT_EQ(err, "");
}

// ---- items 10, 15: .npy headers ------------------------------------------------------------------

std::string npy_v1(const std::string& header_text) {
  std::string header = header_text + std::string((64 - (10 + header_text.size() + 1) % 64) % 64, ' ') + "\n";
  std::string out = "\x93NUMPY\x01";
  out += '\0';
  out += char(header.size() & 0xff);
  out += char(header.size() >> 8);
  return out + header;
}

TEST(RobustnessNpy, DescrOfThirtyThousandCharacters) {
  TempDir dir("npy_descr");
  std::string descr(30000, 'f');
  std::string path = dir.write("a.npy", npy_v1("{'descr': '" + descr + "', 'fortran_order': False, 'shape': (4,), }"));
  expect_user_error([&] { read_npy(path); }, {"a.npy': dtype 'ffff", "is not supported"});
}

TEST(RobustnessNpy, HeaderLengthBeyondTheFile) {
  TempDir dir("npy_len");
  std::string bytes = "\x93NUMPY\x02";
  bytes += '\0';
  bytes += std::string("\xff\xff\xff\xff", 4);  // a 4 GiB header in a 100-byte file
  bytes += std::string(88, ' ');
  std::string path = dir.write("a.npy", bytes);
  expect_user_error([&] { read_npy(path); },
                    {"a.npy': truncated .npy header (4294967295 bytes declared, the file is shorter)"});
}

// Found by scripts/sanitize.sh (UBSan): elements that fit 64 bits but whose bytes do not made the
// message itself overflow. fuzz/regressions/npy/shape_bytes_overflow_int16.npy is the fuzzer's input.
TEST(RobustnessNpy, ShapeWhoseBytesOverflow) {
  TempDir dir("npy_bytes");
  std::string header = "{'descr': '<i2', 'fortran_order': False, 'shape': (4294967295, 2147483647), }";
  header += std::string(118 - 10 - header.size() - 1, ' ') + "\n";
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8) + char(header.size() & 0xff) + char(header.size() >> 8) + header;
  std::string path = dir.write("a.npy", bytes + std::string(16, '\0'));
  expect_user_error([&] { read_npy(path); },
                    {"a.npy': the file ends before its 9223372030412324865 elements (16 bytes of data, "
                     "9223372030412324865 x 2 needed)"});
}

TEST(RobustnessNpy, HeaderThatIsNoDict) {
  TempDir dir("npy_dict");
  std::string path = dir.write("a.npy", npy_v1("{'descr' '<f2', 'shape': (4,), }"));
  expect_user_error([&] { read_npy(path); }, {"a.npy': the .npy header is not a dict literal: expected ':'"});
}

// ---- item 16: the run's bounds ----------------------------------------------------------------------

TEST(RobustnessWork, ManyBlocksOfAnEndlessLoop) {
  expect_user_error([] { simulate_text(kEndless, {.timing_only = true, .max_work = 2'000'000}); },
                    {"the run stopped at its work bound of 2000000 units, after ", " instructions over all blocks",
                     "raise it with --max-work"});
}

TEST(RobustnessWork, ManyBlocksOfAnEndlessLoopInOrder) {
  expect_user_error([] { run_text_in_order(kEndless, {.max_work = 1'000'000}); },
                    {"the run stopped at its work bound of 1000000 units, after ", "--max-work"});
}

TEST(RobustnessWork, VectorRepeatsCountAsWork) {
  // 1000 vadds of 255 repeats are 4000 instructions but 16 M units.
  const char* text = ".kernel v\n    li x1, 0\ntop:\n    vadds.f16 ub[0], ub[0], 1.0, repeat=255\n    barrier V\n"
                     "    add x1, x1, 1\n    blt x1, 1000, top\n    end\n";
  expect_user_error([&] { simulate_text(text, {.max_work = 1'000'000}); },
                    {"the run stopped at its work bound of 1000000 units", "a vector repeat counts 256"});
}

TEST(RobustnessWork, TraceBeyondItsBound) {
  expect_user_error([] { simulate_text(kSlices, {.trace = true, .max_trace_events = 10}); },
                    {"the trace reached its bound of 10 events", "--max-trace-events"});
}

TEST(RobustnessWork, CliMaxWork) {
  TempDir dir("cli_work");
  std::string path = dir.write("spin.s", kEndless);
  auto [code, err] = cubekit_stderr("run '" + path + "' --timing-only --max-work 3000000");
  EXPECT_EQ(code, 2) << err;
  EXPECT_THAT(err, HasSubstr("cubekit: error: the run stopped at its work bound of 3000000 units"));
}

TEST(RobustnessWork, CliMaxWorkNotPositive) {
  TempDir dir("cli_work0");
  std::string path = dir.write("slices.s", kSlices);
  auto [code, err] = cubekit_stderr("run '" + path + "' --max-work 0");
  EXPECT_EQ(code, 2) << err;
  EXPECT_THAT(err, HasSubstr("cubekit: error: --max-work must be positive, got 0"));
}

TEST(RobustnessWork, CliTraceBound) {
  TempDir dir("cli_trace");
  std::string path = dir.write("slices.s", kSlices);
  auto [code, err] = cubekit_stderr("run '" + path + "' --trace '" + (dir.path() / "t.json").string() +
                                    "' --max-trace-events 5");
  EXPECT_EQ(code, 2) << err;
  EXPECT_THAT(err, HasSubstr("cubekit: error: the trace reached its bound of 5 events"));
}

TEST(RobustnessWork, KernelCliMaxWork) {
  auto [code, err] = cubekit_stderr("kernel matmul --m 256 --n 256 --k 256 --timing-only --max-work 1000");
  EXPECT_EQ(code, 2) << err;
  EXPECT_THAT(err, HasSubstr("the run stopped at its work bound of 1000 units"));
}

}  // namespace
}  // namespace cubekit::test
