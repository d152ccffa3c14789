// The checker on hand-written programs: each class of race, each sync error, a deadlock, reads
// of unwritten memory -- and correct programs reporting nothing.
#include "checker_util.h"
#include "emulator/simulator.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

namespace cubekit {
namespace {

using namespace checker_test;  // NOLINT: the shared helpers
using testing::HasSubstr;

// A race names both instructions (index and line), the buffer and the bytes.
void expect_race(const Checked& c, std::string_view earlier, std::string_view later, std::string_view bytes) {
  expect_only(c, Diagnostic::Kind::Race);
  const Diagnostic& d = *find(c, Diagnostic::Kind::Race);
  std::string text = format_diagnostic(c.program, d);
  EXPECT_EQ(d.line, line_of(c, later)) << text;
  EXPECT_EQ(c.program.code[d.other].line, line_of(c, earlier)) << text;
  EXPECT_THAT(text, HasSubstr(std::string(bytes))) << text;
  EXPECT_THAT(text, HasSubstr(fmt::format("line {}", line_of(c, earlier)))) << text;
}

TEST(Checker, CorrectProgramsReportNothing) {
  for (const char* name : {"matmul_f16.s", "matmul_f16_kloop.s", "matmul_f16_db.s"}) {
    Program p = load_program((std::filesystem::path(CUBEKIT_SOURCE_DIR) / "examples/asm" / name).string());
    GlobalMemory gm = GlobalMemory::for_program(p);
    gm.fill_inputs(3);
    Report r = simulate(load_chip("ascend910"), p, gm).report;
    for (const Diagnostic& d : r.diagnostics) ADD_FAILURE() << name << ": " << format_diagnostic(p, d);
  }
}

TEST(Checker, Mte2ToVectorWithoutAFlag) {
  Checked c = check(
      "    copy_gm_ub ub[0], X[0], len=8\n"
      "    vadds.f16 ub[256], ub[0], 1.0\n"
      "    set_flag V, MTE3, 0\n"
      "    wait_flag V, MTE3, 0\n"
      "    copy_ub_gm X[256], ub[256], len=8\n");
  expect_race(c, "copy_gm_ub", "vadds", "ub bytes [0, 256)");
  EXPECT_THAT(c.report.diagnostics[0].message, HasSubstr("set_flag MTE2, V"));
}

TEST(Checker, Mte1ToCubeWithoutAFlag) {
  Checked c = check(
      "    copy_gm_l1 l1[0], X[0], len=16\n"
      "    set_flag MTE2, MTE1, 0\n"
      "    wait_flag MTE2, MTE1, 0\n"
      "    load2d.f16 l0a[0], l1[0]\n"
      "    load2d.f16 l0b[0], l1[0]\n"
      "    mmad.f16 l0c[0], l0a[0], l0b[0], m=16, n=16, k=16, init\n"
      "    set_flag M, V, 0\n"
      "    wait_flag M, V, 0\n"
      "    mov_l0c_ub.f32.f32 ub[0], l0c[0]\n"
      "    set_flag V, MTE3, 0\n"
      "    wait_flag V, MTE3, 0\n"
      "    copy_ub_gm Y[0], ub[0], len=32\n");
  expect_race(c, "load2d.f16 l0a", "mmad", "l0a bytes [0, 512)");
}

TEST(Checker, CubeToVectorWithoutAFlag) {
  Checked c = check(
      "    copy_gm_l1 l1[0], X[0], len=16\n"
      "    set_flag MTE2, MTE1, 0\n"
      "    wait_flag MTE2, MTE1, 0\n"
      "    load2d.f16 l0a[0], l1[0]\n"
      "    load2d.f16 l0b[0], l1[0]\n"
      "    set_flag MTE1, M, 0\n"
      "    wait_flag MTE1, M, 0\n"
      "    mmad.f16 l0c[0], l0a[0], l0b[0], m=16, n=16, k=16, init\n"
      "    mov_l0c_ub.f32.f32 ub[0], l0c[0]\n"
      "    set_flag V, MTE3, 0\n"
      "    wait_flag V, MTE3, 0\n"
      "    copy_ub_gm Y[0], ub[0], len=32\n");
  expect_race(c, "mmad", "mov_l0c_ub", "l0c bytes [0, 1024)");
}

TEST(Checker, VectorToMte3WithoutAFlag) {
  Checked c = check(
      "    copy_gm_ub ub[0], X[0], len=8\n"
      "    set_flag MTE2, V, 0\n"
      "    wait_flag MTE2, V, 0\n"
      "    vadds.f16 ub[256], ub[0], 1.0\n"
      "    copy_ub_gm X[256], ub[256], len=8\n");
  expect_race(c, "vadds", "copy_ub_gm", "ub bytes [256, 512)");
  EXPECT_THAT(c.report.diagnostics[0].message, HasSubstr("set_flag V, MTE3"));
}

// The shadow state lives in pages of 4 KB of a buffer, made when first touched: a write that
// crosses from one page into the next races with a read of the second, and the last bytes of
// UB are watched like the first.
TEST(Checker, RacesAcrossAShadowPageAndAtTheEndOfTheBuffer) {
  Checked c = check(
      "    copy_gm_ub ub[4064], X[0], len=2\n"
      "    vadds.f16 ub[8192], ub[4096], 1.0\n"
      "    set_flag V, MTE3, 0\n"
      "    wait_flag V, MTE3, 0\n"
      "    copy_ub_gm X[256], ub[8192], len=8\n");
  expect_race(c, "copy_gm_ub", "vadds", "ub bytes [4096, 4128)");
  c = check(
      "    copy_gm_ub ub[262112], X[0], len=1\n"
      "    copy_ub_gm X[256], ub[262112], len=1\n");
  expect_race(c, "copy_gm_ub", "copy_ub_gm", "ub bytes [262112, 262144)");
  c = check(  // the same with its flag: nothing
      "    copy_gm_ub ub[262112], X[0], len=1\n"
      "    set_flag MTE2, MTE3, 0\n"
      "    wait_flag MTE2, MTE3, 0\n"
      "    copy_ub_gm X[256], ub[262112], len=1\n");
  for (const Diagnostic& d : c.report.diagnostics) ADD_FAILURE() << format_diagnostic(c.program, d);
}

TEST(Checker, DependentVectorInstructionsWithoutABarrier) {
  Checked c = check(
      "    copy_gm_ub ub[0], X[0], len=8\n"
      "    set_flag MTE2, V, 0\n"
      "    wait_flag MTE2, V, 0\n"
      "    vadds.f16 ub[256], ub[0], 1.0\n"
      "    vmuls.f16 ub[512], ub[256], 2.0\n"
      "    set_flag V, MTE3, 0\n"
      "    wait_flag V, MTE3, 0\n"
      "    copy_ub_gm X[256], ub[512], len=8\n");
  expect_race(c, "vadds", "vmuls", "ub bytes [256, 512)");
  EXPECT_THAT(c.report.diagnostics[0].message, HasSubstr("barrier V"));
}

// An instruction that reads and writes the same bytes (in place) after another of its pipe read
// them: its own read was recorded first and hid the earlier one from its write (a new-user probe).
TEST(Checker, AnInPlaceWriteAfterAnUnorderedReadOfItsPipe) {
  for (const char* in_place : {"vadds.f16 ub[0], ub[0], 1.0", "vmla.f16 ub[0], ub[256], ub[256]"}) {
    Checked c = check(std::string("    copy_gm_ub ub[0], X[0], len=16\n"
                                  "    set_flag MTE2, V, 0\n"
                                  "    wait_flag MTE2, V, 0\n"
                                  "    vadd.f16 ub[1024], ub[0], ub[256]\n    ") +
                      in_place +
                      "\n    set_flag V, MTE3, 0\n"
                      "    wait_flag V, MTE3, 0\n"
                      "    copy_ub_gm X[256], ub[1024], len=8\n");
    expect_race(c, "vadd", in_place, "ub bytes [0, 256)");
  }
}

TEST(Checker, ABarrierOrdersThem) {
  Checked c = check(
      "    copy_gm_ub ub[0], X[0], len=8\n"
      "    set_flag MTE2, V, 0\n"
      "    wait_flag MTE2, V, 0\n"
      "    vadds.f16 ub[256], ub[0], 1.0\n"
      "    barrier V\n"
      "    vmuls.f16 ub[512], ub[256], 2.0\n"
      "    set_flag V, MTE3, 0\n"
      "    wait_flag V, MTE3, 0\n"
      "    copy_ub_gm X[256], ub[512], len=8\n");
  for (const Diagnostic& d : c.report.diagnostics) ADD_FAILURE() << format_diagnostic(c.program, d);
}

TEST(Checker, PingPongBufferOverwrittenWhileRead) {
  // Two tiles through one UB buffer: the second load must wait until V has read the first.
  Checked c = check(
      "    copy_gm_ub ub[0], X[0], len=8\n"
      "    set_flag MTE2, V, 0\n"
      "    wait_flag MTE2, V, 0\n"
      "    vadds.f16 ub[1024], ub[0], 1.0\n"
      "    copy_gm_ub ub[0], X[256], len=8\n"  // missing: V -> MTE2 before reusing ub[0]
      "    set_flag MTE2, V, 1\n"
      "    wait_flag MTE2, V, 1\n"
      "    barrier V\n"
      "    vadds.f16 ub[1280], ub[0], 1.0\n"
      "    set_flag V, MTE3, 0\n"
      "    wait_flag V, MTE3, 0\n"
      "    copy_ub_gm X[512], ub[1024], len=16\n");
  // Without V -> MTE2 nothing orders the second load after the read (WAR), nor after the first
  // load (WAW, same pipe): both are reported.
  expect_only(c, Diagnostic::Kind::Race);
  bool war = false;
  for (const Diagnostic& d : c.report.diagnostics) {
    if (d.line != line_of(c, "copy_gm_ub ub[0], X[256]") || c.program.code[d.other].line != line_of(c, "vadds")) continue;
    war = true;
    EXPECT_THAT(d.message, HasSubstr("writes ub bytes [0, 256) that `vadds.f16 ub[1024], ub[0], 1.0`"));
    EXPECT_THAT(d.message, HasSubstr("set_flag V, MTE2"));
  }
  EXPECT_TRUE(war) << "the write-after-read was not reported";
}

TEST(Checker, RaceIsFoundEvenWhenTimingHidesIt) {
  // A long vector instruction makes the copy finish long before the read, yet nothing orders them.
  Checked c = check(
      "    copy_gm_ub ub[0], X[0], len=1\n"
      "    vexp.f16 ub[8192], ub[4096], repeat=255\n"
      "    vadds.f16 ub[256], ub[0], 1.0, mask=16\n");
  const Diagnostic* race = find(c, Diagnostic::Kind::Race);
  ASSERT_NE(race, nullptr);
  EXPECT_EQ(race->line, line_of(c, "vadds"));
}

// Two races on one range: V and MTE2 both write ub[1024, 1536) unordered, then V reads it after a
// `barrier V`, ordered after V's write but not MTE2's. The second race is reported whichever write
// the timing took last (here the V write, delayed by a vdup): the shadow keeps the MTE2 write
// beside it, since the first race's fix (a V -> MTE2 flag) orders it after, not before, the vmin.
TEST(Checker, ARaceBehindAnotherOnTheSameBytesIsReported) {
  const std::string writes =
      "    copy_gm_ub ub[0], X[0], len=128\n    barrier ALL\n"
      "    vdup.f16 ub[1536], 1.0, repeat=2\n"
      "    vmin.f16 ub[1024], ub[512], ub[512], repeat=2\n";
  const std::string read = "    barrier V\n    vsub.f16 ub[3584], ub[2560], ub[1024], repeat=2\n";
  Checked both = check(writes + "    copy_gm_ub ub[1024], X[1536], len=16\n" + read);
  expect_only(both, Diagnostic::Kind::Race);
  ASSERT_EQ(both.report.diagnostics.size(), 2u);
  for (const Diagnostic& d : both.report.diagnostics) EXPECT_EQ(print_instr(both.program, both.program.code[d.other]).substr(0, 4), d.line == line_of(both, "vsub") ? "copy" : "vmin");
  // With the first race fixed, the second alone.
  Checked second = check(writes + "    set_flag V, MTE2, 0\n    wait_flag V, MTE2, 0\n    copy_gm_ub ub[1024], X[1536], len=16\n" + read);
  expect_race(second, "copy_gm_ub ub[1024]", "vsub", "ub bytes [1024, 1536)");
  // With both fixed, nothing.
  Checked fixed = check(writes + "    set_flag V, MTE2, 0\n    wait_flag V, MTE2, 0\n    copy_gm_ub ub[1024], X[1536], len=16\n" +
                        "    set_flag MTE2, V, 1\n    wait_flag MTE2, V, 1\n" + read);
  for (const Diagnostic& d : fixed.report.diagnostics) ADD_FAILURE() << format_diagnostic(fixed.program, d);
}

// The mirror: MTE2's write first in program order, V's unordered after it, then V reads after
// `barrier V`. One race: its fix (an MTE2 -> V flag before the vmin) orders the copy before the
// read too, so the read is not told apart.
TEST(Checker, AReadBehindARaceItsFixOrdersIsNotReportedAgain) {
  Checked c = check("    copy_gm_ub ub[0], X[0], len=16\n    vmin.f16 ub[0], ub[1024], ub[1024], repeat=2\n"
                    "    barrier V\n    vsub.f16 ub[3584], ub[2560], ub[0], repeat=2\n");
  std::string all;
  for (const Diagnostic& d : c.report.diagnostics) all += format_diagnostic(c.program, d) + "\n";
  std::vector<const Diagnostic*> races;
  for (const Diagnostic& d : c.report.diagnostics)
    if (d.kind == Diagnostic::Kind::Race) races.push_back(&d);
  ASSERT_EQ(races.size(), 1u) << all;
  EXPECT_EQ(races[0]->line, line_of(c, "vmin")) << all;
}

TEST(Checker, BlocksWritingTheSameGmBytes) {
  Checked c = check(
      "    vdup.f16 ub[0], 1.0\n"
      "    set_flag V, MTE3, 0\n"
      "    wait_flag V, MTE3, 0\n"
      "    copy_ub_gm X[0], ub[0], len=8\n",
      2);
  expect_only(c, Diagnostic::Kind::Race);
  std::string text = format_diagnostic(c.program, *find(c, Diagnostic::Kind::Race));
  EXPECT_THAT(text, HasSubstr("tensor X bytes [0, 256)"));
  EXPECT_THAT(text, HasSubstr("blocks 0 and 1 run in no fixed order"));
}

// A read of what another block writes: atomic adds would not order it, so they are not offered.
TEST(Checker, BlocksReadingWhatAnotherWritesAreNotToldToAddAtomically) {
  Checked c = check(
      "    block_idx x1\n"
      "    bne x1, 0, L1\n"
      "    copy_gm_ub ub[0], X[0], len=8\n"
      "    end\n"
      "L1:\n"
      "    vdup.f16 ub[0], 1.0\n"
      "    set_flag V, MTE3, 0\n"
      "    wait_flag V, MTE3, 0\n"
      "    copy_ub_gm X[0], ub[0], len=8\n",
      2);
  expect_only(c, Diagnostic::Kind::Race);
  std::string text = format_diagnostic(c.program, *find(c, Diagnostic::Kind::Race));
  EXPECT_THAT(text, HasSubstr("blocks 0 and 1 run in no fixed order: a block may read only what no other block"));
  EXPECT_THAT(text, testing::Not(HasSubstr("atomic")));
}

TEST(Checker, BlocksAddingAtomicallyDoNotRace) {
  Checked c = check(
      "    vdup.f32 ub[0], 1.0\n"
      "    set_flag V, MTE3, 0\n"
      "    wait_flag V, MTE3, 0\n"
      "    copy_ub_gm Y[0], ub[0], len=8, atomic=f32\n",
      4);
  for (const Diagnostic& d : c.report.diagnostics) ADD_FAILURE() << format_diagnostic(c.program, d);
}

// A vector instruction's repeats run in order: a later repeat reads what an earlier one wrote (dst
// a repeat past src) is initialised; a repeat that reads what only a later one writes is not.
// (Its reads were all checked before its writes: the first was a false alarm.)
TEST(Checker, ARepeatReadsWhatAnEarlierRepeatWrote) {
  const std::string load =
      "    copy_gm_ub ub[0], Y[0], len=32\n"
      "    set_flag MTE2, V, 0\n"
      "    wait_flag MTE2, V, 0\n";
  const std::string store =
      "    set_flag V, MTE3, 0\n"
      "    wait_flag V, MTE3, 0\n"
      "    copy_ub_gm Y[0], ub[1024], len=40\n";
  Checked behind = check(load + "    vadds.f32 ub[1024], ub[0], 1.5, repeat=5\n" + store);  // repeat 4 reads repeat 0's
  for (const Diagnostic& d : behind.report.diagnostics) ADD_FAILURE() << format_diagnostic(behind.program, d);
  // Half loaded: repeats 2 and 3 read ub[512, 1024), which nothing writes; repeats 4 and 5 read
  // what repeats 0 and 1 wrote.
  Checked half = check("    copy_gm_ub ub[0], Y[0], len=16\n    set_flag MTE2, V, 0\n    wait_flag MTE2, V, 0\n"
                       "    vadds.f32 ub[1024], ub[0], 1.5, repeat=6\n" + store);
  expect_only(half, Diagnostic::Kind::Uninitialized);
  for (const Diagnostic& d : half.report.diagnostics) {
    const std::string text = format_diagnostic(half.program, d);
    EXPECT_THAT(text, testing::AnyOf(HasSubstr("reads ub bytes [512, 768)"), HasSubstr("reads ub bytes [768, 1024)"),
                                     HasSubstr("reads ub bytes [512, 1024)"))) << text;
  }
  Checked ahead = check(load + "    vadds.f32 ub[0], ub[256], 1.5, repeat=5\n" + store);  // repeats 3, 4 read ub[1024, 1536)
  expect_only(ahead, Diagnostic::Kind::Uninitialized);
  EXPECT_THAT(format_diagnostic(ahead.program, *find(ahead, Diagnostic::Kind::Uninitialized)),
              HasSubstr("reads ub bytes [1024, 1536) that nothing has written"));
}

// An atomic add reads the bytes it adds to: into an output or a workspace nothing has written
// (the host gives neither), it adds to garbage on the hardware.
TEST(Checker, AtomicAddIntoUnwrittenMemory) {
  const std::string add =
      "    vdup.f32 ub[0], 1.0\n"
      "    set_flag V, MTE3, 0\n"
      "    wait_flag V, MTE3, 0\n"
      "    copy_ub_gm Y[0], ub[0], len=8, atomic=f32\n";
  for (const char* role : {"out", "workspace"}) {
    Checked c = check(add, 2, role);
    ASSERT_NE(find(c, Diagnostic::Kind::Uninitialized), nullptr) << role;  // (an output also left unwritten past 256 bytes)
    std::string text = format_diagnostic(c.program, *find(c, Diagnostic::Kind::Uninitialized));
    EXPECT_THAT(text, HasSubstr("adds atomically into tensor Y bytes [0, 256) that nothing has written")) << role;
    EXPECT_THAT(text, HasSubstr("write them first (zeros, for a sum)")) << role;
  }
  // Zeroed first, then added to after the barrier that orders them: clean.
  Checked zeroed = check(
      "    vdup.f32 ub[0], 0.0\n"
      "    set_flag V, MTE3, 0\n"
      "    wait_flag V, MTE3, 0\n"
      "    copy_ub_gm Y[0], ub[0], len=8\n"
      "    barrier MTE3\n"
      "    vdup.f32 ub[256], 1.0\n"
      "    set_flag V, MTE3, 1\n"
      "    wait_flag V, MTE3, 1\n"
      "    copy_ub_gm Y[0], ub[256], len=8, atomic=f32\n",
      1, "workspace");
  for (const Diagnostic& d : zeroed.report.diagnostics) ADD_FAILURE() << format_diagnostic(zeroed.program, d);
}

TEST(Checker, BlocksWritingTheirOwnSlicesDoNotRace) {
  Checked c = check(
      "    block_idx x1\n"
      "    mul x1, x1, 256\n"
      "    vdup.f16 ub[0], 1.0\n"
      "    set_flag V, MTE3, 0\n"
      "    wait_flag V, MTE3, 0\n"
      "    copy_ub_gm X[x1], ub[0], len=8\n",
      16);
  for (const Diagnostic& d : c.report.diagnostics) ADD_FAILURE() << format_diagnostic(c.program, d);
}

TEST(Checker, ReadOfUnwrittenMemory) {
  Checked c = check("    vadds.f16 ub[256], ub[0], 1.0\n");
  expect_only(c, Diagnostic::Kind::Uninitialized);
  std::string text = format_diagnostic(c.program, *find(c, Diagnostic::Kind::Uninitialized));
  EXPECT_THAT(text, HasSubstr("reads ub bytes [0, 256) that nothing has written"));
}

TEST(Checker, ReadOfAnOutputTensorBeforeItIsWritten) {
  Checked c = check("    copy_gm_ub ub[0], Y[0], len=8\n", 1, "out");
  ASSERT_NE(find(c, Diagnostic::Kind::Uninitialized), nullptr);
  EXPECT_THAT(find(c, Diagnostic::Kind::Uninitialized)->message, HasSubstr("tensor Y bytes [0, 256)"));
  ASSERT_NE(find(c, Diagnostic::Kind::Unwritten), nullptr);  // and nothing wrote it at all
  EXPECT_EQ(c.report.diagnostics.size(), 2u);
}

// An `out` tensor comes back to the host whole: bytes no instruction wrote are a diagnostic of
// their own (the host would get GM's zeros), with the tensor, the count and the first element.
TEST(Checker, OutputTensorLeftPartlyUnwritten) {
  // 4096 f32 is 16 KB; the loop stores 15 of its 16 KB (a tile loop one short).
  Checked c = check("    vdup.f32 ub[0], 1.0, repeat=16\n"
                    "    set_flag V, MTE3, 0\n"
                    "    wait_flag V, MTE3, 0\n"
                    "    li x1, 0\n"
                    "loop:\n"
                    "    copy_ub_gm Y[x1], ub[0], len=32\n"
                    "    add x1, x1, 1024\n"
                    "    blt x1, 15360, loop\n",
                    1, "out");
  expect_only(c, Diagnostic::Kind::Unwritten);
  const Diagnostic& d = *find(c, Diagnostic::Kind::Unwritten);
  EXPECT_EQ(d.index, -1);
  EXPECT_EQ(d.core, -1);
  EXPECT_THAT(d.message, HasSubstr("output tensor Y (f32 [4096]): the kernel never wrote 1024 of its 16384 bytes, in 1 "
                                   "range, the first elements [3840] to [4095] (bytes 15360 to 16383)"));
  EXPECT_THAT(d.message, HasSubstr("declare it `inout`"));
  EXPECT_THAT(format_diagnostic(c.program, d), HasSubstr("k.s: error: unwritten: the run: output tensor Y"));
}

TEST(Checker, OutputTensorWrittenWholeOrInoutReportsNothing) {
  const std::string store = "    vdup.f32 ub[0], 1.0, repeat=64\n"
                            "    set_flag V, MTE3, 0\n"
                            "    wait_flag V, MTE3, 0\n"
                            "    copy_ub_gm Y[0], ub[0], len=512\n";
  for (Checked c : {check(store, 1, "out"), check("    copy_gm_ub ub[0], X[0], len=8\n", 1, "inout")})
    for (const Diagnostic& d : c.report.diagnostics) ADD_FAILURE() << format_diagnostic(c.program, d);
}

TEST(Checker, OutputTensorNothingWroteNamesItsWholeSize) {
  Checked c = check("    copy_gm_ub ub[0], X[0], len=8\n", 1, "out");
  expect_only(c, Diagnostic::Kind::Unwritten);
  EXPECT_THAT(find(c, Diagnostic::Kind::Unwritten)->message,
              HasSubstr("never wrote 16384 of its 16384 bytes, in 1 range, the first elements [0] to [4095]"));
}

// Blocks store their own quarter of Y; a launch of 3 of the program's 4 leaves the last quarter,
// and the message says the launch was short.
TEST(Checker, OutputTensorOfAShortLaunchSaysSo) {
  const std::string text = ".kernel k\n.block_dim 4\n.tensor Y f32 [4096] out\n"
                           "    block_idx x1\n"
                           "    mul x1, x1, 4096\n"
                           "    vdup.f32 ub[0], 1.0, repeat=16\n"
                           "    set_flag V, MTE3, 0\n"
                           "    wait_flag V, MTE3, 0\n"
                           "    copy_ub_gm Y[x1], ub[0], len=128\n"
                           "    end\n";
  Program p = parse_program(text, "k.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  Report all = simulate(load_chip("ascend910"), p, gm).report;
  for (const Diagnostic& d : all.diagnostics) ADD_FAILURE() << format_diagnostic(p, d);
  GlobalMemory gm3 = GlobalMemory::for_program(p);
  Report three = simulate(load_chip("ascend910"), p, gm3, {.blocks = 3}).report;
  ASSERT_EQ(three.diagnostics.size(), 1u);
  EXPECT_THAT(three.diagnostics[0].message,
              HasSubstr("never wrote 4096 of its 16384 bytes, in 1 range, the first elements [3072] to [4095]"));
  EXPECT_THAT(three.diagnostics[0].message, HasSubstr("this launch ran 3 of the program's 4 blocks (.block_dim)"));
}

// A run that hangs leaves its outputs unwritten as a symptom: the deadlock alone is reported.
TEST(Checker, DeadlockedRunReportsNoUnwrittenOutput) {
  Checked c = check("    wait_flag MTE2, V, 0\n", 1, "out");
  expect_only(c, Diagnostic::Kind::Deadlock);
}

TEST(Checker, DeadlockNamesTheWaitAndTheFlag) {
  Checked c = check(
      "    wait_flag MTE3, V, 0\n"  // nothing ever sets MTE3 -> V
      "    vdup.f16 ub[0], 1.0\n");
  expect_only(c, Diagnostic::Kind::Deadlock);
  const Diagnostic& d = *find(c, Diagnostic::Kind::Deadlock);
  EXPECT_THAT(d.message, HasSubstr("pipe V waits at instruction 0 (line 4) `wait_flag MTE3, V, 0` for flag MTE3->V event 0, "
                                   "and nothing left to run will set it"));
}

TEST(Checker, DeadlockOnAFullQueue) {
  // V waits for a flag that MTE2 sets only after 40 more V instructions have been issued: S fills
  // V's queue (depth 32) and never reaches the set_flag.
  std::string body = "    wait_flag MTE2, V, 0\n";
  for (int i = 0; i < 40; ++i) body += "    vdup.f16 ub[0], 1.0\n";
  body += "    set_flag MTE2, V, 0\n";
  Checked c = check(body);
  const Diagnostic* d = find(c, Diagnostic::Kind::Deadlock);
  ASSERT_NE(d, nullptr);
  EXPECT_THAT(d->message, HasSubstr("S waits for a free slot in V's queue (depth 32)"));
}

}  // namespace
}  // namespace cubekit
