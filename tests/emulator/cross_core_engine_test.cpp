// The cross-core flag engine on a small topology (two groups: AIC 0 with AIVs 1 and 2, AIC 3 with
// AIVs 4 and 5), against the rules of Ascend C's CrossCoreSetFlag modes written out here.
#include "emulator/cross_core.h"

#include <gtest/gtest.h>

namespace cubekit {
namespace {

constexpr uint64_t kLatency = 10;

CrossTopology two_groups() {
  CrossTopology t;
  for (int g = 0; g < 2; ++g) {
    t.cores.push_back({CrossRole::Aic, g, 0});
    t.cores.push_back({CrossRole::Aiv, g, 0});
    t.cores.push_back({CrossRole::Aiv, g, 1});
  }
  return t;
}

Knowledge knows(int32_t unit, uint32_t epoch) {
  Clock c{};
  c[0] = epoch;
  return with_unit_clock(nullptr, unit, c);
}

struct Engine {
  CrossCore cross{two_groups(), kLatency};
  std::vector<int> woken;
  std::vector<std::string> errors;
  void set(int core, int mode, int id, uint64_t fire, Knowledge k = nullptr) {
    cross.set(core, mode, id, fire, k, 7, woken, errors);
  }
  // The arrival times of the increments waiting in a core's counter, oldest first.
  std::vector<uint64_t> arrivals(int core, int id) {
    std::vector<uint64_t> out;
    std::vector<CrossDelivery> taken;
    while (const CrossDelivery* d = cross.front(core, id)) out.push_back(d->time), taken.push_back(cross.consume(core, id));
    return out;
  }
};

TEST(CrossCoreEngine, Mode2FromAnAicReachesBothItsAivsOnly) {
  Engine e;
  e.set(0, 2, 3, 100);
  EXPECT_TRUE(e.errors.empty());
  EXPECT_EQ(e.woken, (std::vector<int>{1, 2}));
  EXPECT_EQ(e.arrivals(1, 3), (std::vector<uint64_t>{100 + kLatency}));
  EXPECT_EQ(e.arrivals(2, 3), (std::vector<uint64_t>{100 + kLatency}));
  for (int c : {0, 3, 4, 5}) EXPECT_TRUE(e.arrivals(c, 3).empty()) << "core " << c;
  EXPECT_TRUE(e.arrivals(1, 2).empty());  // another id
}

TEST(CrossCoreEngine, Mode2FromAivsReachesTheAicOnceBothHaveSet) {
  Engine e;
  e.set(4, 2, 0, 50, knows(4, 5));
  EXPECT_TRUE(e.woken.empty());
  EXPECT_EQ(e.cross.front(3, 0), nullptr);
  e.set(5, 2, 0, 80, knows(5, 9));
  EXPECT_EQ(e.woken, (std::vector<int>{3}));
  const CrossDelivery* d = e.cross.front(3, 0);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->time, 80 + kLatency);  // the later of the two sets
  EXPECT_EQ(d->setter_core, 5);
  // What both AIVs knew reaches the AIC.
  ASSERT_NE(find_unit_clock(d->knowledge, 4), nullptr);
  ASSERT_NE(find_unit_clock(d->knowledge, 5), nullptr);
  EXPECT_EQ((*find_unit_clock(d->knowledge, 4))[0], 5u);
  EXPECT_EQ((*find_unit_clock(d->knowledge, 5))[0], 9u);
  EXPECT_EQ(e.cross.front(0, 0), nullptr);  // the other group's AIC
}

TEST(CrossCoreEngine, Mode1PairsTheAivsOfAGroup) {
  Engine e;
  e.set(1, 1, 4, 30);
  e.set(4, 1, 4, 35);  // another group: no round with core 1
  EXPECT_TRUE(e.woken.empty());
  e.set(2, 1, 4, 20);
  EXPECT_EQ(e.woken, (std::vector<int>{1, 2}));
  EXPECT_EQ(e.arrivals(1, 4), (std::vector<uint64_t>{30 + kLatency}));
  EXPECT_EQ(e.arrivals(2, 4), (std::vector<uint64_t>{30 + kLatency}));
  EXPECT_TRUE(e.arrivals(0, 4).empty());
  EXPECT_TRUE(e.arrivals(5, 4).empty());
  EXPECT_TRUE(e.errors.empty());
}

// docs/isa.md: mode 1 completes "once both AIVs of the group have set". A launch that runs one AIV
// of a group (a vector-only launch of one block) leaves the other idle: it never sets, the round
// never completes, and the set is a sync error naming the idle AIV.
TEST(CrossCoreEngine, Mode1WaitsForBothAivsOfTheGroupEvenWhenTheLaunchRunsOne) {
  CrossTopology alone;  // a vector-only launch of one block on a chip with two AIVs per group
  alone.cores.push_back({CrossRole::Aiv, 0, 0});
  alone.aivs_per_group = 2;
  CrossCore cross(alone, kLatency);
  std::vector<int> woken;
  std::vector<std::string> errors;
  for (int mode : {1, 2}) {
    errors.clear();
    cross.set(0, mode, 0, 10, nullptr, 3, woken, errors);
    EXPECT_TRUE(woken.empty()) << "mode " << mode;
    EXPECT_EQ(cross.front(0, 0), nullptr) << "mode " << mode;
    ASSERT_EQ(errors.size(), 1u) << "mode " << mode;
    // Mode 2 from the AIVs has no AIC to reach here; mode 1 misses the partner.
    if (mode == 1)
      EXPECT_NE(errors[0].find("but AIV 1 (subblock 1 of group 0) runs no block of this launch"), std::string::npos)
          << errors[0];
    else
      EXPECT_NE(errors[0].find("no AIC runs in this launch"), std::string::npos) << errors[0];
  }
}

TEST(CrossCoreEngine, Mode1FromAnAicIsAnError) {
  Engine e;
  e.set(0, 1, 0, 10);
  ASSERT_EQ(e.errors.size(), 1u);
  EXPECT_NE(e.errors[0].find("mode 1 synchronises the two AIVs"), std::string::npos) << e.errors[0];
  EXPECT_TRUE(e.woken.empty());
}

TEST(CrossCoreEngine, Mode0CountsRoundsPerCoreOverEveryCoreOfTheKind) {
  Engine e;
  // Core 1 sets twice before the others set once: its second set belongs to round 2.
  e.set(1, 0, 6, 10);
  e.set(1, 0, 6, 20);
  e.set(2, 0, 6, 30);
  e.set(4, 0, 6, 40);
  EXPECT_TRUE(e.woken.empty());
  e.set(5, 0, 6, 25);  // round 1 complete: its latest set fired at 40
  EXPECT_EQ(e.woken, (std::vector<int>{1, 2, 4, 5}));
  e.woken.clear();
  for (int c : {2, 4}) e.set(c, 0, 6, 60);
  EXPECT_TRUE(e.woken.empty());
  e.set(5, 0, 6, 50);  // round 2 complete at 60
  EXPECT_EQ(e.woken.size(), 4u);
  for (int c : {1, 2, 4, 5}) EXPECT_EQ(e.arrivals(c, 6), (std::vector<uint64_t>{40 + kLatency, 60 + kLatency})) << c;
  for (int c : {0, 3}) EXPECT_TRUE(e.arrivals(c, 6).empty());  // AICs are another kind
  // The AICs have their own rounds.
  e.set(0, 0, 6, 5);
  e.set(3, 0, 6, 7);
  EXPECT_EQ(e.arrivals(0, 6), (std::vector<uint64_t>{7 + kLatency}));
  EXPECT_EQ(e.arrivals(3, 6), (std::vector<uint64_t>{7 + kLatency}));
}

TEST(CrossCoreEngine, ACounterHoldsAtMostSixteenIncrements) {
  Engine e;
  for (int i = 0; i < kCrossMaxOutstanding; ++i) e.set(0, 2, 1, uint64_t(i));
  EXPECT_TRUE(e.errors.empty());
  e.set(0, 2, 1, 100);
  ASSERT_EQ(e.errors.size(), 2u);  // each of the two AIVs' counters
  EXPECT_NE(e.errors[0].find("cross-core flag id 1 of core 1 (aiv, group 0) would hold more than 16"), std::string::npos)
      << e.errors[0];
  // Consuming one makes room again.
  e.cross.consume(1, 1);
  e.cross.consume(2, 1);
  e.errors.clear();
  e.set(0, 2, 1, 200);
  EXPECT_TRUE(e.errors.empty());
}

TEST(CrossCoreEngine, LeftoversNameTheCounterAndTheLastSet) {
  Engine e;
  e.set(3, 2, 9, 10);
  auto left = e.cross.leftovers();
  ASSERT_EQ(left.size(), 2u);
  EXPECT_EQ(left[0].core, 4);
  EXPECT_EQ(left[0].id, 9);
  EXPECT_EQ(left[0].count, 1);
  EXPECT_EQ(left[0].set_index, 7);
  EXPECT_EQ(left[1].core, 5);
}

TEST(CrossCoreEngine, DeliveriesCarryTheWindowOfTheirSet) {
  Engine e;
  e.cross.window = 4;
  e.set(0, 2, 0, 10);
  EXPECT_EQ(e.cross.front(1, 0)->window, 4u);
}

TEST(Knowledge, MergeTakesTheLaterClockPerUnitAndKeepsSharing) {
  Clock a{}, b{};
  a[1] = 3, a[2] = 1;
  b[1] = 2, b[2] = 5;
  Knowledge x = with_unit_clock(with_unit_clock(nullptr, 4, a), 9, a);
  Knowledge y = with_unit_clock(with_unit_clock(nullptr, 4, b), 2, b);
  Knowledge m = merge_knowledge(x, y);
  ASSERT_EQ(m->size(), 3u);
  EXPECT_EQ((*m)[0].unit, 2);
  EXPECT_EQ((*m)[1].unit, 4);
  EXPECT_EQ((*m)[2].unit, 9);
  EXPECT_EQ((*find_unit_clock(m, 4))[1], 3u);
  EXPECT_EQ((*find_unit_clock(m, 4))[2], 5u);
  EXPECT_EQ(find_unit_clock(m, 5), nullptr);
  // Nothing new: the same object comes back (no copy on every sync).
  EXPECT_EQ(merge_knowledge(m, x), m);
  EXPECT_EQ(merge_knowledge(m, nullptr), m);
  EXPECT_EQ(merge_knowledge(nullptr, x), x);
}

}  // namespace
}  // namespace cubekit
