// Which copy a slot variable selects, relative to the counter it was taken from: the split
// attention's hand-offs take `slot = counter % slots; counter += 1` (take_slot), and its vector
// code addresses a UB slot as `slot * bytes`. Two accesses at the same offset expression are in
// different slots when the counter grew between the two takes by an amount that is not a
// multiple of `slots`, which the sync pass uses to drop a barrier between a tile's in-place work
// and the previous tile's reads of the other slot:
//
//   for t ...
//     s = c % 2                  s: taken from c, 0 added since
//     c = c + 1                  s: 1 added since (and every recorded access's fact: +1)
//     vmuls ub[s * 512] ...      fact (s: c, 1 added, 2 slots); the pending read of the previous
//     vconv ... ub[s * 512]      tile has (s: c, 2 added): another slot, no barrier
//
// A counter is a variable a Let set to a constant and only Lets adding constants changed since
// (the hand-off counters; a loop's or a tile's index is not one). A fact is exact along the path
// the pass walks: a Let that sets the counter otherwise drops every fact about it; a branch merge keeps the facts both paths agree
// on (each recorded access keeps its own path's); a loop, whose trip count is not known, drops
// the facts about the counters it changes.
#pragma once

#include "codegen/ir.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace cubekit::codegen {

struct SlotValue {
  int counter = -1;
  int64_t added = 0;  // added to the counter since the value was taken
  int64_t slots = 1;
  bool operator==(const SlotValue&) const = default;
};
using SlotFacts = std::vector<std::pair<int, SlotValue>>;  // (slot variable, value)

// What a Let did to a counter, for the facts recorded with accesses.
struct CounterChange {
  int counter = -1;               // -1: no counter changed
  std::optional<int64_t> added;   // how much was added, or nothing: it was set otherwise
  void apply(SlotFacts& facts) const;
};

class SlotValues {
 public:
  CounterChange let(const Node& n);                 // after the Let `n` runs
  SlotFacts facts(const Affine& offset) const;      // the known slot values of the offset's variables
  void merge(const SlotValues& other);              // after a branch: what both paths agree on
  // A loop: begin_loop() before walking it, end_loop() after, which drops the facts about the
  // counters it changed and returns them.
  struct Outer {
    std::set<int> changed;
    int64_t most_slots;
  };
  Outer begin_loop() { return {std::exchange(changed_, {}), std::exchange(most_slots_, 1)}; }
  std::set<int> end_loop(const Outer& outer);
  // The most slots of a value taken since begin_loop(): an access to a slot meets the same slot
  // that many iterations on (1: no slot taken).
  int64_t most_slots() const { return most_slots_; }
  static void forget(SlotFacts& facts, const std::set<int>& counters);

 private:
  std::map<int, SlotValue> slot_;
  std::set<int> counters_;  // variables set to a constant and since only added to, on this path
  std::set<int> changed_;
  int64_t most_slots_ = 1;
};

// The byte distances a - b can take, given what is known of their slot variables' values: one
// when a - b is a constant, a few when slot variables of one counter differ by a known amount
// modulo their slots, none when not known (any distance).
std::vector<int64_t> slot_distances(const Affine& a, const SlotFacts& af, const Affine& b, const SlotFacts& bf);

}  // namespace cubekit::codegen
