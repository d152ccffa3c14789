// The sync pass's slot facts (codegen/slot_values.h): which copy a `slot = counter % slots`
// variable selects, relative to other takes of the same counter. The distances are checked
// against the values a run would give, counted here by hand.
#include "codegen/slot_values.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace cubekit::codegen {
namespace {

constexpr int kCounter = 10, kSlot = 11, kOther = 12;

Node take(int slot, int64_t slots) { return let(slot, Affine::var(kCounter), LetOp::Rem, slots); }
Node bump(int64_t by = 1) { return let(kCounter, Affine::var(kCounter), LetOp::Add, by); }

// Runs a Let, applying its change to the facts recorded so far (as the sync pass does to its
// pending accesses).
void run(SlotValues& values, const Node& n, std::vector<SlotFacts*> recorded = {}) {
  const CounterChange change = values.let(n);
  for (SlotFacts* facts : recorded) change.apply(*facts);
}

// Slot values after `counter = 0`.
SlotValues counting() {
  SlotValues values;
  values.let(let(kCounter, Affine(0), LetOp::Add, 0));
  return values;
}

std::vector<int64_t> sorted(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(SlotValues, ConsecutiveTakesOfTwoSlotsAreOneSlotApart) {
  SlotValues values = counting();
  const Affine at = Affine::var(kSlot, 512);
  run(values, take(kSlot, 2));
  run(values, bump());
  SlotFacts first = values.facts(at);  // the previous tile's access: slot c0 % 2
  ASSERT_EQ(first.size(), 1u);
  run(values, take(kSlot, 2), {&first});
  run(values, bump(), {&first});
  const SlotFacts second = values.facts(at);  // this tile's: (c0 + 1) % 2
  // (c0+1)%2 - c0%2 is 1 (c0 even) or -1 (c0 odd): 512 or -512 bytes, never 0.
  EXPECT_EQ(sorted(slot_distances(at, second, at, first)), (std::vector<int64_t>{-512, 512}));
  EXPECT_EQ(sorted(slot_distances(at + Affine(64), second, at, first)), (std::vector<int64_t>{-448, 576}));
}

TEST(SlotValues, TakesASlotsMultipleApartAreTheSameSlot) {
  SlotValues values = counting();
  const Affine at = Affine::var(kSlot, 512);
  run(values, take(kSlot, 2));
  SlotFacts first = values.facts(at);
  run(values, bump(2), {&first});  // two hand-offs later: the same slot of two
  run(values, take(kSlot, 2), {&first});
  EXPECT_EQ(slot_distances(at, values.facts(at), at, first), (std::vector<int64_t>{0}));
  run(values, bump(1), {&first});
  run(values, take(kSlot, 3), {&first});  // three slots, 3 apart
  EXPECT_EQ(slot_distances(at, values.facts(at), at, first), (std::vector<int64_t>{0}));
}

TEST(SlotValues, TwoVariablesTakenFromOneCounterArePaired) {
  SlotValues values = counting();
  run(values, take(kSlot, 2));  // a full tile's slot variable
  SlotFacts first = values.facts(Affine::var(kSlot, 256));
  run(values, bump(), {&first});
  run(values, take(kOther, 2), {&first});  // a partial tile's, in another branch
  const SlotFacts second = values.facts(Affine::var(kOther, 256));
  EXPECT_EQ(sorted(slot_distances(Affine::var(kOther, 256), second, Affine::var(kSlot, 256), first)), (std::vector<int64_t>{-256, 256}));
  // Different coefficients are different addressing: nothing is known.
  EXPECT_TRUE(slot_distances(Affine::var(kOther, 128), second, Affine::var(kSlot, 256), first).empty());
}

// A tile index (`mo = t % 4` of a loop's t) or a variable no Let set to a constant is no counter.
TEST(SlotValues, ARemainderOfAnythingButACounterIsNoSlot) {
  SlotValues values;
  run(values, take(kSlot, 2));
  EXPECT_TRUE(values.facts(Affine::var(kSlot)).empty());
  values = counting();
  run(values, let(kCounter, Affine::var(kOther), LetOp::Add, 0));  // counter = other
  run(values, take(kSlot, 2));
  EXPECT_TRUE(values.facts(Affine::var(kSlot)).empty());
}

TEST(SlotValues, SettingTheCounterOtherwiseDropsItsFacts) {
  SlotValues values = counting();
  const Affine at = Affine::var(kSlot, 512);
  run(values, take(kSlot, 2));
  SlotFacts first = values.facts(at);
  run(values, let(kCounter, Affine(0), LetOp::Add, 0), {&first});  // counter = 0
  EXPECT_TRUE(first.empty());
  EXPECT_TRUE(values.facts(at).empty());
  run(values, take(kSlot, 2));
  run(values, let(kCounter, Affine::var(kOther), LetOp::Add, 1));  // counter = other + 1
  EXPECT_TRUE(values.facts(at).empty());
}

TEST(SlotValues, ABranchMergeKeepsWhatBothPathsAgreeOn) {
  SlotValues values = counting();
  run(values, take(kSlot, 2));
  SlotValues bumped = values, not_bumped = values, taken_again = values;
  run(bumped, bump());  // the slot is 1 behind the counter on one path, 0 on the other
  values = not_bumped;
  values.merge(bumped);
  EXPECT_TRUE(values.facts(Affine::var(kSlot)).empty());
  // Both paths' slot is the counter's current value: a fact on each (relative to the counter).
  run(taken_again, bump());
  run(taken_again, take(kSlot, 2));
  values = not_bumped;
  values.merge(taken_again);
  EXPECT_EQ(values.facts(Affine::var(kSlot)).size(), 1u);
}

TEST(SlotValues, ALoopDropsTheFactsAboutTheCountersItChanges) {
  SlotValues values = counting();
  run(values, take(kOther, 4));
  const SlotValues::Outer outer = values.begin_loop();
  EXPECT_EQ(values.most_slots(), 1);
  run(values, take(kSlot, 2));
  run(values, bump());
  EXPECT_EQ(values.most_slots(), 2);
  const std::set<int> changed = values.end_loop(outer);
  EXPECT_TRUE(changed.count(kCounter));
  EXPECT_TRUE(values.facts(Affine::var(kSlot)).empty());
  EXPECT_TRUE(values.facts(Affine::var(kOther)).empty());  // taken before the loop, from the counter it changes
  EXPECT_EQ(values.most_slots(), 4);  // the enclosing walk's own again
}

}  // namespace
}  // namespace cubekit::codegen
