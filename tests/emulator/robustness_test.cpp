// Behaviour on inputs at the edges of what a user can give (issue 10, items 7-16): the work and
// trace bounds count what they document, blocks past .block_dim run when the tensors cover them,
// wild addresses are reported with the numbers the program computed, .npy headers of any length
// round-trip, and chips at the limits of their figures run.
#include "emulator/chip_config.h"
#include "emulator/emulator.h"
#include "emulator/error.h"
#include "emulator/program.h"
#include "emulator/simulator.h"
#include "tools/npy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

namespace cubekit {
namespace {

using testing::HasSubstr;
using testing::Not;

const ChipConfig& first_preset() { return chip_presets().at(0); }

struct Ran {
  Program program;
  GlobalMemory gm;
  SimResult sim;
};

Ran simulate_text(const std::string& text, const SimOptions& options, const ChipConfig& c = first_preset()) {
  Ran r{parse_program(text, "t.s"), {}, {}};
  r.gm = GlobalMemory::for_program(r.program);
  r.gm.fill_inputs(3);
  r.sim = simulate(c, r.program, r.gm, options);
  return r;
}

// ---- the work bound counts what it documents ------------------------------------------------------

// 10 iterations of a 7-repeat vadds, an mmad of 2 x 2 x 2 fractals and a 256-byte copy.
const char* kMixed = R"(.kernel mixed
.tensor X f16 [128] in
    copy_gm_ub ub[0], X[0], len=8
    li x1, 0
top:
    vadds.f16 ub[0], ub[0], 1.0, repeat=7
    barrier V
    add x1, x1, 1
    blt x1, 10, top
    mmad.f16 l0c[0], l0a[0], l0b[0], m=32, n=32, k=32, init
    end
)";
// Instructions: copy, li, 10 x (vadds, barrier, add, blt), mmad, end = 44. Extra units: 10 x 7
// repeats x 256, 2 x 2 x 2 fractal steps x 128, 256 bytes / 64.
constexpr int64_t kMixedInstructions = 44, kMixedWork = kMixedInstructions + 10 * 7 * 256 + 8 * 128 + 256 / 64;
// A timing-only run computes no data: the instructions, 24 more for each of the 12 pipe instructions
// (the copy, 10 vadds, the mmad: the timing model's own host time of one) and one unit per 512 B L2
// line a transfer touches (the 256 B copy touches less than one).
constexpr int64_t kMixedTimingWork = kMixedInstructions + 24 * 12 + 256 / 512;
// A functional simulate runs the timing model too: kMixedWork and the 24 of each pipe instruction.
constexpr int64_t kMixedSimulatedWork = kMixedWork + 24 * 12;

TEST(RobustnessWork, CountedAsDocumented) {
  Ran r = simulate_text(kMixed, {});
  EXPECT_EQ(r.sim.report.instructions, kMixedInstructions);
  EXPECT_EQ(r.sim.report.work, kMixedSimulatedWork);
  Ran timing = simulate_text(kMixed, {.timing_only = true});
  EXPECT_EQ(timing.sim.report.instructions, kMixedInstructions);
  EXPECT_EQ(timing.sim.report.work, kMixedTimingWork);
  Program p = parse_program(kMixed, "t.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  RunResult in_order = run_in_order(first_preset(), p, gm);  // no timing model
  EXPECT_EQ(in_order.instructions, kMixedInstructions);
  EXPECT_EQ(in_order.work, kMixedWork);
}

TEST(RobustnessWork, TheBoundIsInclusive) {
  EXPECT_NO_THROW(simulate_text(kMixed, {.max_work = kMixedSimulatedWork}));
  EXPECT_THROW(simulate_text(kMixed, {.max_work = kMixedSimulatedWork - 1}), UserError);
  EXPECT_NO_THROW(simulate_text(kMixed, {.timing_only = true, .max_work = kMixedTimingWork}));
  EXPECT_THROW(simulate_text(kMixed, {.timing_only = true, .max_work = kMixedTimingWork - 1}), UserError);
  Program p = parse_program(kMixed, "t.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  EXPECT_NO_THROW(run_in_order(first_preset(), p, gm, {.max_work = kMixedWork}));
  EXPECT_THROW(run_in_order(first_preset(), p, gm, {.max_work = kMixedWork - 1}), UserError);
}

// Work is over the whole run: 8 blocks do 8 times the work of one, and the bound sees all of it.
TEST(RobustnessWork, CountsEveryBlock) {
  Ran one = simulate_text(kMixed, {.blocks = 1});
  Ran eight = simulate_text(kMixed, {.blocks = 8});
  EXPECT_EQ(eight.sim.report.work, 8 * one.sim.report.work);
  EXPECT_THROW(simulate_text(kMixed, {.blocks = 8, .max_work = 8 * kMixedWork - 1}), UserError);
}

// The trace's events: a slice per instruction (S included) and 4 per flag; the bound is inclusive.
TEST(RobustnessWork, TraceEventsBoundIsInclusive) {
  const char* text = ".kernel t\n.tensor X f16 [128] inout\n    copy_gm_ub ub[0], X[0], len=8\n"
                     "    set_flag MTE2, MTE3, 0\n    wait_flag MTE2, MTE3, 0\n    copy_ub_gm X[0], ub[0], len=8\n    end\n";
  Ran r = simulate_text(text, {.trace = true});
  ASSERT_EQ(r.sim.traces.size(), 1u);
  int64_t events = int64_t(r.sim.traces[0].slices.size() + 4 * r.sim.traces[0].flows.size());
  EXPECT_EQ(r.sim.traces[0].flows.size(), 1u);
  EXPECT_NO_THROW(simulate_text(text, {.trace = true, .max_trace_events = events}));
  EXPECT_THROW(simulate_text(text, {.trace = true, .max_trace_events = events - 1}), UserError);
}

// ---- blocks past .block_dim ----------------------------------------------------------------------

// No .block_dim (1), but the tensors hold 16 slices of 256 bytes: 16 blocks each copy their own.
const char* kSixteenSlices = R"(.kernel copy
.tensor X f16 [2048] in
.tensor Y f16 [2048] out
    block_idx x1
    mul x1, x1, 256
    copy_gm_ub ub[0], X[x1], len=8
    set_flag MTE2, MTE3, 0
    wait_flag MTE2, MTE3, 0
    copy_ub_gm Y[x1], ub[0], len=8
    end
)";

TEST(RobustnessBlocks, PastBlockDimWhileTheTensorsCoverThem) {
  Ran r = simulate_text(kSixteenSlices, {.blocks = 16});
  EXPECT_TRUE(r.sim.report.clean());
  EXPECT_EQ(r.sim.report.blocks, 16);
  EXPECT_EQ(r.gm.bytes("Y"), r.gm.bytes("X"));
  EXPECT_THROW(simulate_text(kSixteenSlices, {.blocks = 17}), UserError);
}

// A program whose every block overruns is the program's bug: a diagnostic of the run, as before.
TEST(RobustnessBlocks, AnOverrunInTheDeclaredBlocksStaysADiagnostic) {
  const char* text = ".kernel bad\n.tensor X f16 [16] in\n    copy_gm_ub ub[0], X[0], len=8\n    end\n";
  Ran r = simulate_text(text, {.blocks = 4});
  ASSERT_EQ(r.sim.report.diagnostics.size(), 1u);
  EXPECT_EQ(r.sim.report.diagnostics[0].kind, Diagnostic::Kind::OutOfBounds);
}

TEST(RobustnessBlocks, TheCapIsInclusive) {
  // Every block does the same (no block_idx): 65535 blocks are a launch .block_dim allows.
  Ran r = simulate_text(".kernel k\n    li x1, 1\n    end\n", {.blocks = 65535, .timing_only = true});
  EXPECT_EQ(r.sim.report.blocks, 65535);
  EXPECT_THROW(simulate_text(".kernel k\n    end\n", {.blocks = 65536, .timing_only = true}), UserError);
}

// `barrier ALL` in program order was counted on a pipe index one past the array, corrupting the
// result's diagnostics (a crash of `cubekit run --in-order` on any program with one).
TEST(RobustnessInOrder, BarrierAll) {
  Program p = parse_program(".kernel t\n    barrier ALL\n    barrier ALL\n    end\n", "b.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  RunResult r = run_in_order(first_preset(), p, gm, {.cores = 3});
  EXPECT_TRUE(r.clean());
  EXPECT_EQ(r.instructions, 9);
  EXPECT_EQ(r.per_pipe[int(Pipe::S)], 3 * 3);
}

// ---- wild addresses are reported with the program's numbers --------------------------------------

Diagnostic wild(const std::string& instruction, int64_t x1) {
  Program p = parse_program(".kernel w\n.tensor X f16 [128] inout\n" + instruction + "\n    end\n", "w.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  CoreMemory memory(first_preset());
  ScalarState s;
  s.x[1] = x1;
  RunResult r;
  run_core_in_order(first_preset(), p, gm, memory, s, {}, r);
  EXPECT_EQ(r.diagnostics.size(), 1u);
  return r.diagnostics.empty() ? Diagnostic{} : r.diagnostics[0];
}

TEST(RobustnessAddresses, VectorOperandNearInt64Max) {
  Diagnostic d = wild("    vadd.f16 ub[x1], ub[0], ub[0], repeat=4", INT64_MAX - 100);
  EXPECT_EQ(d.kind, Diagnostic::Kind::OutOfBounds);
  EXPECT_THAT(d.message, HasSubstr("operand 'dst' writes ub bytes from address 9223372036854775707 to beyond 2^63, outside "
                                   "its ub bytes [0, 262144)"));
  EXPECT_THAT(d.message, Not(HasSubstr("-")));
}

TEST(RobustnessAddresses, CounterMaskNearInt64Max) {
  Diagnostic d = wild("    vadds.f16 ub[x1], ub[0], 1.0, mask=counter:1000", INT64_MAX - 300);
  EXPECT_EQ(d.kind, Diagnostic::Kind::OutOfBounds);
  EXPECT_THAT(d.message, HasSubstr("from address 9223372036854775507 to beyond 2^63"));
}

TEST(RobustnessAddresses, GmOperandAtInt64Max) {
  Diagnostic d = wild("    copy_gm_ub ub[0], X[x1], len=8", INT64_MAX);
  EXPECT_EQ(d.kind, Diagnostic::Kind::OutOfBounds);
  EXPECT_THAT(d.message, HasSubstr("operand 'src' reads tensor X bytes from address 9223372036854775807 to beyond 2^63"));
}

TEST(RobustnessAddresses, NegativeAddressIsExact) {
  Diagnostic d = wild("    copy_gm_ub ub[0], X[x1], len=8", INT64_MIN);
  EXPECT_THAT(d.message, HasSubstr("bytes [-9223372036854775808, -9223372036854775552)"));
  EXPECT_THAT(d.message, HasSubstr("(a negative address)"));
}

// x1 + 2000000 past 2^63 wraps in the register arithmetic: the message names both terms.
TEST(RobustnessAddresses, RegisterPlusOffsetPastInt64Max) {
  Diagnostic d = wild("    vadd.f16 ub[x1 + 2000000], ub[0], ub[0], repeat=2", INT64_MAX - 807);
  EXPECT_EQ(d.kind, Diagnostic::Kind::OutOfBounds);
  EXPECT_THAT(d.message, HasSubstr("operand 'dst' writes ub bytes from address 9223372036854775000 + 2000000, past the "
                                   "64-bit range, outside its ub bytes [0, 262144)"));
  Diagnostic g = wild("    copy_gm_ub ub[0], X[x1 + 2000000], len=1", INT64_MAX - 807);
  EXPECT_THAT(g.message, HasSubstr("reads tensor X bytes from address 9223372036854775000 + 2000000, past the 64-bit"));
}

// A timing-only run checks bounds as a functional one does: a negative or wild UB address is
// reported, and the faulting instruction costs nothing in either mode, so the cycles agree (it
// once went uncosted by the checks and cost its bank conflicts instead).
TEST(RobustnessAddresses, TimingOnlyReportsWildAddressesAsAFunctionalRunDoes) {
  for (const char* x1 : {"-64", "9223372036854775807", "253952"}) {
    const std::string text = std::string(".kernel t\n    li x1, ") + x1 +
                             "\n    vadd.f16 ub[x1], ub[0], ub[256], dst_blk=16, repeat=200\n    end\n";
    Ran fast = simulate_text(text, {.timing_only = true}), full = simulate_text(text, {});
    ASSERT_FALSE(fast.sim.report.diagnostics.empty()) << x1;
    EXPECT_EQ(fast.sim.report.diagnostics[0].kind, Diagnostic::Kind::OutOfBounds) << x1;
    EXPECT_EQ(fast.sim.report.cycles, full.sim.report.cycles) << x1;
  }
}

TEST(RobustnessAddresses, RegionEndBeyond64Bits) {
  EXPECT_EQ((Region{.base = INT64_MAX - 10, .bytes = 32}.end()), std::nullopt);
  EXPECT_EQ((Region{.base = 0, .bytes = 1, .n1 = 3, .s1 = INT64_MAX / 2 + 1}.end()), std::nullopt);
  EXPECT_EQ((Region{.base = 100, .bytes = 32, .n1 = 3, .s1 = 64, .n2 = 2, .s2 = 1000}.end()), 100 + 2 * 64 + 1000 + 32);
}

// ---- .npy headers of any length -------------------------------------------------------------------

class NpyFiles : public testing::Test {
 protected:
  std::filesystem::path dir_ = std::filesystem::temp_directory_path() /
                               ("cubekit_robustness_" + std::to_string(::getpid()));
  void SetUp() override { std::filesystem::create_directories(dir_); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const char* name) const { return (dir_ / name).string(); }
  static std::string bytes_of(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
};

// A shape of 30000 dimensions of 1 needs a header of ~90 KB: version 2, read back as written.
TEST_F(NpyFiles, HeaderBeyond64KiBIsWrittenAsVersion2) {
  std::vector<int64_t> shape(30000, 1);
  shape.back() = 4;
  std::vector<uint8_t> data = {1, 2, 3, 4, 5, 6, 7, 8};
  write_npy(path("big.npy"), DType::f16, shape, data);
  std::string file = bytes_of(path("big.npy"));
  ASSERT_GT(file.size(), 65536u);
  EXPECT_EQ(file[6], 2);
  uint32_t len = uint8_t(file[8]) | uint8_t(file[9]) << 8 | uint8_t(file[10]) << 16 | uint32_t(uint8_t(file[11])) << 24;
  EXPECT_EQ((12 + len) % 64, 0u);
  EXPECT_EQ(file.size(), 12 + len + data.size());
  EXPECT_EQ(file[12 + len - 1], '\n');
  NpyArray a = read_npy(path("big.npy"));
  EXPECT_EQ(a.shape, shape);
  EXPECT_EQ(a.data, data);
}

TEST_F(NpyFiles, SmallHeaderStaysVersion1) {
  write_npy(path("small.npy"), DType::f32, {2, 3}, std::vector<uint8_t>(24, 7));
  std::string file = bytes_of(path("small.npy"));
  EXPECT_EQ(file[6], 1);
  EXPECT_THAT(file, HasSubstr("'descr': '<f4', 'fortran_order': False, 'shape': (2, 3,)"));
  EXPECT_EQ(read_npy(path("small.npy")).shape, (std::vector<int64_t>{2, 3}));
}

TEST_F(NpyFiles, ReadsVersion3AndDoubleQuotes) {
  std::string header = R"({"descr": "<i4", "fortran_order": False, "shape": (2,)})";
  header += std::string((64 - (12 + header.size() + 1) % 64) % 64, ' ') + "\n";
  std::string file = "\x93NUMPY\x03";
  file += '\0';
  for (int b = 0; b < 4; ++b) file += char((header.size() >> (8 * b)) & 0xff);
  file += header + std::string("\x05\0\0\0\x06\0\0\0", 8);
  std::ofstream(path("v3.npy"), std::ios::binary) << file;
  NpyArray a = read_npy(path("v3.npy"));
  EXPECT_EQ(a.dtype, DType::s32);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(a.data, (std::vector<uint8_t>{5, 0, 0, 0, 6, 0, 0, 0}));
}

// ---- chips at the limits of their figures run ------------------------------------------------------

TEST(RobustnessChip, AnL2OfOneLineAndTheSlowestRates) {
  ChipConfig c = first_preset();
  c.name = "edge";
  c.timing.l2_bytes = c.timing.l2_line_bytes;
  c.timing.gm_read_hbm_rate = c.timing.hbm_rate = 0.01;
  Ran edge = simulate_text(kSixteenSlices, {.blocks = 16}, c);
  Ran normal = simulate_text(kSixteenSlices, {.blocks = 16});
  EXPECT_TRUE(edge.sim.report.clean());
  EXPECT_EQ(edge.gm.bytes("Y"), edge.gm.bytes("X"));
  // X spans 8 lines of 512 B, each fetched over HBM at 0.01 B/cycle, one after another.
  EXPECT_GE(double(edge.sim.report.cycles), 8 * 512 / 0.01);
  EXPECT_GT(edge.sim.report.cycles, normal.sim.report.cycles);
}

}  // namespace
}  // namespace cubekit
