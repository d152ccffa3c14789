// sched::attention_bytes is the fit's measure of a flash nest (the default tiles are chosen by it,
// a user's rejected by it): it must be what the lowerings allocate, summed per level, or a tile
// the fit passes fails in storage planning (or one that fits is refused). L1 and L0 exactly; UB,
// where the vector code's scratch is counted by a bound, never less and not much more.
#include "codegen/lower_attention.h"
#include "codegen/lower_attention_split.h"
#include "kernels/attention.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

namespace cubekit {
namespace {

int64_t allocated(const codegen::Kernel& k, Space s) {
  int64_t bytes = 0;
  for (const codegen::Buffer& b : k.buffers)
    if (b.space == s) bytes += b.bytes * b.copies;
  return bytes;
}

class AttentionBytes : public testing::TestWithParam<const char*> {};

TEST_P(AttentionBytes, AreWhatTheLoweringAllocates) {
  const ChipConfig chip = load_chip(GetParam());
  int cases = 0;
  double worst = 0;
  for (int64_t dim : {64, 128})
    for (auto [tq, tkv] : {std::pair<int64_t, int64_t>{16, 16}, {32, 64}, {64, 128}, {128, 128}, {48, 80}, {128, 256}, {256, 128}})
      for (bool mask : {false, true})
        for (bool lse : {false, true}) {
          kernels::AttentionOptions o;
          o.heads = 2, o.seq_q = 200, o.seq_kv = 300, o.dim = dim, o.lse = lse;
          o.tile_q = tq, o.tile_kv = tkv;
          if (mask) o.mask = {o.seq_q, o.seq_kv};
          if (sched::attention_overflow(tq, tkv, dim, chip, mask) != Space::GM) continue;
          kernels::Attention a = kernels::attention(o, chip);
          sched::AttentionPlan plan = sched::plan_attention(a.funcs.o, chip);
          if (lse) sched::attach_lse(plan, a.funcs.lse);
          const codegen::Kernel k = chip.split() ? codegen::lower_attention_split(plan, chip) : codegen::lower_attention(plan, chip);
          const sched::AttentionBytes want = sched::attention_bytes(tq, tkv, dim, chip.split(), sched::attention_direct(chip), mask);
          const std::string what = fmt::format("{} tiles {} x {}, dim {}{}{}", chip.name, tq, tkv, dim, mask ? ", mask" : "", lse ? ", lse" : "");
          EXPECT_EQ(allocated(k, Space::L1), want.l1) << what;
          EXPECT_EQ(allocated(k, Space::L0A), want.l0a) << what;
          EXPECT_EQ(allocated(k, Space::L0B), want.l0b) << what;
          EXPECT_EQ(allocated(k, Space::L0C), want.l0c) << what;
          // UB's measure counts the vector code's scratch (reductions, spread rows) by a bound: never
          // fewer bytes than the lowering takes, at most half as many more (1.36x at 16 x 16 tiles,
          // where the per-row terms weigh most; within a few percent at 128 x 128 on the 950).
          const int64_t ub = allocated(k, Space::UB);
          EXPECT_LE(ub, want.ub) << what;
          EXPECT_LE(want.ub, ub + ub / 2) << what;
          worst = std::max(worst, double(want.ub) / double(ub));
          ++cases;
        }
  EXPECT_GE(cases, 20);
  std::printf("%s: %d tilings, UB's measure at most %.3fx what the lowering takes\n", chip.name.c_str(), cases, worst);
}

INSTANTIATE_TEST_SUITE_P(Presets, AttentionBytes, testing::Values("ascend910", "ascend910b2", "ascend950pr"));

}  // namespace
}  // namespace cubekit
