// The checker on flags and footprints: event ids, a flag set again before (or in the very cycle)
// its wait took the first signal, flags left set, the bytes a bit-pattern mask and a load3d window
// really touch -- and the correct programs beside each reporting nothing.
#include "checker_util.h"
#include "emulator/simulator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace cubekit {
namespace {

using namespace checker_test;  // NOLINT: the shared helpers
using testing::HasSubstr;

TEST(Checker, EventIdOutOfRange) {
  Checked c = check("    set_flag MTE2, V, 5\n    wait_flag MTE2, V, 5\n");
  expect_only(c, Diagnostic::Kind::Sync);
  EXPECT_THAT(c.report.diagnostics[0].message, HasSubstr("event id 5 is out of range: ascend910 has event ids 0-3"));
  EXPECT_EQ(c.report.diagnostics[0].line, line_of(c, "set_flag"));
}

TEST(Checker, FlagSetTwiceBeforeItsWait) {
  Checked c = check("    set_flag MTE2, V, 1\n    set_flag MTE2, V, 1\n    wait_flag MTE2, V, 1\n    wait_flag MTE2, V, 1\n");
  const Diagnostic* d = find(c, Diagnostic::Kind::Sync);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->line, line_of(c, "set_flag", 1));
  EXPECT_THAT(d->message, HasSubstr("set again before a wait_flag consumed the set at instruction 0 (line 4)"));
}

// One doubled set with one wait is one problem, once: the flag holds one signal, so nothing is
// left set at the end to count as a repeat of the same set_flag.
TEST(Checker, FlagSetTwiceWithOneWaitIsReportedOnce) {
  Checked c = check("    set_flag MTE2, V, 0\n    set_flag MTE2, V, 0\n    wait_flag MTE2, V, 0\n");
  expect_only(c, Diagnostic::Kind::Sync);
  ASSERT_EQ(c.report.diagnostics.size(), 1u);
  EXPECT_EQ(c.report.diagnostics[0].repeats, 1);
  EXPECT_THAT(c.report.diagnostics[0].message, HasSubstr("set again before a wait_flag consumed"));
}

// Whether a set finds its flag still set is a question of simulated time, not program order.
// Waits written before their sets, on a vector pipe still busy with earlier work: both sets fire
// before the first wait takes a signal, so the second is lost (a probe's program; the checker once
// matched sets to waits in issue order and called this clean).
TEST(Checker, FlagSetTwiceWhileItsWaitingPipeIsBusy) {
  Checked c = check(
      "    vdup.f16 ub[8192], 1.0, repeat=255\n"
      "    vdup.f16 ub[73728], 1.0, repeat=255\n"
      "    vdup.f16 ub[139264], 1.0, repeat=255\n"
      "    wait_flag MTE2, V, 0\n"
      "    vadd.f16 ub[1024], ub[0], ub[0], repeat=2\n"
      "    wait_flag MTE2, V, 0\n"
      "    vadd.f16 ub[1536], ub[512], ub[512], repeat=2\n"
      "    copy_gm_ub ub[0], X[0], len=16\n"
      "    set_flag MTE2, V, 0\n"
      "    copy_gm_ub ub[512], X[256], len=16\n"
      "    set_flag MTE2, V, 0\n");
  expect_only(c, Diagnostic::Kind::Sync);
  ASSERT_EQ(c.report.diagnostics.size(), 1u);
  EXPECT_EQ(c.report.diagnostics[0].line, line_of(c, "set_flag", 1));
  EXPECT_THAT(c.report.diagnostics[0].message, HasSubstr("set again before a wait_flag consumed the set at instruction 8"));
}

// ... and a second set ordered after the first wait through a flag back from the waiting pipe
// loses nothing, although in program order it comes before that wait (the probe's other program,
// once reported as a lost signal).
TEST(Checker, FlagSetAgainAfterAnAcknowledgedWaitIsClean) {
  Checked c = check(
      "    copy_gm_ub ub[0], X[0], len=16\n"
      "    set_flag MTE2, V, 0\n"
      "    wait_flag V, MTE2, 1\n"
      "    copy_gm_ub ub[512], X[256], len=16\n"
      "    set_flag MTE2, V, 0\n"
      "    wait_flag MTE2, V, 0\n"
      "    vadd.f16 ub[1024], ub[0], ub[0], repeat=2\n"
      "    set_flag V, MTE2, 1\n"
      "    wait_flag MTE2, V, 0\n"
      "    vadd.f16 ub[1536], ub[512], ub[512], repeat=2\n");
  for (const Diagnostic& d : c.report.diagnostics) ADD_FAILURE() << format_diagnostic(c.program, d);
}

// Two sets back to back, after a copy: both fire in the cycle the copy completes, the cycle the first
// wait takes the signal. Nothing orders the second after that wait: on hardware it races it (a probe's
// program, once clean because the tie did not count as "before").
TEST(Checker, FlagSetTwiceInTheCycleItsWaitTakesTheFirst) {
  Checked c = check(
      "    copy_gm_ub ub[0], X[0], len=16\n"
      "    set_flag MTE2, V, 0\n"
      "    set_flag MTE2, V, 0\n"
      "    wait_flag MTE2, V, 0\n"
      "    wait_flag MTE2, V, 0\n"
      "    vadd.f16 ub[1024], ub[0], ub[0], repeat=2\n");
  expect_only(c, Diagnostic::Kind::Sync);
  EXPECT_EQ(c.report.diagnostics[0].line, line_of(c, "set_flag", 1));
  EXPECT_THAT(c.report.diagnostics[0].message, HasSubstr("set again before a wait_flag consumed the set at instruction 1"));
}

// ... while the same tie after a flag back from the waiting pipe is a correct ping-pong: the flag
// instructions take no cycles, so the acknowledged second set fires in the cycle of the wait.
TEST(Checker, FlagSetAgainInTheCycleOfAnAcknowledgedWaitIsClean) {
  Checked c = check(
      "    copy_gm_ub ub[0], X[0], len=16\n"
      "    set_flag MTE2, V, 0\n"
      "    wait_flag V, MTE2, 1\n"
      "    set_flag MTE2, V, 0\n"
      "    wait_flag MTE2, V, 0\n"
      "    set_flag V, MTE2, 1\n"
      "    wait_flag MTE2, V, 0\n"
      "    vadd.f16 ub[1024], ub[0], ub[0], repeat=2\n");
  for (const Diagnostic& d : c.report.diagnostics) ADD_FAILURE() << format_diagnostic(c.program, d);
}

// A bit-pattern mask with inactive low elements: they are neither read nor written (its footprint
// once ran from element 0, so a read of them later was clean and another pipe's write to them a race).
TEST(Checker, InactiveLowElementsOfABitMaskAreNotWritten) {
  Checked c = check(
      "    vdup.f32 ub[0], 2.0, mask=0x0:0xffffffff00000000\n"  // elements 32..63: bytes [128, 256)
      "    set_flag V, MTE3, 0\n"
      "    wait_flag V, MTE3, 0\n"
      "    copy_ub_gm Y[0], ub[0], len=8\n");
  expect_only(c, Diagnostic::Kind::Uninitialized);
  EXPECT_THAT(c.report.diagnostics[0].message, HasSubstr("reads ub bytes [0, 128) that nothing has written"));
}

TEST(Checker, AnotherPipesWriteToInactiveElementsIsNoRace) {
  Checked c = check(
      "    copy_gm_ub ub[0], X[0], len=4\n"                      // MTE2: bytes [0, 128)
      "    vdup.f32 ub[0], 2.0, mask=0x0:0xffffffff00000000\n"  // V: bytes [128, 256)
      "    set_flag MTE2, MTE3, 0\n"
      "    set_flag V, MTE3, 0\n"
      "    wait_flag MTE2, MTE3, 0\n"
      "    wait_flag V, MTE3, 0\n"
      "    copy_ub_gm Y[0], ub[0], len=8\n");
  for (const Diagnostic& d : c.report.diagnostics) ADD_FAILURE() << format_diagnostic(c.program, d);
}

// Two masks that split 32 B blocks between them touch different bytes: no race (the footprint was
// whole blocks, and a probe's tail block split between two masked writes was reported as a race).
TEST(Checker, MasksThatSplitABlockDoNotRace) {
  Checked c = check(
      "    vdup.f16 ub[0], 1.0, mask=0x0:0x00ff00ff00ff00ff\n"  // the low 16 B of blocks 0-3
      "    vdup.f16 ub[0], 2.0, mask=0x0:0xff00ff00ff00ff00\n"  // their high 16 B: unordered, apart
      "    set_flag V, MTE3, 0\n"
      "    wait_flag V, MTE3, 0\n"
      "    copy_ub_gm X[0], ub[0], len=4\n");
  for (const Diagnostic& d : c.report.diagnostics) ADD_FAILURE() << format_diagnostic(c.program, d);
}

TEST(Checker, MaskedWritesRaceOnTheBytesBothTouch) {
  Checked c = check(
      "    vdup.f16 ub[0], 1.0, mask=0x0:0x6\n"   // elements 1-2: bytes [2, 6)
      "    copy_gm_ub ub[0], X[0], len=1\n"       // MTE2: bytes [0, 32), unordered with V
      "    barrier ALL\n"
      "    copy_ub_gm X[0], ub[0], len=1\n");
  expect_only(c, Diagnostic::Kind::Race);
  EXPECT_THAT(c.report.diagnostics[0].message, HasSubstr("ub bytes [2, 6)"));
}

TEST(Checker, ABlocksInactiveBytesStayUnwritten) {
  Checked c = check(
      "    vdup.f32 ub[0], 2.0, mask=0x0:0x0f0f0f0f\n"  // elements 0-3 of blocks 0-3: [0, 16), [32, 48), ..
      "    set_flag V, MTE3, 0\n"
      "    wait_flag V, MTE3, 0\n"
      "    copy_ub_gm Y[0], ub[0], len=1\n");  // bytes [0, 32)
  expect_only(c, Diagnostic::Kind::Uninitialized);
  EXPECT_THAT(c.report.diagnostics[0].message, HasSubstr("reads ub bytes [16, 32) that nothing has written"));
}

// More runs of distinct block patterns than a footprint holds: each run of active blocks with the
// union of its blocks' bytes, so a race on bytes active in every block is still found.
TEST(Checker, AMaskOfManyBlockPatternsStillFindsItsRaces) {
  Checked c = check(
      "    copy_gm_ub ub[0], X[0], len=8\n"                           // MTE2: [0, 256)
      "    vdup.f16 ub[0], 1.0, mask=0x0:0x01020408102040ff\n"  // 8 blocks, 5 patterns (over 4 runs)
      "    barrier ALL\n"
      "    copy_ub_gm X[0], ub[0], len=8\n");
  expect_only(c, Diagnostic::Kind::Race);
}

// vcgadd writes one result per block with an active element: the others stay unwritten.
TEST(Checker, PerBlockResultsOfInactiveBlocksAreNotWritten) {
  Checked c = check(
      "    vdup.f32 ub[0], 1.0, repeat=1\n"
      "    barrier V\n"
      "    vcgadd.f32 ub[256], ub[0], mask=0x0:0xff00000000000000\n"  // block 7 alone: result 7
      "    set_flag V, MTE3, 0\n"
      "    wait_flag V, MTE3, 0\n"
      "    copy_ub_gm Y[0], ub[256], len=1\n");
  expect_only(c, Diagnostic::Kind::Uninitialized);
  EXPECT_THAT(c.report.diagnostics[0].message, HasSubstr("reads ub bytes [256, 284) that nothing has written"));
}

// load3d reads the rows under its window's positions, not the whole feature map: a row band loaded
// for the next window while this one runs is no race (a probe's pipeline, once reported as one).
TEST(Checker, Load3dReadsTheRowsUnderItsWindowAlone) {
  const std::string text =
      ".kernel l3b\n.tensor F f16 [1, 8, 4, 16] in\n.tensor Wt f16 [16, 16] in\n.tensor C f32 [32, 16] out\n"
      "    copy_gm_l1 l1[4096], Wt[0], len=16\n"
      "    copy_gm_l1 l1[0], F[0], len=16\n"      // rows 0-3
      "    set_flag MTE2, MTE1, 0\n"
      "    copy_gm_l1 l1[512], F[512], len=16\n"  // rows 4-7, while the first window loads
      "    set_flag MTE2, MTE1, 1\n"
      "    set_fmatrix h=8, w=4\n"
      "    wait_flag MTE2, MTE1, 0\n"
      "    load3d.f16 l0a[0], l1[0], c1=1, kh=1, kw=1, m_start=0, m_len=16, k_len=16\n"
      "    load2d.f16 l0b[0], l1[4096]\n"
      "    wait_flag MTE2, MTE1, 1\n"
      "    load3d.f16 l0a[512], l1[0], c1=1, kh=1, kw=1, m_start=16, m_len=16, k_len=16\n"
      "    set_flag MTE1, M, 0\n"
      "    wait_flag MTE1, M, 0\n"
      "    mmad.f16 l0c[0], l0a[0], l0b[0], m=16, n=16, k=16, init\n"
      "    mmad.f16 l0c[1024], l0a[512], l0b[0], m=16, n=16, k=16, init\n"
      "    set_flag M, V, 0\n"
      "    wait_flag M, V, 0\n"
      "    mov_l0c_ub.f32.f32 ub[0], l0c[0], len=2\n"
      "    set_flag V, MTE3, 0\n"
      "    wait_flag V, MTE3, 0\n"
      "    copy_ub_gm C[0], ub[0], len=32\n"
      "    copy_ub_gm C[1024], ub[1024], len=32\n"
      "    end\n";
  Program p = parse_program(text, "l3b.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  gm.fill_inputs(1);
  Report r = simulate(load_chip("ascend910"), p, gm, {}).report;
  for (const Diagnostic& d : r.diagnostics) ADD_FAILURE() << format_diagnostic(p, d);
  // Without the second copy's flag the second window's rows are a race again.
  std::string racy = text;
  racy.erase(racy.find("    wait_flag MTE2, MTE1, 1\n"), std::string_view("    wait_flag MTE2, MTE1, 1\n").size());
  racy.erase(racy.find("    set_flag MTE2, MTE1, 1\n"), std::string_view("    set_flag MTE2, MTE1, 1\n").size());
  Program q = parse_program(racy, "l3b.s");
  GlobalMemory gq = GlobalMemory::for_program(q);
  gq.fill_inputs(1);
  Report rq = simulate(load_chip("ascend910"), q, gq, {}).report;
  ASSERT_FALSE(rq.diagnostics.empty());
  EXPECT_EQ(rq.diagnostics[0].kind, Diagnostic::Kind::Race) << format_diagnostic(q, rq.diagnostics[0]);
  EXPECT_THAT(rq.diagnostics[0].message, HasSubstr("reads l1 bytes [512, 1024)"));
}

TEST(Checker, FlagStillSetAtTheEnd) {
  Checked c = check("    set_flag MTE2, MTE3, 2\n");
  expect_only(c, Diagnostic::Kind::Sync);
  EXPECT_THAT(c.report.diagnostics[0].message, HasSubstr("flag MTE2->MTE3 event 2 is still set when block 0 ends"));
  EXPECT_EQ(c.report.diagnostics[0].line, line_of(c, "set_flag"));
}

}  // namespace
}  // namespace cubekit
