// The timing model's measured effects (issue 11), each against a figure derived here from the
// ChipConfig fields it is made of: transfer efficiency by length and alignment, HBM efficiency and
// sharing, read/write turnaround, launch and dispatch overhead, the cores' staggered start, the aggregate L2 rate, merged fills
// reported apart from hits (and waiting for HBM's delivery, not the requester's share), HBM's
// row-buffer locality (short strided runs), a capacity cliff gentler than LRU's, write-back once
// per residency of a line, and an L2 read port per core kind (tests/emulator/l2_model_test.cpp
// has the L2 model on its own).
#include "emulator/simulator.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <cstdio>

namespace cubekit {
namespace {

struct Result {
  Program program;
  Report report;
};

Result run(const ChipConfig& chip, const std::string& text, int blocks = 1) {
  Result r{parse_program(text), {}};
  GlobalMemory gm = GlobalMemory::for_program(r.program);
  r.report = simulate(chip, r.program, gm, {.blocks = blocks, .timing_only = true}).report;
  EXPECT_TRUE(r.report.clean()) << text;
  return r;
}

// One core copies `count` transfers of `bytes` each from GM (offset `skew` into X), all different lines.
std::string copies(int64_t bytes, int count, int64_t skew = 0) {
  return fmt::format(R"(.kernel copies
.tensor X f16 [{}] in
    li x1, {}
    li x2, 0
next:
    copy_gm_ub ub[0], X[x1], len={}
    add x1, x1, {}
    add x2, x2, 1
    blt x2, {}, next
    end
)",
                     (bytes + 1024) * count, skew, bytes / 32, bytes + 1024, count);
}

int64_t mte2_busy(const Report& r) { return int64_t(r.pipes[int(Pipe::MTE2)].busy); }

ChipConfig chip() { return load_chip("ascend910"); }

TEST(ModelEffects, AShortTransferCostsMorePerByteThanALongOne) {
  const ChipConfig c = chip();
  const TimingConfig& t = c.timing;
  // 64 transfers of 512 B against 1 of 32 KiB: the same bytes, all from HBM at the core's rate.
  Result small = run(c, copies(512, 64)), large = run(c, copies(32768, 1));
  // Each transfer: its lines (and the one the 1 KiB gap leaves out) at the HBM rate, plus the overhead.
  int64_t small_each = int64_t(std::ceil(512 / t.gm_read_hbm_rate)) + t.gm_transfer_overhead_cycles;
  int64_t large_each = int64_t(std::ceil(32768 / t.gm_read_hbm_rate)) + t.gm_transfer_overhead_cycles;
  EXPECT_EQ(mte2_busy(small.report), 64 * small_each);
  EXPECT_EQ(mte2_busy(large.report), large_each);
  EXPECT_GT(double(mte2_busy(small.report)) / 32768, 1.5 * double(mte2_busy(large.report)) / 32768);
  // The best practices' figure: a 16 KiB transfer reaches about 90% of the streaming rate.
  double at_16k = 16384 / t.gm_read_hbm_rate / (16384 / t.gm_read_hbm_rate + t.gm_transfer_overhead_cycles);
  EXPECT_NEAR(at_16k, 0.90, 0.01);
}

TEST(ModelEffects, AMisalignedBurstIsSlowerThanAnAlignedOne) {
  // The penalty is the 910B's (best practices 10_0014: Atlas A2 only); the ascend910 has none.
  EXPECT_EQ(chip().timing.gm_misaligned_efficiency, 1.0);
  ChipConfig c = chip();
  c.timing.gm_misaligned_efficiency = 0.7;
  const TimingConfig& t = c.timing;
  // 16 KiB from a 512 B aligned address, and from one 32 B past it (addresses are bytes).
  Result aligned = run(c, copies(16384, 1, 0)), skewed = run(c, copies(16384, 1, 32));
  int64_t lines = 16384 / t.l2_line_bytes;
  int64_t want_aligned = int64_t(std::ceil(double(lines * t.l2_line_bytes) / t.gm_read_hbm_rate));
  // The misaligned burst straddles one more line and moves at gm_misaligned_efficiency of the rate.
  int64_t want_skewed =
      int64_t(std::ceil(double((lines + 1) * t.l2_line_bytes) / t.gm_read_hbm_rate / t.gm_misaligned_efficiency));
  EXPECT_EQ(mte2_busy(aligned.report), want_aligned + t.gm_transfer_overhead_cycles);
  EXPECT_EQ(mte2_busy(skewed.report), want_skewed + t.gm_transfer_overhead_cycles);
  EXPECT_GT(mte2_busy(skewed.report), mte2_busy(aligned.report));
  // Many bursts of one transfer: only those that start off a 512 B boundary pay. 8 rows of 1 KiB,
  // 1.25 KiB apart: rows 0, 2, 4, 6 start aligned; 1, 3, 5, 7 do not.
  Result rows = run(c, R"(.kernel rows
.tensor X f16 [8192] in
    copy_gm_ub ub[0], X[0], nburst=8, len=32, src_gap=8
    end
)");
  int64_t lines_touched = 8 * 2 + 4;  // a misaligned 1 KiB row straddles 3 lines
  double bytes_in_lines = double(lines_touched * t.l2_line_bytes);
  double share_aligned = 0.5;  // of the bytes requested
  double efficiency = 1 / (share_aligned + (1 - share_aligned) / t.gm_misaligned_efficiency);
  EXPECT_EQ(mte2_busy(rows.report),
            int64_t(std::ceil(bytes_in_lines / t.gm_read_hbm_rate / efficiency)) + t.gm_transfer_overhead_cycles);
}

// Every block streams its own panel of X into UB and writes it back to Y.
std::string stream(bool write) {
  return fmt::format(R"(.kernel stream
.block_dim 32
.tensor X f16 [32, 1048576] in
.tensor Y f16 [32, 1048576] out
    block_idx x1
    mul x1, x1, 2097152
    li x2, 0
next:
    copy_gm_ub ub[0], X[x1], len=1024
    {}
    add x1, x1, 32768
    add x2, x2, 1
    blt x2, 64, next
    end
)",
                     write ? "set_flag MTE2, MTE3, 0\n    wait_flag MTE2, MTE3, 0\n    copy_ub_gm Y[x1], ub[0], len=1024\n"
                             "    set_flag MTE3, MTE2, 0\n    wait_flag MTE3, MTE2, 0"
                           : "");
}

// What every run pays before and around its transfers: the launch, one dispatch, one miss latency.
double fixed(const TimingConfig& t) { return t.launch_cycles + t.block_dispatch_cycles + t.l2_miss_latency; }

TEST(ModelEffects, TwoCoresStreamingShareHbm) {
  // A chip whose HBM sustains 1.2 cores' worth: two cores streaming take longer each than one alone.
  ChipConfig c = chip();
  TimingConfig& t = c.timing;
  t.hbm_rate = 1.2 * t.gm_read_hbm_rate / t.hbm_efficiency;
  Result one = run(c, stream(false), 1), two = run(c, stream(false), 2);
  const double bytes = 64.0 * 32768;
  double sustained = t.hbm_rate * t.hbm_efficiency;
  // One core: its own rate (64 transfers, each with its overhead); two: HBM's sustained rate for both.
  double one_want = bytes / t.gm_read_hbm_rate + 64 * t.gm_transfer_overhead_cycles + fixed(t);
  EXPECT_NEAR(double(one.report.cycles), one_want, 0.01 * one_want);
  double two_want = 2 * bytes / sustained + fixed(t);
  EXPECT_NEAR(double(two.report.cycles), two_want, 0.02 * two_want);
  EXPECT_GT(double(two.report.cycles), 1.4 * double(one.report.cycles));
}

TEST(ModelEffects, HbmSustainsItsEfficiencyAndTurnsAroundBetweenReadsAndWrites) {
  // 32 cores streaming on the ascend910 are limited by HBM: reads alone at hbm_rate x hbm_efficiency;
  // reads and writes also lose a turnaround whenever HBM changes direction.
  ChipConfig c = chip();
  const TimingConfig& t = c.timing;
  Result reads = run(c, stream(false), 32);
  const double bytes = 32 * 64.0 * 32768, sustained = t.hbm_rate * t.hbm_efficiency;
  EXPECT_NEAR(double(reads.report.cycles), bytes / sustained + fixed(t), 0.02 * bytes / sustained);
  Result both = run(c, stream(true), 32);
  ChipConfig no_turn = c;
  no_turn.timing.hbm_turnaround_cycles = 0;
  Result both_free = run(no_turn, stream(true), 32);
  EXPECT_GE(double(both_free.report.cycles), 2 * bytes / sustained * 0.97);
  EXPECT_GT(both.report.cycles, both_free.report.cycles);
}

TEST(ModelEffects, LaunchAndDispatchCostCyclesBeforeTheFirstInstruction) {
  const ChipConfig c = chip();
  const TimingConfig& t = c.timing;
  const char* text = ".kernel nothing\n.block_dim 3\n    li x1, 1\n    end\n";
  Result one = run(c, text, 1);
  EXPECT_EQ(int64_t(one.report.cycles), t.launch_cycles + t.block_dispatch_cycles + 2 * t.scalar_cycles);
  // 3 blocks on one core: the launch once, a dispatch before each block.
  ChipConfig single = c;
  single.cores = 1;
  Result three = run(single, text, 3);
  EXPECT_EQ(int64_t(three.report.cycles), t.launch_cycles + 3 * (t.block_dispatch_cycles + 2 * t.scalar_cycles));
}

TEST(ModelEffects, TheLaunchStartsItsCoresOneAfterAnother) {
  ChipConfig c = load_chip("ascend910b2");
  const TimingConfig& t = c.timing;
  ASSERT_GT(t.core_start_cycles, 0);
  const uint64_t body = uint64_t(t.launch_cycles + t.block_dispatch_cycles + 2 * t.scalar_cycles);
  // A vector-only launch of 5 blocks: core k starts k steps after the first.
  Result vec = run(c, ".kernel nothing\n.entry aiv v\nv:\n    li x1, 1\n    end\n", 5);
  ASSERT_EQ(vec.report.per_core.size(), 5u);
  for (int k = 0; k < 5; ++k)
    EXPECT_EQ(vec.report.per_core[size_t(k)].cycles, body + uint64_t(k * t.core_start_cycles)) << k;
  EXPECT_EQ(vec.report.cycles, body + uint64_t(4 * t.core_start_cycles));
  // A mixed launch of 3 groups starts group by group: the cube core, then its two vector cores
  // (the report lists the cube cores, then the vector cores).
  Result mixed = run(c, ".kernel nothing\n.entry aic a\n.entry aiv v\na:\n    li x1, 1\n    end\nv:\n    li x1, 1\n    end\n", 3);
  ASSERT_EQ(mixed.report.per_core.size(), 9u);
  const int order[9] = {0, 3, 6, 1, 2, 4, 5, 7, 8};
  for (int k = 0; k < 9; ++k)
    EXPECT_EQ(mixed.report.per_core[size_t(k)].cycles, body + uint64_t(order[k] * t.core_start_cycles)) << k;
}

// Every block reads the same 32 KiB of X into UB, `count` times.
std::string shared_reads(int count) {
  return fmt::format(R"(.kernel shared
.block_dim 32
.tensor X f16 [16384] in
    li x2, 0
next:
    copy_gm_ub ub[0], X[0], len=1024
    add x2, x2, 1
    blt x2, {}, next
    end
)",
                     count);
}

TEST(ModelEffects, AllCoresShareTheL2Rate) {
  // 32 cores reading the same lines: after the first fill they hit L2. With an L2 port of 4 cores'
  // worth, L2 bounds the run: all the hit bytes over l2_rate.
  ChipConfig c = chip();
  c.timing.l2_rate = 4 * c.kinds.front().path(Space::GM, Space::L1)->rate;
  Result r = run(c, shared_reads(64), 32);
  const double hit_bytes = double(r.report.l2_hit_lines + r.report.l2_merged_lines) * c.timing.l2_line_bytes;
  EXPECT_GT(double(r.report.cycles), hit_bytes / c.timing.l2_rate);
  ChipConfig wide = chip();
  wide.timing.l2_rate = 1e6;
  Result fast = run(wide, shared_reads(64), 32);
  EXPECT_LT(double(fast.report.cycles), 0.5 * double(r.report.cycles));
}

TEST(ModelEffects, MergedFillsAreReportedApartFromHits) {
  // 32 cores start together on the same 64 lines: core 0 misses each line once, and every other
  // core's first read waits on those fills: merged, neither a hit nor a miss. Later reads hit (or
  // merge while a fill is still arriving).
  Result r = run(chip(), shared_reads(64), 32);
  const int64_t lines = 32 * 64 * 64;
  EXPECT_EQ(r.report.l2_miss_lines, 64);
  EXPECT_GE(r.report.l2_merged_lines, 64 * 31);
  EXPECT_EQ(r.report.l2_hit_lines + r.report.l2_merged_lines + r.report.l2_miss_lines, lines);
  EXPECT_DOUBLE_EQ(r.report.l2_merge_rate, double(r.report.l2_merged_lines) / double(lines));
  EXPECT_DOUBLE_EQ(r.report.l2_hit_rate, double(r.report.l2_hit_lines) / double(lines));
  EXPECT_GT(r.report.l2_hit_lines, 0);
  // One core alone merges nothing with another's fill after its first read has fully arrived.
  ChipConfig c = chip();
  Result alone = run(c, shared_reads(1), 1);
  EXPECT_EQ(alone.report.l2_merged_lines, 0);
  EXPECT_EQ(alone.report.l2_miss_lines, 64);
}

TEST(ModelEffects, ACoreMergingWithAFillWaitsForHbmNotForTheRequestersShare) {
  // Two cores read the same 32 KiB at once: core 0 misses every line and moves them at its own
  // HBM rate; core 1 merges with those fills, which arrive at HBM's pace, and then moves the lines
  // at its port's rate: it finishes well before core 0.
  ChipConfig c = chip();
  const TimingConfig& t = c.timing;
  Result r = run(c, shared_reads(1).replace(shared_reads(1).find(".block_dim 32"), 13, ".block_dim 2"), 2);
  ASSERT_EQ(r.report.per_core.size(), 2u);
  const double bytes = 32768, port = c.kinds.front().path(Space::GM, Space::UB)->rate;
  int64_t requester = int64_t(r.report.per_core[0].pipes[int(Pipe::MTE2)].busy);
  int64_t merger = int64_t(r.report.per_core[1].pipes[int(Pipe::MTE2)].busy);
  EXPECT_NEAR(double(requester), bytes / t.gm_read_hbm_rate + t.gm_transfer_overhead_cycles, 2);
  // The merger waits for the last line (HBM delivers 32 KiB at its sustained rate), or its port.
  double hbm = bytes / (t.hbm_rate * t.hbm_efficiency);
  EXPECT_LE(double(merger), std::max(hbm, bytes / port) + t.gm_transfer_overhead_cycles + 2);
  EXPECT_LT(double(merger), 0.5 * double(requester));
}

// One core copies `rows` rows of `len` bytes, `stride` bytes apart, from X (all misses).
std::string strided(int rows, int64_t len, int64_t stride) {
  return fmt::format(R"(.kernel strided
.tensor X f16 [{}] in
    copy_gm_ub_pad ub[0], X[0], nburst={}, len={}, src_gap={}
    end
)",
                     rows * stride / 2, rows, len, stride - len);
}

TEST(ModelEffects, MissesInShortRunsMoveAtTheScatteredRate) {
  // The same 32 KiB from HBM, contiguous or as 64 rows of 512 B a page apart: the rows, each shorter
  // than hbm_page_bytes, occupy HBM 1 / hbm_scattered_efficiency as long. Two cores sharing a slow
  // HBM make it the bound, so the difference shows in the cycles.
  ChipConfig c = chip();
  TimingConfig& t = c.timing;
  t.hbm_scattered_efficiency = 0.5;
  t.hbm_rate = 0.5 * t.gm_read_hbm_rate / t.hbm_efficiency;  // HBM sustains half a core's rate
  t.hbm_turnaround_cycles = 0;
  Result contiguous = run(c, strided(1, 32768, 32768), 1), rows = run(c, strided(64, 512, 4096), 1);
  EXPECT_EQ(rows.report.l2_miss_lines, 64);
  const double sustained = t.hbm_rate * t.hbm_efficiency, bytes = 32768;
  double contiguous_want = bytes / sustained, rows_want = bytes / sustained / t.hbm_scattered_efficiency;
  EXPECT_NEAR(double(mte2_busy(contiguous.report)), contiguous_want + t.gm_transfer_overhead_cycles, 0.02 * contiguous_want);
  EXPECT_NEAR(double(mte2_busy(rows.report)), rows_want + t.gm_transfer_overhead_cycles, 0.02 * rows_want);
  // Rows of a page or more are a stream: no penalty.
  ChipConfig paged = c;
  paged.timing.hbm_page_bytes = 512;
  Result rows_paged = run(paged, strided(64, 512, 4096), 1);
  EXPECT_EQ(mte2_busy(rows_paged.report), mte2_busy(contiguous.report));
}

// One core sweeps X (rows of 32 KiB) `sweeps` times; L2 is made to hold a share of it.
double sweep_hit_rate(int candidates, double l2_share) {
  ChipConfig c = chip();
  const int rows = 64;
  c.timing.l2_bytes = int64_t(rows * 32768 * l2_share);
  c.timing.l2_replacement_candidates = candidates;
  std::string text = fmt::format(R"(.kernel sweep
.tensor X f16 [{}, 16384] in
    li x3, 0
sweep:
    li x1, 0
    li x2, 0
row:
    copy_gm_ub ub[0], X[x1], len=1024
    add x1, x1, 32768
    add x2, x2, 1
    blt x2, {}, row
    add x3, x3, 1
    blt x3, 8, sweep
    end
)",
                                 rows, rows);
  return run(c, text).report.l2_hit_rate;
}

TEST(ModelEffects, TheL2CapacityCliffIsGentlerThanLru) {
  // A cyclic sweep 25% larger than L2: LRU (many candidates) misses every line of every sweep;
  // sampled LRU with few candidates keeps part of it, the more the fewer candidates it compares.
  double lru = sweep_hit_rate(64, 0.8), sampled = sweep_hit_rate(2, 0.8), random = sweep_hit_rate(1, 0.8);
  std::printf("sweep 25%% over L2: hit rate %.3f (64 candidates, ~LRU), %.3f (2), %.3f (1, random)\n", lru, sampled,
              random);
  EXPECT_LT(lru, 0.05);
  EXPECT_GT(sampled, 0.2);
  EXPECT_GE(random, sampled);
  // Within capacity, every sweep after the first hits whatever the policy: 7 of 8.
  EXPECT_NEAR(sweep_hit_rate(2, 1.01), 7.0 / 8, 1e-9);
  // The ascend910 compares l2_replacement_candidates lines: its cliff is the sampled one.
  EXPECT_EQ(chip().timing.l2_replacement_candidates, 2);
}

TEST(ModelEffects, CubeAndVectorSustainTheirEfficiency) {
  // Back-to-back mmads and vadds: each takes its peak cycles over the unit's efficiency.
  const ChipConfig c = chip();
  const TimingConfig& t = c.timing;
  Result cube = run(c, R"(.kernel cube
    li x1, 0
again:
    mmad.f16 l0c[0], l0a[0], l0b[0], m=128, n=128, k=256, init
    add x1, x1, 1
    blt x1, 16, again
    end
)");
  EXPECT_EQ(int64_t(cube.report.pipes[int(Pipe::M)].busy), 16 * int64_t(std::ceil(1024 / t.cube_efficiency - 1e-9)));
  Result vec = run(c, R"(.kernel vec
    li x1, 0
again:
    vadd.f16 ub[131072], ub[0], ub[65536], repeat=255
    add x1, x1, 1
    blt x1, 16, again
    end
)");
  EXPECT_EQ(int64_t(vec.report.pipes[int(Pipe::V)].busy),
            16 * int64_t(std::ceil(255 * t.vector_simple_cycles / t.vector_efficiency - 1e-9)));
}

}  // namespace
}  // namespace cubekit
