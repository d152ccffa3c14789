// The timing model against cycle counts derived here, independently, from the ChipConfig formulas
// (simulator.h), and its determinism.
#include "emulator/simulator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

namespace cubekit {
namespace {

std::string example(const char* name) {
  return (std::filesystem::path(CUBEKIT_SOURCE_DIR) / "examples/asm" / name).string();
}

int64_t cdiv(double a, double b) { return int64_t(std::ceil(a / b)); }
// Cycles of peak work at a unit's sustained efficiency (cube_efficiency, vector_efficiency).
int64_t sustained(int64_t cycles, double efficiency) { return int64_t(std::ceil(double(cycles) / efficiency - 1e-9)); }
// When the first block's S starts: after the launch and the block's dispatch.
int64_t start(const TimingConfig& t) { return t.launch_cycles + t.block_dispatch_cycles; }
// The ascend910's rate of a data path (its coupled core's).
double rate(Space src, Space dst) { return load_chip("ascend910").kinds.front().path(src, dst)->rate; }

struct Sim {
  Program program;
  GlobalMemory gm;
  SimResult result;
};

Sim run(const std::string& path, SimOptions options = {}, uint64_t seed = 7) {
  Sim s{load_program(path), {}, {}};
  s.gm = GlobalMemory::for_program(s.program);
  s.gm.fill_inputs(seed);
  s.result = simulate(load_chip("ascend910"), s.program, s.gm, options);
  return s;
}

// examples/asm/matmul_f16.s is a straight line: every stage waits for the previous one through a
// flag, so its cycle count follows from the costs and from when S dispatched each instruction.
TEST(Timing, FoundationMatmulMatchesTheFormulas) {
  const TimingConfig t = load_chip("ascend910").timing;
  const int64_t line = t.l2_line_bytes;
  const double hbm = std::min(t.gm_read_hbm_rate, t.hbm_rate * t.hbm_efficiency);  // one core uses HBM
  const int64_t gm_over = t.gm_transfer_overhead_cycles;  // every GM transfer (issue 11: short transfers)
  // S dispatches one instruction per cycle; instruction k of the program (counting loop
  // iterations) is ready one cycle after its dispatch. Positions from the program's structure:
  // 4 instructions, li + 8 x {mul mul load2d add blt}, li + 8 x {mul add mul load2d add blt},
  // set wait mmad set wait mov set wait, li + 8 x {mul mul copy add blt}.
  auto ready = [&](int64_t dispatched) { return start(t) + dispatched + t.scalar_cycles; };  // after the launch
  // MTE2: two 32 KiB matrices, all L2 misses (64 lines each).
  int64_t nd2nz_occ = cdiv(64 * line, hbm) + gm_over;
  int64_t a_start = ready(0), b_start = std::max(ready(1), a_start + nd2nz_occ);
  int64_t mte2_done = std::max(a_start, b_start) + t.l2_miss_latency + nd2nz_occ;
  // MTE1: 8 load2d of 8 fractals into L0A, then 8 into L0B.
  int64_t a_occ = cdiv(8 * 512, rate(Space::L1, Space::L0A)), b_occ = cdiv(8 * 512, rate(Space::L1, Space::L0B));
  int64_t next = mte2_done;
  for (int j = 0; j < 8; ++j) next = std::max<int64_t>(next, ready(5 + 2 + 5 * j)) + a_occ;
  int64_t last_b = 0;
  for (int j = 0; j < 8; ++j) last_b = std::max<int64_t>(next, ready(46 + 3 + 6 * j)), next = last_b + b_occ;
  int64_t mte1_done = last_b + t.mte1_latency + b_occ;
  int64_t mmad_done = mte1_done + t.cube_latency + sustained(8 * 8 * 8, t.cube_efficiency);
  int64_t mov_done = mmad_done + t.vector_latency + cdiv(65536, rate(Space::L0C, Space::UB));
  // MTE3: 8 strips of 128 x 64 B.
  int64_t copy_occ = cdiv(8192, rate(Space::UB, Space::GM)) + gm_over;
  int64_t last_copy = mov_done;
  for (int j = 0; j < 8; ++j) last_copy = std::max<int64_t>(last_copy + (j ? copy_occ : 0), ready(105 + 5 * j));
  int64_t expected = last_copy + t.gm_write_latency + copy_occ;

  Sim s = run(example("matmul_f16.s"));
  EXPECT_TRUE(s.result.report.clean());
  EXPECT_EQ(int64_t(s.result.report.cycles), expected);
  EXPECT_EQ(s.result.report.pipes[int(Pipe::M)].busy, uint64_t(sustained(512, t.cube_efficiency)));  // cube_efficiency
  EXPECT_EQ(s.result.report.pipes[int(Pipe::MTE2)].busy, uint64_t(2 * nd2nz_occ));
}

// The two K-loop examples, tile by tile: when each pipe can start a tile is the latest of what it
// waits for (its own previous work, the flags of the other pipes). S is left out: it runs ahead.
int64_t kloop_cycles(const TimingConfig& t, bool double_buffered) {
  const int64_t line = t.l2_line_bytes;
  const double hbm = std::min(t.gm_read_hbm_rate, t.hbm_rate * t.hbm_efficiency);
  const int64_t gm_over = t.gm_transfer_overhead_cycles, mmad = sustained(512, t.cube_efficiency);
  const int lag = double_buffered ? 2 : 1;  // the tile whose slot this one reuses
  int64_t mte2_next = start(t) + 1, mte1_next = start(t), cube_done = 0;  // after the launch
  std::vector<int64_t> mte1_done(8), mmad_done(8);
  for (int i = 0; i < 8; ++i) {
    // A's tile is 128 rows of 256 B, each in a line of its own that the next tile's rows share:
    // even tiles miss those 128 lines, odd tiles hit them. B's tile is 64 fresh lines.
    int64_t a_lat = i % 2 ? t.l2_hit_latency : t.l2_miss_latency;
    int64_t a_occ = (i % 2 ? cdiv(32768, rate(Space::GM, Space::L1)) : cdiv(128 * line, hbm)) + gm_over;
    int64_t b_occ = cdiv(64 * line, hbm) + gm_over;
    int64_t sa = std::max(mte2_next, i >= lag ? mte1_done[i - lag] : 0);
    int64_t sb = sa + a_occ;
    mte2_next = sb + b_occ;
    int64_t loaded = std::max(sa + a_lat + a_occ, sb + t.l2_miss_latency + b_occ);
    int64_t s1 = std::max({loaded, i >= lag ? mmad_done[i - lag] : 0, mte1_next});
    int64_t last_b = s1 + 8 * cdiv(4096, rate(Space::L1, Space::L0A)) + 7 * cdiv(4096, rate(Space::L1, Space::L0B));
    mte1_next = last_b + cdiv(4096, rate(Space::L1, Space::L0B));
    mte1_done[i] = mte1_next + t.mte1_latency;
    mmad_done[i] = std::max(mte1_done[i], cube_done) + t.cube_latency + mmad;
    cube_done = mmad_done[i];
  }
  int64_t mov_done = cube_done + t.vector_latency + cdiv(65536, rate(Space::L0C, Space::UB));
  int64_t copy = cdiv(8192, rate(Space::UB, Space::GM)) + gm_over;
  return mov_done + 7 * copy + t.gm_write_latency + copy;
}

TEST(Timing, DoubleBufferingIsFasterByTheDerivedRatio) {
  const TimingConfig t = load_chip("ascend910").timing;
  int64_t single = kloop_cycles(t, false), dbl = kloop_cycles(t, true);
  Sim a = run(example("matmul_f16_kloop.s")), b = run(example("matmul_f16_db.s"));
  ASSERT_TRUE(a.result.report.clean());
  ASSERT_TRUE(b.result.report.clean());
  double got_single = double(a.result.report.cycles), got_double = double(b.result.report.cycles);
  // The derivation leaves out the scalar unit's dispatch, worth a few cycles in 20000.
  EXPECT_NEAR(got_single, double(single), 0.001 * double(single));
  EXPECT_NEAR(got_double, double(dbl), 0.001 * double(dbl));
  double derived_ratio = double(single) / double(dbl), ratio = got_single / got_double;
  EXPECT_GT(ratio, 1.15);
  EXPECT_NEAR(ratio, derived_ratio, 0.002 * derived_ratio);
  std::printf("single-buffered %.0f cycles, double-buffered %.0f: %.3fx faster (derived %.3fx)\n", got_single,
              got_double, ratio, derived_ratio);
}

TEST(Timing, ResultsEqualTheInOrderModel) {
  for (const char* name : {"matmul_f16.s", "matmul_f16_kloop.s", "matmul_f16_db.s"}) {
    Sim s = run(example(name));
    GlobalMemory in_order = GlobalMemory::for_program(s.program);
    in_order.fill_inputs(7);
    RunResult r = run_in_order(load_chip("ascend910"), s.program, in_order);
    EXPECT_TRUE(r.clean()) << name;
    EXPECT_TRUE(s.result.report.clean()) << name;
    EXPECT_EQ(s.gm.data, in_order.data) << name;
  }
}

TEST(Timing, IdenticalForAnyNumberOfHostThreads) {
  // 40 blocks on 32 cores, sharing L2 and HBM, all writing one C (racy, so the data depends on
  // the order of the cores' writes -- which must still not depend on the threads).
  SimOptions one{.blocks = 40, .threads = 1}, two{.blocks = 40, .threads = 2};
  Sim a = run(example("matmul_f16_db.s"), one), b = run(example("matmul_f16_db.s"), two);
  EXPECT_EQ(a.result.report.cycles, b.result.report.cycles);
  ASSERT_EQ(a.result.report.per_core.size(), b.result.report.per_core.size());
  for (size_t c = 0; c < a.result.report.per_core.size(); ++c)
    EXPECT_EQ(a.result.report.per_core[c].cycles, b.result.report.per_core[c].cycles) << "core " << c;
  EXPECT_EQ(a.result.report.l2_hit_lines, b.result.report.l2_hit_lines);
  EXPECT_EQ(a.gm.data, b.gm.data);
  ASSERT_EQ(a.result.report.diagnostics.size(), b.result.report.diagnostics.size());
  for (size_t k = 0; k < a.result.report.diagnostics.size(); ++k)
    EXPECT_EQ(a.result.report.diagnostics[k].message, b.result.report.diagnostics[k].message);
}

TEST(Timing, CoresShareWhatTheyReadThroughL2) {
  // One block alone against 32 blocks that read the same A and B in lockstep: each line comes
  // from HBM once and the others merge with its fill, so HBM traffic does not grow, and nobody
  // finishes before HBM could deliver the data. Merging cores wait for HBM's delivery, not for the
  // requester's own (per-core) share of HBM, so the requester changes from chunk to chunk and the
  // 32 may finish sooner than one alone, which moves every line at its own share.
  Sim one = run(example("matmul_f16_db.s"), {.blocks = 1, .checks = false});
  Sim many = run(example("matmul_f16_db.s"), {.blocks = 32, .checks = false});
  const Report &a = one.result.report, &b = many.result.report;
  EXPECT_GT(b.l2_hit_rate + b.l2_merge_rate, 0.9);  // merged fills are reported apart from hits now
  EXPECT_EQ(b.l2_miss_lines, a.l2_miss_lines);
  const TimingConfig t = load_chip("ascend910").timing;
  double delivery = double(b.l2_miss_lines * t.l2_line_bytes) / (t.hbm_rate * t.hbm_efficiency);
  EXPECT_GE(double(b.cycles), delivery + t.launch_cycles);
  EXPECT_LE(double(b.cycles), 1.1 * double(a.cycles));
}

TEST(Timing, CoresThatAllStreamCompeteForHbm) {
  // Every block reads its own 32 KiB row panel of a big tensor: HBM serves them all, at the chip's
  // rate, so 32 blocks take longer per block than one.
  const char* text = R"(.kernel stream
.block_dim 32
.tensor X f16 [32, 1048576] in
    block_idx x1
    mul x1, x1, 2097152
    li x2, 0
next:
    copy_gm_ub ub[0], X[x1], len=1024
    add x1, x1, 32768
    add x2, x2, 1
    blt x2, 64, next
    end
)";
  Program p = parse_program(text);
  GlobalMemory gm = GlobalMemory::for_program(p);
  ChipConfig chip = load_chip("ascend910");
  SimResult one = simulate(chip, p, gm, {.blocks = 1, .timing_only = true});
  SimResult all = simulate(chip, p, gm, {.blocks = 32, .timing_only = true});
  // 64 x 32 KiB per block: one core is limited by its own HBM rate (and the transfers' overhead
  // and the launch), 32 by the chip's sustained HBM rate.
  const TimingConfig& t = chip.timing;
  double bytes = 64.0 * 32768;
  double one_want = bytes / t.gm_read_hbm_rate + 64 * t.gm_transfer_overhead_cycles + start(t);
  EXPECT_NEAR(double(one.report.cycles), one_want, 0.05 * one_want);
  double hbm = t.hbm_rate * t.hbm_efficiency;
  EXPECT_NEAR(double(all.report.cycles), 32 * bytes / hbm, 0.05 * 32 * bytes / hbm);
}

TEST(Timing, TimingOnlyGivesTheSameCycles) {
  Sim full = run(example("matmul_f16_db.s"));
  Sim fast = run(example("matmul_f16_db.s"), {.timing_only = true});
  EXPECT_EQ(full.result.report.cycles, fast.result.report.cycles);
  EXPECT_TRUE(fast.result.report.timing_only);
  bool untouched = true;
  for (uint8_t byte : fast.gm.bytes("C")) untouched &= byte == 0;
  EXPECT_TRUE(untouched) << "timing-only must not compute data";
}

TEST(Timing, ReportNamesRatiosAsMsprofDoes) {
  Sim s = run(example("matmul_f16_db.s"));
  const Report& r = s.result.report;
  EXPECT_EQ(ratio_name(Pipe::M), "mac_ratio");
  EXPECT_EQ(ratio_name(Pipe::V), "vec_ratio");
  const TimingConfig& t = load_chip("ascend910").timing;  // the cube busy at its sustained rate
  EXPECT_NEAR(r.ratio[int(Pipe::M)], double(8 * sustained(512, t.cube_efficiency)) / double(r.cycles), 1e-12);
  EXPECT_EQ(r.bytes[int(DataPath::GmToL1)], 2 * 8 * 32768);
  EXPECT_EQ(r.roofline.cube_cycles, 8u * 512u);
  EXPECT_EQ(r.roofline.limiter, "cube");
  EXPECT_NEAR(r.roofline.efficiency, double(8 * 512) / double(r.cycles), 1e-12);
  ASSERT_FALSE(r.hot_spots.empty());
  EXPECT_EQ(spec_of(s.program.code[r.hot_spots[0].index]).mnemonic, "copy_gm_l1_nd2nz");
}

}  // namespace
}  // namespace cubekit
