// Cross-core flags on ascend910b2: each mode exchanging data through a GM workspace, checked
// against values computed here; a missing set or wait reported as a race, a deadlock or a sync
// error naming the core; the counter's bound; the flag's latency on the critical path; and
// results that do not depend on host threads.
#include "emulator/emulator.h"
#include "emulator/simulator.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

namespace cubekit {
namespace {

using testing::HasSubstr;

struct Ran {
  Program program;
  GlobalMemory gm;
  Report report;
};

Ran run(const std::string& text, int threads = 1, const ChipConfig& chip = load_chip("ascend910b2")) {
  Ran r{parse_program(text, "cross.s"), {}, {}};
  r.gm = GlobalMemory::for_program(r.program);
  r.gm.fill_inputs(7);
  r.report = simulate(chip, r.program, r.gm, {.threads = threads}).report;
  return r;
}

std::vector<float> floats(Ran& r, const std::string& tensor) {
  const std::vector<uint8_t>& b = r.gm.bytes(tensor);
  std::vector<float> v(b.size() / 4);
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

std::string diagnostics(const Ran& r) {
  std::string out;
  for (const Diagnostic& d : r.report.diagnostics) out += format_diagnostic(r.program, d) + "\n";
  return out;
}

const Diagnostic* find(const Ran& r, Diagnostic::Kind kind) {
  for (const Diagnostic& d : r.report.diagnostics)
    if (d.kind == kind) return &d;
  return nullptr;
}

// Deletes the first line of `text` that starts (after indentation) with `prefix`.
std::string without(std::string text, std::string_view prefix) {
  size_t at = text.find("\n    " + std::string(prefix));
  EXPECT_NE(at, std::string::npos) << prefix;
  size_t end = text.find('\n', at + 1);
  return text.erase(at, end - at);
}

// ---- mode 1: the two AIVs of a group swap halves through a workspace ------------------------------

// Block b (an AIV; a vector-only kernel runs on the AIVs) writes W's half b = 2 X[half b], then
// reads the other half, which the other AIV wrote, and writes Y's half b = that + 1.
const std::string kPair = R"(.kernel pair
.block_dim 2
.tensor X f32 [128] in
.tensor W f32 [128] out
.tensor Y f32 [128] out
    block_idx x1
    mul x2, x1, 256
    li x3, 256
    sub x3, x3, x2
    copy_gm_ub ub[0], X[x2], len=8
    set_flag MTE2, V, 0
    wait_flag MTE2, V, 0
    vmuls.f32 ub[256], ub[0], 2.0
    set_flag V, MTE3, 0
    wait_flag V, MTE3, 0
    copy_ub_gm W[x2], ub[256], len=8
    set_cross MTE3, mode=1, id=3
    wait_cross MTE2, id=3
    copy_gm_ub ub[512], W[x3], len=8
    set_flag MTE2, V, 1
    wait_flag MTE2, V, 1
    vadds.f32 ub[768], ub[512], 1.0
    set_flag V, MTE3, 1
    wait_flag V, MTE3, 1
    copy_ub_gm Y[x2], ub[768], len=8
    end
)";

TEST(CrossCore, Mode1AivsExchangeHalvesThroughGm) {
  Ran r = run(kPair);
  EXPECT_TRUE(r.report.clean()) << diagnostics(r);
  std::vector<float> x = floats(r, "X"), y = floats(r, "Y");
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 64; ++i) {
      float w = 2.0f * x[size_t((1 - b) * 64 + i)];
      ASSERT_EQ(y[size_t(b * 64 + i)], w + 1.0f) << "block " << b << " element " << i;
    }
}

TEST(CrossCore, AMissingWaitIsARaceNamingBothCores) {
  Ran r = run(without(kPair, "wait_cross"));
  const Diagnostic* race = find(r, Diagnostic::Kind::Race);
  ASSERT_NE(race, nullptr) << diagnostics(r);
  std::string text = format_diagnostic(r.program, *race);
  EXPECT_THAT(text, HasSubstr("copy_gm_ub ub[512], W[x3]")) << text;  // the read
  EXPECT_THAT(text, HasSubstr("copy_ub_gm W[x2], ub[256]")) << text;  // the other core's write
  EXPECT_THAT(text, HasSubstr("run in no fixed order")) << text;
  EXPECT_THAT(text, HasSubstr(fmt::format("core {}", race->core))) << text;
  EXPECT_THAT(text, HasSubstr(fmt::format("on core {}", 1 - race->core))) << text;  // the other one
  // The two AIVs of one group: their own parts of W, or a mode-1 round (not mode 2, the AIC's).
  EXPECT_THAT(text, HasSubstr("they are the two AIVs of group 0: give each its own part of tensor W")) << text;
  EXPECT_THAT(text, HasSubstr("mode=1, id=N`")) << text;
  // The increment nobody consumed is a sync error on the set.
  const Diagnostic* left = find(r, Diagnostic::Kind::Sync);
  ASSERT_NE(left, nullptr) << diagnostics(r);
  EXPECT_THAT(left->message, HasSubstr("still holds 1 increment when the run ends")) << left->message;
}

TEST(CrossCore, AMissingSetIsADeadlockNamingTheWaitingCore) {
  Ran r = run(without(kPair, "set_cross"));
  // Both cores wait: one diagnostic for the instruction, counted twice, naming the first core.
  ASSERT_EQ(r.report.diagnostics.size(), 1u) << diagnostics(r);
  const Diagnostic& d = r.report.diagnostics[0];
  ASSERT_EQ(d.kind, Diagnostic::Kind::Deadlock) << diagnostics(r);
  EXPECT_EQ(d.repeats, 2);
  EXPECT_THAT(d.message, HasSubstr(fmt::format("pipe MTE2 of core {} (aiv of group 0) waits at instruction 11", d.core)));
  EXPECT_THAT(d.message, HasSubstr("`wait_cross MTE2, id=3` for cross-core flag id 3")) << d.message;
  EXPECT_THAT(d.message, HasSubstr(fmt::format("block {} can make no progress", d.core))) << d.message;
}

// ---- mode 0: every AIV of the launch, two rounds ---------------------------------------------------

// Four AIV blocks. Round 1: block b writes W[b] = X[b] and all meet (mode 0); each then sums
// every W[k] into Y[b]. Round 2: all meet again before block b overwrites W[b] = 3 X[b] (the
// others' reads of round 1 must be done: a write-after-read across cores), meet a third time,
// and each adds W[(b+1) % 4] to its sum.
const std::string kAll = R"(.kernel all
.block_dim 4
.tensor X f32 [256] in
.tensor W f32 [256] out
.tensor Y f32 [256] out
    block_idx x1
    mul x2, x1, 256
    copy_gm_ub ub[0], X[x2], len=8
    set_flag MTE2, MTE3, 0
    wait_flag MTE2, MTE3, 0
    copy_ub_gm W[x2], ub[0], len=8
    set_cross MTE3, mode=0, id=5
    wait_cross MTE2, id=5
    copy_gm_ub ub[1024], W[0], len=32
    set_flag MTE2, V, 0
    wait_flag MTE2, V, 0
    vadd.f32 ub[2048], ub[1024], ub[1280]
    barrier V
    vadd.f32 ub[2048], ub[2048], ub[1536]
    barrier V
    vadd.f32 ub[2048], ub[2048], ub[1792]
    set_cross MTE2, mode=0, id=6
    wait_cross V, id=6
    vmuls.f32 ub[256], ub[0], 3.0
    set_flag V, MTE3, 1
    wait_flag V, MTE3, 1
    copy_ub_gm W[x2], ub[256], len=8
    set_cross MTE3, mode=0, id=5
    add x3, x1, 1
    rem x3, x3, 4
    mul x3, x3, 256
    wait_cross MTE2, id=5
    copy_gm_ub ub[512], W[x3], len=8
    set_flag MTE2, V, 2
    wait_flag MTE2, V, 2
    vadd.f32 ub[2048], ub[2048], ub[512]
    set_flag V, MTE3, 2
    wait_flag V, MTE3, 2
    copy_ub_gm Y[x2], ub[2048], len=8
    end
)";

std::vector<float> expected_all(const std::vector<float>& x) {
  std::vector<float> y(256);
  for (int b = 0; b < 4; ++b)
    for (int i = 0; i < 64; ++i) {
      float s = x[size_t(i)] + x[size_t(64 + i)];
      s = s + x[size_t(128 + i)];
      s = s + x[size_t(192 + i)];
      y[size_t(b * 64 + i)] = s + 3.0f * x[size_t(((b + 1) % 4) * 64 + i)];
    }
  return y;
}

TEST(CrossCore, Mode0SynchronisesEveryAivInRounds) {
  Ran r = run(kAll);
  EXPECT_TRUE(r.report.clean()) << diagnostics(r);
  EXPECT_EQ(floats(r, "Y"), expected_all(floats(r, "X")));
}

// More blocks than cores: the cores that run two blocks set a second mode-0 round the others
// never join. The deadlock says which cores set how often, where it said only that no core set it.
TEST(CrossCore, AnUnfinishedRoundSaysWhoSetItHowOften) {
  Ran r = run(R"(.kernel rounds
.block_dim 56
.tensor X f32 [64] in
    set_cross MTE3, mode=0, id=5
    wait_cross MTE2, id=5
    end
)");
  const Diagnostic* d = find(r, Diagnostic::Kind::Deadlock);
  ASSERT_NE(d, nullptr) << diagnostics(r);
  EXPECT_THAT(d->message, HasSubstr("its mode 0 round 1 (id 5) has 8 of the 48 sets it needs: cores 0-7 set it 2 times, "
                                    "cores 8-47 set it 1 time. A core's k-th set_cross of a mode and id joins round k"));
}

TEST(CrossCore, AWriteAfterOtherCoresReadsNeedsTheRound) {
  // Without the second meeting, block b may overwrite W[b] while the others still read it.
  Ran r = run(without(without(kAll, "set_cross MTE2, mode=0, id=6"), "wait_cross V, id=6"));
  bool across = false;
  for (const Diagnostic& d : r.report.diagnostics) {
    std::string text = format_diagnostic(r.program, d);
    across |= d.kind == Diagnostic::Kind::Race && text.find("copy_gm_ub ub[1024], W[0]") != std::string::npos &&
              text.find("copy_ub_gm W[x2], ub[256]") != std::string::npos &&
              text.find("run in no fixed order") != std::string::npos;
  }
  EXPECT_TRUE(across) << diagnostics(r);
}

TEST(CrossCore, ResultsAndCyclesDoNotDependOnHostThreads) {
  Ran one = run(kAll, 1), two = run(kAll, 2);
  EXPECT_EQ(one.gm.data, two.gm.data);
  EXPECT_EQ(one.report.cycles, two.report.cycles);
  ASSERT_EQ(one.report.per_core.size(), two.report.per_core.size());
  for (size_t c = 0; c < one.report.per_core.size(); ++c)
    EXPECT_EQ(one.report.per_core[c].cycles, two.report.per_core[c].cycles) << c;
  Ran racy1 = run(without(kPair, "wait_cross"), 1), racy2 = run(without(kPair, "wait_cross"), 2);
  EXPECT_EQ(racy1.gm.data, racy2.gm.data);  // even a racy program is deterministic
}

TEST(CrossCore, TheFlagsLatencyIsOnTheCriticalPath) {
  ChipConfig chip = load_chip("ascend910b2");
  Ran base = run(kPair, 1, chip);
  chip.timing.cross_core_latency += 1000;
  Ran slow = run(kPair, 1, chip);
  EXPECT_EQ(slow.report.cycles, base.report.cycles + 1000);
  EXPECT_EQ(floats(slow, "Y"), floats(base, "Y"));
}

// ---- mode 2: the AIVs hand a workspace to their AIC, which hands it back ---------------------------

// Each AIV (subblock s) writes W's half s and signals its AIC (mode 2: once both have set); the
// AIC reads all of W into L1 and signals both AIVs (mode 2), which only then overwrite W.
const std::string kHandoff = R"(.kernel handoff
.entry aic cube
.entry aiv vec
.tensor X f32 [128] in
.tensor W f32 [128] out
cube:
    wait_cross MTE2, id=1
    copy_gm_l1 l1[0], W[0], len=16
    set_cross MTE2, mode=2, id=2
    end
vec:
    subblock_idx x1
    mul x2, x1, 256
    copy_gm_ub ub[0], X[x2], len=8
    set_flag MTE2, MTE3, 0
    wait_flag MTE2, MTE3, 0
    copy_ub_gm W[x2], ub[0], len=8
    set_cross MTE3, mode=2, id=1
    wait_cross MTE3, id=2
    copy_ub_gm W[x2], ub[0], len=8
    end
)";

TEST(CrossCore, Mode2HandsAWorkspaceToTheAicAndBack) {
  Ran r = run(kHandoff);
  EXPECT_TRUE(r.report.clean()) << diagnostics(r);
  EXPECT_EQ(floats(r, "W"), floats(r, "X"));
}

// In program order (run_in_order, `cubekit run --in-order`) a block's AIC runs to its end before
// its AIVs: its wait for their hand-off cannot be kept, and is said (its results were wrong and
// reported clean); the AIVs' wait for the AIC's set is kept.
TEST(CrossCore, InProgramOrderAWaitBeforeItsSetIsSaid) {
  Program p = parse_program(kHandoff, "cross.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  gm.fill_inputs(7);
  RunResult r = run_in_order(load_chip("ascend910b2"), p, gm);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].kind, Diagnostic::Kind::Sync);
  EXPECT_EQ(print_instr(p, p.code[size_t(r.diagnostics[0].index)]), "wait_cross MTE2, id=1");
  EXPECT_THAT(r.diagnostics[0].message, HasSubstr("comes before every set_cross that reaches an aic core"));
  Program kept = parse_program(without(kHandoff, "wait_cross MTE2, id=1"), "cross.s");
  GlobalMemory gm2 = GlobalMemory::for_program(kept);
  gm2.fill_inputs(7);
  EXPECT_TRUE(run_in_order(load_chip("ascend910b2"), kept, gm2).clean());
}

TEST(CrossCore, Mode2WithoutTheAicsWaitIsARaceBetweenCores) {
  Ran r = run(without(kHandoff, "wait_cross MTE2, id=1"));
  const Diagnostic* race = find(r, Diagnostic::Kind::Race);
  ASSERT_NE(race, nullptr) << diagnostics(r);
  std::string text = format_diagnostic(r.program, *race);
  EXPECT_THAT(text, HasSubstr("copy_gm_l1 l1[0], W[0]")) << text;
  EXPECT_THAT(text, HasSubstr("copy_ub_gm W[x2], ub[0]")) << text;
  EXPECT_THAT(text, HasSubstr("cores ")) << text;
  EXPECT_THAT(text, HasSubstr("set_cross")) << text;  // the fix names the cross-core flags
}

TEST(CrossCore, Mode2WithoutTheAivsWaitIsAWriteAfterReadRace) {
  Ran r = run(without(kHandoff, "wait_cross MTE3, id=2"));
  // The AIVs' second write and the AIC's read meet unordered (whichever the timing ran first).
  bool across = false;
  for (const Diagnostic& d : r.report.diagnostics) {
    std::string text = format_diagnostic(r.program, d);
    across |= d.kind == Diagnostic::Kind::Race && text.find("copy_gm_l1 l1[0], W[0]") != std::string::npos &&
              text.find("copy_ub_gm W[x2], ub[0]") != std::string::npos && text.find("cores ") != std::string::npos;
  }
  EXPECT_TRUE(across) << diagnostics(r);
}

// ---- errors the checker reports -------------------------------------------------------------------

// Each AIV copies its part of X to Y after a mode-1 round with the other AIV of its group.
const std::string kMode1Round = R"(.kernel mode1_round
.block_dim 2
.tensor X f32 [128] in
.tensor Y f32 [128] out
    block_idx x1
    mul x2, x1, 256
    copy_gm_ub ub[0], X[x2], len=8
    set_flag MTE2, MTE3, 0
    wait_flag MTE2, MTE3, 0
    set_cross MTE3, mode=1, id=0
    wait_cross MTE3, id=0
    copy_ub_gm Y[x2], ub[0], len=8
    end
)";

// A vector-only launch of one block runs AIV 0 alone (launch.h): its group's other AIV never sets,
// so the mode-1 round never completes (docs/isa.md: "once both AIVs of the group have set"). The
// set is a sync error naming the idle AIV, the wait a deadlock; with both AIVs running it is clean.
TEST(CrossCore, AMode1RoundWithoutThePartnerAivRunningNeverCompletes) {
  Ran both = run(kMode1Round);
  EXPECT_TRUE(both.report.clean()) << diagnostics(both);
  Ran r{parse_program(kMode1Round, "cross.s"), {}, {}};
  r.gm = GlobalMemory::for_program(r.program);
  r.gm.fill_inputs(7);
  r.report = simulate(load_chip("ascend910b2"), r.program, r.gm, {.blocks = 1}).report;
  ASSERT_EQ(r.report.cores, 1) << diagnostics(r);
  const Diagnostic* sync = find(r, Diagnostic::Kind::Sync);
  ASSERT_NE(sync, nullptr) << diagnostics(r);
  EXPECT_EQ(sync->index, 5);  // the set_cross
  EXPECT_THAT(sync->message, HasSubstr("mode 1 completes once both AIVs of group 0 have set id 0, but AIV 1 "
                                       "(subblock 1 of group 0) runs no block of this launch"));
  const Diagnostic* deadlock = find(r, Diagnostic::Kind::Deadlock);
  ASSERT_NE(deadlock, nullptr) << diagnostics(r);
  EXPECT_EQ(deadlock->index, 6);  // the wait_cross
  EXPECT_THAT(deadlock->message, HasSubstr("`wait_cross MTE3, id=0` for cross-core flag id 0"));
}

TEST(CrossCore, Mode1FromACubeCoreIsASyncError) {
  Ran r = run(R"(.kernel k
.entry aic cube
.entry aiv vec
.tensor X f32 [64] in
cube:
    set_cross MTE2, mode=1, id=0
    end
vec:
    end
)");
  const Diagnostic* d = find(r, Diagnostic::Kind::Sync);
  ASSERT_NE(d, nullptr) << diagnostics(r);
  EXPECT_THAT(d->message, HasSubstr("mode 1 synchronises the two AIVs of a group, but an AIC set it"));
}

TEST(CrossCore, ACounterPastSixteenIsASyncError) {
  Ran r = run(R"(.kernel k
.entry aic cube
.entry aiv vec
.tensor X f32 [64] in
cube:
    li x1, 0
again:
    set_cross MTE2, mode=2, id=4
    add x1, x1, 1
    blt x1, 17, again
    end
vec:
    end
)");
  // The 17th set overflows both AIVs' counters (one diagnostic, twice); the 16 left are reported.
  const Diagnostic* d = find(r, Diagnostic::Kind::Sync);
  ASSERT_NE(d, nullptr) << diagnostics(r);
  EXPECT_THAT(d->message, HasSubstr("cross-core flag id 4 of core 1 (aiv, group 0) would hold more than 16 increments"));
  EXPECT_EQ(d->repeats, 2);
  EXPECT_THAT(diagnostics(r), HasSubstr("of core 2 (aiv of group 0) still holds 16 increments when the run ends"));
}

// A launch of vector cores alone: the two AIVs of a group run blocks of their own at the same time,
// so block order says nothing of which access was meant first. Block 1 writes W, block 0 reads it
// later in simulated time: the report is of the read, after the write (it was told backwards, at the
// write, with the advice to make the write wait for the read).
TEST(CrossCore, ARaceBetweenTheAivsOfAVectorLaunchIsToldInTimeOrder) {
  Ran r = run(
      ".kernel x4\n.block_dim 2\n.tensor W f32 [64] workspace\n.tensor C f32 [64] out\n"
      "    block_idx x1\n"
      "    beq x1, 0, reader\n"
      "    vdup.f32 ub[0], 1.0, mask=64\n"
      "    set_flag V, MTE3, 0\n"
      "    wait_flag V, MTE3, 0\n"
      "    copy_ub_gm W[0], ub[0], len=8\n"
      "    end\n"
      "reader:\n"
      "    vdup.f32 ub[0], 1.0, repeat=255, mask=64, dst_rep=0\n"
      "    barrier V\n"
      "    vdup.f32 ub[0], 1.0, repeat=255, mask=64, dst_rep=0\n"
      "    barrier V\n"
      "    vdup.f32 ub[0], 1.0, repeat=255, mask=64, dst_rep=0\n"
      "    set_flag V, MTE2, 0\n"
      "    wait_flag V, MTE2, 0\n"
      "    copy_gm_ub ub[256], W[0], len=8\n"
      "    set_flag MTE2, MTE3, 0\n"
      "    wait_flag MTE2, MTE3, 0\n"
      "    copy_ub_gm C[0], ub[256], len=8\n"
      "    end\n");
  const Diagnostic* d = find(r, Diagnostic::Kind::Race);
  ASSERT_NE(d, nullptr) << diagnostics(r);
  EXPECT_EQ(print_instr(r.program, r.program.code[size_t(d->index)]), "copy_gm_ub ub[256], W[0], len=8") << diagnostics(r);
}

}  // namespace
}  // namespace cubekit
