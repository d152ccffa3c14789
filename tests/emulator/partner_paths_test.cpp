// The 950's paths into the partner core of a group: the cube core's FixPipe writing a vector core's
// UB (L0C -> UB, `fixpipe ... ub[...], sub=S`) and a vector core writing its cube core's L1
// (UB -> L1, `copy_ub_l1`). Each program is checked against values computed here, in the timing
// model and in program order; a missing cross-core flag is reported as a race between the two
// cores; the chips without the path refuse the instruction; a program of one kind that writes a
// partner's buffer, and a `sub` past the group's vector cores, are user errors.
#include "emulator/error.h"
#include "emulator/rounding.h"
#include "emulator/simulator.h"
#include "harness.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

namespace cubekit {
namespace {

using testing::HasSubstr;

const ChipConfig& chip950() {
  static const ChipConfig c = load_chip("ascend950pr");
  return c;
}

std::string without_line(std::string text, std::string_view line) {
  const size_t at = text.find(std::string("    ") + std::string(line) + "\n");
  EXPECT_NE(at, std::string::npos) << line;
  return text.erase(at, line.size() + 5);
}

std::string mnemonic_at(const Program& p, int index) {
  if (index < 0 || index >= int(p.code.size())) return "?";
  const std::string text = print_instr(p, p.code[size_t(index)]);
  return text.substr(0, text.find(' '));
}

std::string diagnostics(const Program& p, const std::vector<Diagnostic>& ds) {
  std::string out;
  for (const Diagnostic& d : ds) out += format_diagnostic(p, d) + "\n";
  return out;
}

// C = 2 (A x B): the cube core computes A x B (32 x 64 by 64 x 32, as the hand-written mixed
// example) and its FixPipe puts rows 0-15 into vector core 0's UB and rows 16-31 into vector core
// 1's; each doubles its rows and writes them to C.
// The cube core's half of both programs below: A x B (32 x 64 by 64 x 32), its FixPipe putting rows
// 0-15 into vector core 0's UB and rows 16-31 into vector core 1's, then one cross-core flag.
const std::string kCubeFixpipesToUb = R"(cube:
    copy_gm_l1_nd2nz.f16 l1[0], A[0], rows=32, cols=64, src_stride=64, dst_rows=32
    copy_gm_l1_nd2nz.f16 l1[4096], B[0], rows=64, cols=32, src_stride=32, dst_rows=64
    set_flag MTE2, MTE1, 0
    wait_flag MTE2, MTE1, 0
    load2d.f16 l0a[0], l1[0], repeat=4, src_stride=2
    load2d.f16 l0a[2048], l1[512], repeat=4, src_stride=2
    load2d.f16 l0b[0], l1[4096], repeat=2, src_stride=4, transpose
    load2d.f16 l0b[1024], l1[4608], repeat=2, src_stride=4, transpose
    load2d.f16 l0b[2048], l1[5120], repeat=2, src_stride=4, transpose
    load2d.f16 l0b[3072], l1[5632], repeat=2, src_stride=4, transpose
    set_flag MTE1, M, 0
    wait_flag MTE1, M, 0
    mmad.f16 l0c[0], l0a[0], l0b[0], m=32, n=32, k=64, init
    set_flag M, FIX, 0
    wait_flag M, FIX, 0
    fixpipe.f32.f32 ub[0], l0c[0], m=16, n=32, src_stride=32, dst_stride=32, sub=0
    fixpipe.f32.f32 ub[0], l0c[1024], m=16, n=32, src_stride=32, dst_stride=32, sub=1
    set_cross FIX, mode=2, id=0
    end
)";

const std::string kFixpipeToUb = R"(.kernel fixpipe_to_ub
.tensor A f16 [32, 64] in
.tensor B f16 [64, 32] in
.tensor C f32 [32, 32] out
.entry aic cube
.entry aiv vec
)" + kCubeFixpipesToUb + R"(vec:
    subblock_idx x1
    mul x2, x1, 2048
    wait_cross V, id=0
    vmuls.f32 ub[4096], ub[0], 2.0, repeat=8
    set_flag V, MTE3, 0
    wait_flag V, MTE3, 0
    copy_ub_gm C[x2], ub[4096], len=64
    end
)";

std::vector<float> product(GlobalMemory& gm, int m, int n, int k) {
  std::vector<uint16_t> a = test::gm_values<uint16_t>(gm, "A"), b = test::gm_values<uint16_t>(gm, "B");
  std::vector<float> c(size_t(m * n));
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float acc = 0;  // mmad's contract: f32, one rounding per step, k increasing
      for (int kk = 0; kk < k; ++kk) acc += f16_to_f32(a[size_t(i * k + kk)]) * f16_to_f32(b[size_t(kk * n + j)]);
      c[size_t(i * n + j)] = acc;
    }
  return c;
}

TEST(PartnerPaths, TheFixPipeWritesAVectorCoresUb) {
  for (bool in_order : {false, true}) {
    Program p = parse_program(kFixpipeToUb, "fix.s");
    GlobalMemory gm = GlobalMemory::for_program(p);
    gm.fill_inputs(3);
    std::vector<Diagnostic> ds;
    if (in_order) ds = run_in_order(chip950(), p, gm).diagnostics;
    else ds = simulate(chip950(), p, gm).report.diagnostics;
    EXPECT_TRUE(ds.empty()) << diagnostics(p, ds);
    std::vector<float> want = product(gm, 32, 32, 64), got = test::gm_values<float>(gm, "C");
    for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], 2 * want[i]) << "C[" << i << "] in order: " << in_order;
  }
}

TEST(PartnerPaths, TheWriteCountsOnTheCubeCoresPath) {
  Program p = parse_program(kFixpipeToUb, "fix.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  gm.fill_inputs(3);
  Report r = simulate(chip950(), p, gm).report;
  EXPECT_EQ(r.bytes[int(DataPath::L0cToUb)], 32 * 32 * 4);
  // Each fixpipe moves 16 x 32 f32 at the 950 cube core's l0c->ub rate.
  const double rate = chip950().kind(CoreKind::Aic)->path(Space::L0C, Space::UB)->rate;
  EXPECT_EQ(int64_t(r.per_core[0].pipes[int(Pipe::FIX)].busy), 2 * int64_t(std::ceil(16 * 32 * 4 / rate)));
}

TEST(PartnerPaths, AWriteIntoUbWithoutTheCrossCoreFlagIsARace) {
  std::string text = kFixpipeToUb;
  text.erase(text.find("    wait_cross V, id=0\n"), std::string("    wait_cross V, id=0\n").size());
  Program p = parse_program(text, "fix.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  gm.fill_inputs(3);
  Report r = simulate(chip950(), p, gm).report;
  const Diagnostic* race = nullptr;
  for (const Diagnostic& d : r.diagnostics)
    if (d.kind == Diagnostic::Kind::Race) race = &d;
  ASSERT_NE(race, nullptr) << diagnostics(p, r.diagnostics);
  std::string text_of = format_diagnostic(p, *race);
  EXPECT_THAT(text_of, HasSubstr("ub"));
  EXPECT_THAT(text_of, HasSubstr("fixpipe.f32.f32"));
  EXPECT_THAT(text_of, HasSubstr("set_cross"));
}

// C = (X + 1) x B: both vector cores add 1 to a 16 x 16 f16 fractal of X and put it into their
// cube core's L1 (rows 0-15 from vector core 0, 16-31 from 1: the NZ column block of A, 32 x 16);
// the cube core multiplies it by B (16 x 32) once both have signalled.
const char* kUbToL1 = R"(.kernel ub_to_l1
.tensor X f16 [32, 16] in
.tensor B f16 [16, 32] in
.tensor C f32 [32, 32] out
.entry aic cube
.entry aiv vec
cube:
    copy_gm_l1_nd2nz.f16 l1[4096], B[0], rows=16, cols=32, src_stride=32, dst_rows=16
    set_flag MTE2, MTE1, 0
    wait_flag MTE2, MTE1, 0
    wait_cross MTE1, id=1
    load2d.f16 l0a[0], l1[0], repeat=2, src_stride=1
    load2d.f16 l0b[0], l1[4096], repeat=2, src_stride=1, transpose
    set_flag MTE1, M, 0
    wait_flag MTE1, M, 0
    mmad.f16 l0c[0], l0a[0], l0b[0], m=32, n=32, k=16, init
    set_flag M, FIX, 0
    wait_flag M, FIX, 0
    fixpipe.f32.f32 C[0], l0c[0], m=32, n=32, src_stride=32, dst_stride=32
    end
vec:
    subblock_idx x1
    mul x2, x1, 512
    copy_gm_ub ub[0], X[x2], len=16
    set_flag MTE2, V, 0
    wait_flag MTE2, V, 0
    vadds.f16 ub[512], ub[0], 1.0, repeat=2
    set_flag V, MTE3, 0
    wait_flag V, MTE3, 0
    copy_ub_l1 l1[x2], ub[512], len=16
    set_cross MTE3, mode=2, id=1
    end
)";

// (In program order a mixed block's cube core runs before its vector cores: what they put into its
// L1 arrives after it ran, so this one is checked in the timing model only.)
TEST(PartnerPaths, AVectorCoreWritesItsCubeCoresL1) {
  {
    Program p = parse_program(kUbToL1, "l1.s");
    GlobalMemory gm = GlobalMemory::for_program(p);
    gm.fill_inputs(5);
    std::vector<Diagnostic> ds = simulate(chip950(), p, gm).report.diagnostics;
    EXPECT_TRUE(ds.empty()) << diagnostics(p, ds);
    std::vector<uint16_t> x = test::gm_values<uint16_t>(gm, "X"), b = test::gm_values<uint16_t>(gm, "B");
    std::vector<float> c = test::gm_values<float>(gm, "C");
    for (int i = 0; i < 32; ++i)
      for (int j = 0; j < 32; ++j) {
        float acc = 0;
        for (int k = 0; k < 16; ++k)
          acc += f16_to_f32(f32_to_f16(f16_to_f32(x[size_t(i * 16 + k)]) + 1.0f)) * f16_to_f32(b[size_t(k * 32 + j)]);
        ASSERT_EQ(c[size_t(i * 32 + j)], acc) << "C(" << i << ", " << j << ")";
      }
  }
}

// A race's leading "core N, instruction I" is the core that ran I, also when the buffer is the
// partner's: here the vector cores' copy_ub_l1 into their cube core's L1.
TEST(PartnerPaths, ARaceOnThePartnersBufferNamesTheCoreThatRanTheInstruction) {
  Program p = parse_program(without_line(kUbToL1, "wait_cross MTE1, id=1"), "l1.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  gm.fill_inputs(5);
  Report r = simulate(chip950(), p, gm).report;
  int copies = 0;
  for (const Diagnostic& d : r.diagnostics) {
    if (d.kind != Diagnostic::Kind::Race) continue;
    const std::string text = format_diagnostic(p, d);
    ASSERT_EQ(mnemonic_at(p, d.index), "copy_ub_l1") << text;
    ASSERT_EQ(mnemonic_at(p, d.other), "load2d.f16") << text;
    copies += int(d.repeats);  // one diagnostic for the instruction both run, counted twice
    EXPECT_NE(d.core, 0) << text;  // core 0 is the cube core, whose L1 it is; the copy runs on an AIV
    EXPECT_THAT(text, HasSubstr(fmt::format("core {}, instruction {} `copy_ub_l1", d.core, d.index)));
    EXPECT_THAT(text, HasSubstr(fmt::format("(pipe MTE3, core {}) writes l1", d.core)));
    // The cube core read L1 before the copy wrote it: it should wait for the copy.
    EXPECT_THAT(text, HasSubstr(fmt::format("`wait_cross MTE1, id=N` before the read on core 0")));
  }
  EXPECT_EQ(copies, 2) << diagnostics(p, r.diagnostics);  // one per vector core
}

// C = relu(A x B + bias): the FixPipe puts each vector core's rows into its UB (as kFixpipeToUb)
// and the vector cores add a bias they load first, which makes their vadd come after the FixPipe.
const std::string kFixpipeThenBias = R"(.kernel l0c_ub
.tensor A f16 [32, 64] in
.tensor B f16 [64, 32] in
.tensor bias f32 [32] in
.tensor C f16 [32, 32] out
.entry aic cube
.entry aiv vec
)" + kCubeFixpipesToUb + R"(vec:
    subblock_idx x1
    mul x3, x1, 1024
    copy_gm_ub ub[4096], bias[0], len=4
    copy_gm_ub ub[4224], bias[0], len=4
    set_flag MTE2, V, 0
    wait_flag MTE2, V, 0
    wait_cross V, id=0
    vadd.f32 ub[0], ub[0], ub[4096], repeat=8, src1_rep=0
    barrier V
    vrelu.f32 ub[0], ub[0], repeat=8
    barrier V
    vconv.f16.f32 ub[8192], ub[0], repeat=8, dst_rep=4
    set_flag V, MTE3, 0
    wait_flag V, MTE3, 0
    copy_ub_gm C[x3], ub[8192], len=32
    end
)";

// The wait on the wrong pipe (MTE2, not V) leaves each vadd unordered after the FixPipe's write
// into its UB, which ran first: each vector core's vadd reads that write (README: the partner's
// write is checked against the partner's shadow like a GM write, in time order), and the fix is a
// wait_cross on V before it. Nothing reports the FixPipe as overwriting what the vector cores
// computed after it, and every diagnostic names the core that ran its instruction.
TEST(PartnerPaths, AReadAfterTheFixPipesUnorderedWriteIsAReadOfIt) {
  std::string text = kFixpipeThenBias;
  text.replace(text.find("wait_cross V, id=0"), std::string("wait_cross V, id=0").size(), "wait_cross MTE2, id=0");
  Program p = parse_program(text, "fix.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  gm.fill_inputs(3);
  Report r = simulate(chip950(), p, gm).report;
  const std::string all = diagnostics(p, r.diagnostics);
  int first_fixpipe = 0;
  while (mnemonic_at(p, first_fixpipe) != "fixpipe.f32.f32") ++first_fixpipe;
  std::vector<int> vadds_reported;
  for (const Diagnostic& d : r.diagnostics) {
    ASSERT_EQ(d.kind, Diagnostic::Kind::Race) << all;
    const std::string t = format_diagnostic(p, d);
    EXPECT_EQ(mnemonic_at(p, d.index), "vadd.f32") << t;
    EXPECT_EQ(mnemonic_at(p, d.other), "fixpipe.f32.f32") << t;
    ASSERT_TRUE(d.core == 1 || d.core == 2) << t;  // the AIVs (core 0 is the AIC)
    // Vector core sub=s (core 1 + s) reads the write of the FixPipe with sub=s, the (s+1)-th.
    EXPECT_EQ(d.other, first_fixpipe + d.core - 1) << t;
    EXPECT_THAT(t, HasSubstr(fmt::format("(pipe V, core {}) reads ub bytes [0, 2048)", d.core))) << t;
    EXPECT_THAT(t, HasSubstr(fmt::format("`set_cross FIX, mode=2, id=N` after the first on core 0 and "
                                         "`wait_cross V, id=N` before the second on core {}", d.core)))
        << t;
    vadds_reported.push_back(d.core);
  }
  std::sort(vadds_reported.begin(), vadds_reported.end());
  EXPECT_EQ(vadds_reported, (std::vector<int>{1, 2})) << all;
}

// The 950 with one group: blocks 0 and 1 both run on AIC 0 and its AIVs, one after the other.
ChipConfig one_group_950() {
  ChipConfig c = chip950();
  c.cores = 1;
  return c;
}

// Two blocks on one group reusing the vector cores' UB: the FixPipe of block 1 writes rows into it
// (with relu) while block 0's vector cores may still read it (a long spin first); the
// `block 1 waits` lines are the handshake that orders it after them.
const char* kReusedUb = R"(.kernel reuse
.block_dim 2
.tensor A f16 [32, 64] in
.tensor B f16 [64, 32] in
.tensor bias f32 [32] in
.tensor C f16 [64, 32] out
.entry aic cube
.entry aiv vec
cube:
    copy_gm_l1_nd2nz.f16 l1[0], A[0], rows=32, cols=64, src_stride=64, dst_rows=32
    copy_gm_l1_nd2nz.f16 l1[4096], B[0], rows=64, cols=32, src_stride=32, dst_rows=64
    set_flag MTE2, MTE1, 0
    wait_flag MTE2, MTE1, 0
    load2d.f16 l0a[0], l1[0], repeat=4, src_stride=2
    load2d.f16 l0a[2048], l1[512], repeat=4, src_stride=2
    load2d.f16 l0b[0], l1[4096], repeat=2, src_stride=4, transpose
    load2d.f16 l0b[1024], l1[4608], repeat=2, src_stride=4, transpose
    load2d.f16 l0b[2048], l1[5120], repeat=2, src_stride=4, transpose
    load2d.f16 l0b[3072], l1[5632], repeat=2, src_stride=4, transpose
    set_flag MTE1, M, 0
    wait_flag MTE1, M, 0
    mmad.f16 l0c[0], l0a[0], l0b[0], m=32, n=32, k=64, init
    set_flag M, FIX, 0
    wait_flag M, FIX, 0
    block_idx x8
    beq x8, 0, first
    wait_cross FIX, id=3      # block 1 waits
first:
    fixpipe.f32.f32 ub[0], l0c[0], m=16, n=32, src_stride=32, dst_stride=32, sub=0
    fixpipe.f32.f32 ub[0], l0c[1024], m=16, n=32, src_stride=32, dst_stride=32, sub=1
    set_cross FIX, mode=2, id=0
    end
vec:
    subblock_idx x1
    mul x3, x1, 1024
    block_idx x7
    mul x7, x7, 2048
    add x3, x3, x7
    copy_gm_ub ub[4096], bias[0], len=4
    copy_gm_ub ub[4224], bias[0], len=4
    set_flag MTE2, V, 0
    wait_flag MTE2, V, 0
    wait_cross V, id=0
    li x9, 0
spin:
    vadds.f32 ub[16384], ub[0], 0.0, repeat=8
    barrier V
    add x9, x9, 1
    blt x9, 100, spin
    vadd.f32 ub[0], ub[0], ub[4096], repeat=8, src1_rep=0
    barrier V
    vrelu.f32 ub[0], ub[0], repeat=8
    barrier V
    vconv.f16.f32 ub[8192], ub[0], repeat=8, dst_rep=4
    block_idx x10
    bne x10, 0, last
    set_cross V, mode=2, id=3   # block 1 waits
last:
    set_flag V, MTE3, 0
    wait_flag V, MTE3, 0
    copy_ub_gm C[x3], ub[8192], len=32
    end
)";

// With the handshake the run is clean: a core's blocks run one after another, so its later block's
// accesses of its own buffers follow the earlier block's.
TEST(PartnerPaths, BlocksOfOneGroupReuseTheVectorCoresUbAfterAHandshake) {
  Program p = parse_program(kReusedUb, "reuse.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  gm.fill_inputs(3);
  Report r = simulate(one_group_950(), p, gm).report;
  EXPECT_TRUE(r.diagnostics.empty()) << diagnostics(p, r.diagnostics);
}

// Without it, block 1's FixPipe overwrites what block 0's vector cores still use: that race alone,
// told in block order (block 0's accesses, then block 1's write) with the handshake as its fix. No
// advice names flags from a core to itself, nor calls the two blocks of one core unordered. Each
// of block 0's uses is told, up to the last read (the vconv), after which the handshake must go:
// the FixPipe's write, which block 0's in-place vadd raced, stays in the shadow beside the vadd's.
TEST(PartnerPaths, AFixPipeOfTheNextBlockOverwritingUbIsTheOnlyRace) {
  std::string text = kReusedUb;
  for (const char* line : {"    wait_cross FIX, id=3      # block 1 waits\n", "    set_cross V, mode=2, id=3   # block 1 waits\n"})
    text.erase(text.find(line), std::string(line).size());
  Program p = parse_program(text, "reuse.s");
  GlobalMemory gm = GlobalMemory::for_program(p);
  gm.fill_inputs(3);
  Report r = simulate(one_group_950(), p, gm).report;
  const std::string all = diagnostics(p, r.diagnostics);
  ASSERT_FALSE(r.diagnostics.empty());
  for (const Diagnostic& d : r.diagnostics) {
    const std::string t = format_diagnostic(p, d);
    ASSERT_EQ(d.kind, Diagnostic::Kind::Race) << all;
    EXPECT_EQ(mnemonic_at(p, d.index), "fixpipe.f32.f32") << t;
    EXPECT_EQ(d.core, 0) << t;
    EXPECT_THAT(t, HasSubstr("(pipe FIX, block 1, core 0) writes ub bytes [0, 2048)")) << t;
    EXPECT_THAT(t, HasSubstr("in block 0 on core")) << t;
    EXPECT_THAT(t, testing::AnyOf(HasSubstr("`vadds.f32"), HasSubstr("`vadd.f32"), HasSubstr("`vrelu.f32"),
                                  HasSubstr("`vconv.f16.f32"))) << t;
    EXPECT_THAT(t, HasSubstr("`set_cross V, mode=2, id=N` after the first on core")) << t;
    EXPECT_THAT(t, HasSubstr("`wait_cross FIX, id=N` before the second on core 0")) << t;
    EXPECT_THAT(t, testing::Not(HasSubstr("give each its own part"))) << t;
    for (int c = 0; c < 3; ++c) EXPECT_THAT(t, testing::Not(HasSubstr(fmt::format("cores {0} and {0}", c)))) << t;
  }
  EXPECT_THAT(all, HasSubstr("`vconv.f16.f32")) << "the last read, after which the handshake goes";
}

TEST(PartnerPaths, OnlyChipsWithThePathHaveThem) {
  // The 910B2's cube and vector cores share no buffer: both instructions are refused, naming the path.
  for (const std::string& text : {kFixpipeToUb, std::string(kUbToL1)}) {
    Program p = parse_program(text, "p.s");
    GlobalMemory gm = GlobalMemory::for_program(p);
    try {
      simulate(load_chip("ascend910b2"), p, gm);
      ADD_FAILURE() << "ran on ascend910b2";
    } catch (const UserError& e) {
      EXPECT_THAT(e.what(), HasSubstr("cannot run on ascend910b2"));
      EXPECT_THAT(e.what(), testing::AnyOf(HasSubstr("data path l0c->ub"), HasSubstr("data path ub->l1")));
      EXPECT_THAT(e.what(), HasSubstr("ascend950pr"));
    }
  }
}

}  // namespace
}  // namespace cubekit
