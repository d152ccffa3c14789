// Whether a flash tiling fits the chip is measured on the lowered nest (codegen::fit_attention,
// attention_overflow), the same measure storage planning applies: a tiling the fit passes is
// placed, one it refuses is the user's error naming the level, never storage's. The L1 and L0
// buffers are checked against the layout the nests document, counted here.
#include "codegen/fit.h"
#include "codegen/lower_stages.h"
#include "codegen/storage.h"
#include "emulator/error.h"
#include "kernels/attention.h"
#include "kernels/check.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace cubekit {
namespace {

int64_t allocated(const codegen::Kernel& k, Space s) {
  int64_t bytes = 0;
  for (const codegen::Buffer& b : k.buffers)
    if (b.space == s) bytes += b.bytes * b.copies;
  return bytes;
}

// The L1 and L0 bytes of one core's nest, 16-bit inputs (rows and keys rounded to 16).
struct Cube {
  int64_t l1, l0a, l0b, l0c;
};
Cube cube_bytes(int64_t tile_q, int64_t tile_kv, int64_t dim, const ChipConfig& chip) {
  const int64_t rows = round_up(tile_q, 16), keys = round_up(tile_kv, 16), a = 2 * rows * std::max(dim, keys) * 2;
  if (sched::attention_direct(chip))  // Q; K and V (two copies each); P's five slots
    return {(rows * dim + 4 * keys * dim + 5 * rows * keys) * 2, a, 2 * keys * dim * 2, 2 * rows * std::max(dim, keys) * 4};
  if (chip.split())  // Q; K and V (two copies each); P (two copies); S or P V in L0C (two copies)
    return {(rows * dim + 4 * keys * dim + 2 * rows * keys) * 2, a, 2 * keys * dim * 2, 2 * rows * std::max(dim, keys) * 4};
  // Q; K (two copies) and V; P. L0C: S; P V (two copies).
  return {(rows * dim + 3 * keys * dim + rows * keys) * 2, a, 2 * keys * dim * 2, rows * keys * 4 + 2 * rows * dim * 4};
}

class AttentionFit : public testing::TestWithParam<const char*> {};

TEST_P(AttentionFit, RefusesExactlyWhatStorageCannotPlace) {
  const ChipConfig chip = load_chip(GetParam());
  int fitting = 0, refused = 0;
  for (int64_t dim : {64, 128})
    for (auto [tq, tkv] : {std::pair<int64_t, int64_t>{16, 16}, {32, 64}, {64, 128}, {128, 128}, {48, 80}, {128, 256},
                           {256, 128}, {256, 256}})
      for (bool mask : {false, true})
        for (bool lse : {false, true}) {
          kernels::AttentionOptions o;
          o.heads = 2, o.seq_q = 200, o.seq_kv = 300, o.dim = dim, o.lse = lse;
          o.tile_q = tq, o.tile_kv = tkv;
          if (mask) o.mask = {o.seq_q, o.seq_kv};
          const std::string what = fmt::format("{} tiles {} x {}, dim {}{}{}", chip.name, tq, tkv, dim, mask ? ", mask" : "", lse ? ", lse" : "");
          // Tiles past a sequence are one tile of all of it (rounded up to the fractals).
          const int64_t cq = std::min<int64_t>(tq, round_up(o.seq_q, 16)), ckv = std::min<int64_t>(tkv, round_up(o.seq_kv, 16));
          kernels::Attention a = kernels::attention(o, chip);
          sched::AttentionPlan plan = sched::plan_attention(a.funcs.o, chip);
          if (lse) sched::attach_lse(plan, a.funcs.lse);
          const Space full = codegen::attention_overflow(plan, chip);
          if (full == Space::GM) {
            sched::StageGraph graph;
            codegen::Kernel k = codegen::fit_attention(plan, chip, graph);
            EXPECT_NO_THROW(codegen::plan_storage(k, chip)) << what;
            const Cube want = cube_bytes(cq, ckv, dim, chip);
            EXPECT_EQ(allocated(k, Space::L1), want.l1) << what;
            EXPECT_EQ(allocated(k, Space::L0A), want.l0a) << what;
            EXPECT_EQ(allocated(k, Space::L0B), want.l0b) << what;
            EXPECT_EQ(allocated(k, Space::L0C), want.l0c) << what;
            ++fitting;
            continue;
          }
          ++refused;
          std::string level(space_name(full));
          for (char& c : level) c = char(std::toupper(static_cast<unsigned char>(c)));
          try {
            sched::StageGraph graph;
            codegen::fit_attention(plan, chip, graph);
            ADD_FAILURE() << what << ": refused by attention_overflow but fit_attention lowered it";
          } catch (const UserError& e) {
            EXPECT_THAT(e.what(), testing::HasSubstr(fmt::format(
                                      "attention.flash({}, {}): tiles of {} queries x {} keys with head dim {} need", tq, tkv, cq, ckv, dim)));
            EXPECT_THAT(e.what(), testing::HasSubstr(fmt::format("bytes of {} and {} has {}; use smaller tiles", level, chip.name,
                                                                 chip.buffer_size(full))));
          }
          // Storage agrees: it cannot place the nest's buffers.
          codegen::Kernel k = codegen::lower_stages(sched::stage_graph(plan), chip);
          EXPECT_THROW(codegen::plan_storage(k, chip), UserError) << what;
        }
  EXPECT_GE(fitting, 30) << chip.name;
  EXPECT_GE(refused, 4) << chip.name;
  std::printf("%s: %d tilings fit, %d refused\n", chip.name.c_str(), fitting, refused);
}

// The largest tiling of the 950's direct nest with a mask: 128 x 128 at head dim 128 fits its UB
// with 1,792 bytes to spare (a measure that counted UB by a bound refused it); it runs correct and
// checker-clean.
TEST(AttentionFit, TheLargestMaskedTilingOfThe950Runs) {
  const ChipConfig chip = load_chip("ascend950pr");
  kernels::AttentionOptions o;
  o.heads = 2, o.seq_q = 150, o.seq_kv = 260, o.dim = 128, o.tile_q = o.tile_kv = 128, o.mask = {o.seq_q, o.seq_kv};
  kernels::Attention a = kernels::attention(o, chip);
  kernels::RunSettings s;
  s.seed = 11;
  kernels::KernelRun run = kernels::compile_and_run(a.outputs(), chip, s);
  EXPECT_TRUE(run.sim.report.clean());
  ASSERT_TRUE(run.checked);
  EXPECT_TRUE(run.check.pass) << "max abs " << run.check.max_abs << ", " << run.check.mismatches << " mismatches";
}

// The CLI's TFLOPS count the (query, key) pairs a query sees, as counted here pair by pair: a
// window or keys past the last query (top-left causal) once took the figure past the chip's peak.
TEST(AttentionFlops, CountThePairsTheMaskLeaves) {
  for (bool causal : {false, true})
    for (int64_t window : {0, 1, 5, 64, 1000})
      for (auto [q, kv] : {std::pair<int64_t, int64_t>{1, 1}, {7, 7}, {40, 200}, {200, 40}, {128, 128}}) {
        if (window && !causal) continue;
        kernels::AttentionOptions o;
        o.batch = 2, o.heads = 3, o.dim = 64, o.seq_q = q, o.seq_kv = kv, o.causal = causal, o.window = window;
        double pairs = 0;
        for (int64_t i = 0; i < q; ++i)
          for (int64_t j = 0; j < kv; ++j)
            pairs += !causal || (j <= i && (!window || i - j < window));
        EXPECT_DOUBLE_EQ(kernels::attention_flops(o), 4.0 * 2 * 3 * 64 * pairs) << q << " x " << kv << " causal " << causal
                                                                                << " window " << window;
      }
}

// A window of 2^31 - 1 keys hides nothing; near 2^31 the Halide reference compared i < j + window,
// overflowed, and the CLI reported a correct kernel as FAIL.
TEST(AttentionWindow, AWindowPastTheQueriesIsNoWindow) {
  const ChipConfig chip = load_chip("ascend910");
  for (int64_t window : {int64_t(2147483585), int64_t(2147483647), int64_t(1) << 40}) {
    kernels::AttentionOptions o;
    o.seq_q = 64, o.dim = 64, o.causal = true, o.window = window;
    kernels::RunSettings s;
    s.seed = 5;
    kernels::KernelRun run = kernels::compile_and_run(kernels::attention(o, chip).outputs(), chip, s);
    ASSERT_TRUE(run.checked);
    EXPECT_TRUE(run.check.pass) << "window " << window << ": max abs " << run.check.max_abs;
  }
}

INSTANTIATE_TEST_SUITE_P(Presets, AttentionFit, testing::Values("ascend910", "ascend910b2", "ascend950pr"));

}  // namespace
}  // namespace cubekit
