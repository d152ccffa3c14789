// The emulator's own memory (emulator/memory.h, interval_shadow.h): huge-page mappings start at a
// 2 MB boundary and read as zeros; a launch's arena gives every core its buffers, the sizes a
// core's own memory would have, none overlapping; and a shadow whose nodes come from a pool keeps
// the same intervals as one on the heap, checked against a byte-per-byte reference.
#include "emulator/interval_shadow.h"
#include "emulator/memory.h"
#include "emulator/program.h"
#include "emulator/rounding.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <optional>
#include <random>
#include <utility>
#include <vector>

namespace cubekit {
namespace {

TEST(ZeroedBytes, HugeMappingsStartAtA2MBBoundaryAndReadAsZeros) {
  for (size_t n : {size_t(1), size_t(4096), size_t(3) << 20, size_t(2) << 20}) {
    ZeroedBytes z(n, true);
    ASSERT_EQ(z.size(), n);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(z.data()) % (uintptr_t(2) << 20), 0u) << n;
    EXPECT_TRUE(std::all_of(z.data(), z.data() + n, [](uint8_t b) { return b == 0; })) << n;
    z.data()[n - 1] = 7;  // the last byte is the mapping's
    EXPECT_EQ(z.data()[n - 1], 7);
  }
}

TEST(ZeroedArray, ElementsStartAsZeros) {
  struct Pair {
    int64_t a, b;
  };
  ZeroedArray<Pair> v(1000);
  v[999] = {3, 4};
  EXPECT_EQ(v[0].a, 0);
  EXPECT_EQ(v[500].b, 0);
  EXPECT_EQ(v[999].b, 4);
}

class Arena : public testing::TestWithParam<const char*> {};

TEST_P(Arena, GivesEachCoreItsBuffersApart) {
  const ChipConfig chip = load_chip(GetParam());
  std::vector<CoreKind> kinds;
  for (const CoreConfig& k : chip.kinds)
    for (int c = 0; c < 3; ++c) kinds.push_back(k.kind);
  for (int64_t tensors : {int64_t(0), int64_t(1) << 30}) {  // 4 KB pages, then huge pages
    CoreArena arena(chip, kinds, tensors);
    std::vector<std::pair<const uint8_t*, const uint8_t*>> taken[kNumSpaces];
    std::vector<CoreMemory> memories;
    for (size_t c = 0; c < kinds.size(); ++c) {
      memories.push_back(arena.memory(int(c)));
      const std::array<size_t, kNumSpaces> want = CoreMemory::sizes(chip, *chip.kind(kinds[c]));
      for (int s = 1; s < kNumSpaces; ++s) {
        ZeroedBytes& b = memories.back().buffer[s];
        ASSERT_EQ(b.size(), want[size_t(s)]) << "core " << c << " " << space_name(Space(s));
        if (!b.size()) continue;
        EXPECT_TRUE(std::all_of(b.data(), b.data() + b.size(), [](uint8_t x) { return x == 0; }));
        std::fill(b.data(), b.data() + b.size(), uint8_t(c + 1));  // every byte writable
        taken[s].push_back({b.data(), b.data() + b.size()});
      }
    }
    for (int s = 1; s < kNumSpaces; ++s) {
      std::sort(taken[s].begin(), taken[s].end());
      for (size_t i = 1; i < taken[s].size(); ++i) EXPECT_LE(taken[s][i - 1].second, taken[s][i].first) << space_name(Space(s));
    }
    // Each core still holds what it wrote: no other core's buffer overlaps it.
    for (size_t c = 0; c < memories.size(); ++c) {
      for (int s = 1; s < kNumSpaces; ++s) {
        const ZeroedBytes& b = memories[c].buffer[s];
        if (b.size()) { EXPECT_EQ(b.data()[b.size() / 2], uint8_t(c + 1)); }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Presets, Arena, testing::Values("ascend910", "ascend910b2", "ascend950pr"));

// Random visits that set entries over random ranges: the pooled shadow's intervals, the heap
// one's, and a byte array agree after each, and a reset starts afresh.
// A cast to an integer type is checked on inputs over the type's range (tools/cmd_kernel.cpp): every
// float input is scaled, rounded to its type; integer inputs and outputs are left as they were.
TEST(GlobalMemory, ScalesItsFloatInputsAlone) {
  Program p = parse_program(R"(.kernel k
.block_dim 1
.tensor H f16 [64] in
.tensor B bf16 [64] inout
.tensor F f32 [64] in
.tensor I s32 [64] in
.tensor O f32 [64] out
    end
)");
  GlobalMemory gm = GlobalMemory::for_program(p);
  gm.fill_inputs(3);
  const GlobalMemory before = gm;
  gm.scale_float_inputs(192);
  auto f16 = [](const std::vector<uint8_t>& b, size_t i) { return f16_to_f32(uint16_t(b[2 * i] | b[2 * i + 1] << 8)); };
  auto bf16 = [](const std::vector<uint8_t>& b, size_t i) { return bf16_to_f32(uint16_t(b[2 * i] | b[2 * i + 1] << 8)); };
  auto f32 = [](const std::vector<uint8_t>& b, size_t i) {
    float f;
    std::memcpy(&f, b.data() + 4 * i, 4);
    return f;
  };
  float largest = 0;
  for (size_t i = 0; i < 64; ++i) {
    EXPECT_EQ(f16(gm.bytes("H"), i), f16_to_f32(f64_to_f16(double(f16(before.bytes("H"), i)) * 192))) << i;
    EXPECT_EQ(bf16(gm.bytes("B"), i), bf16_to_f32(f32_to_bf16(float(double(bf16(before.bytes("B"), i)) * 192)))) << i;
    EXPECT_EQ(f32(gm.bytes("F"), i), float(double(f32(before.bytes("F"), i)) * 192)) << i;
    largest = std::max(largest, std::abs(f16(gm.bytes("H"), i)));
  }
  EXPECT_GT(largest, 127.0f);  // past s8's range, as the cast's check needs
  EXPECT_EQ(gm.bytes("I"), before.bytes("I"));
  EXPECT_EQ(gm.bytes("O"), before.bytes("O"));
}

TEST(IntervalShadow, PooledNodesKeepTheSameIntervals) {
  constexpr int64_t kBytes = 1 << 16;
  std::optional<IntervalShadow<int>> pooled(std::in_place, true);
  IntervalShadow<int> heap;
  pooled->resize(kBytes, 0), heap.resize(kBytes, 0);
  std::vector<int> bytes(kBytes, 0);
  std::mt19937 rng(7);
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 20000; ++i) {
      int64_t lo = std::uniform_int_distribution<int64_t>(-100, kBytes)(rng);
      int64_t hi = lo + std::uniform_int_distribution<int64_t>(0, i % 50 == 0 ? kBytes : 300)(rng);
      const int value = std::uniform_int_distribution<int>(0, 3)(rng);
      std::vector<std::pair<int64_t, int>> seen_pooled, seen_heap;
      pooled->visit(lo, hi, [&](int& e, int64_t a, int64_t) { seen_pooled.push_back({a, e}), e = value; });
      heap.visit(lo, hi, [&](int& e, int64_t a, int64_t) { seen_heap.push_back({a, e}), e = value; });
      ASSERT_EQ(seen_pooled, seen_heap) << "visit " << i;
      for (auto [a, e] : seen_pooled) ASSERT_EQ(bytes[size_t(a)], e) << "byte " << a;
      for (int64_t b = std::max<int64_t>(lo, 0); b < std::min(hi, kBytes); ++b) bytes[size_t(b)] = value;
      ASSERT_EQ(pooled->intervals(), heap.intervals());
    }
    IntervalShadow<int> moved(std::move(*pooled));  // the pool moves with its nodes
    pooled.reset();
    EXPECT_EQ(moved.intervals(), heap.intervals());
    moved.reset(), heap.reset();
    std::fill(bytes.begin(), bytes.end(), 0);
    EXPECT_EQ(moved.intervals(), 1u);
    pooled.emplace(std::move(moved));
  }
}

}  // namespace
}  // namespace cubekit
