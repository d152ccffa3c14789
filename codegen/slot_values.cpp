#include "codegen/slot_values.h"

#include <algorithm>

namespace cubekit::codegen {

namespace {

bool is_var(const Affine& a, int v) { return a.c == 0 && a.terms.size() == 1 && a.terms[0] == std::pair<int, int64_t>{v, 1}; }

int64_t modulo(int64_t x, int64_t m) { return ((x % m) + m) % m; }

}  // namespace

void CounterChange::apply(SlotFacts& facts) const {
  if (counter < 0) return;
  if (!added) return SlotValues::forget(facts, {counter});
  for (auto& [v, value] : facts)
    if (value.counter == counter) value.added += *added;
}

CounterChange SlotValues::let(const Node& n) {
  const bool was_counter = counters_.count(n.var) > 0;
  CounterChange change{was_counter ? n.var : -1, std::nullopt};
  if (n.let_op == LetOp::Add && is_var(n.a, n.var)) change.added = n.b;  // counter += b
  for (auto it = slot_.begin(); it != slot_.end();) {
    if (it->first == n.var || (it->second.counter == n.var && !change.added)) {
      it = slot_.erase(it);
      continue;
    }
    if (it->second.counter == n.var) it->second.added += *change.added;
    ++it;
  }
  // A counter: set to a constant, then only added to (a loop's or a tile's index is neither).
  const bool counter = (n.let_op == LetOp::Add && n.a.constant()) || (was_counter && change.added);
  if (counter) counters_.insert(n.var);
  else counters_.erase(n.var);
  if (counter || was_counter) changed_.insert(n.var);
  const bool taken = n.let_op == LetOp::Rem && n.b > 1 && n.a.terms.size() == 1 && counters_.count(n.a.terms[0].first);
  if (taken && is_var(n.a, n.a.terms[0].first) && n.a.terms[0].first != n.var) {  // slot = counter % slots
    slot_[n.var] = {n.a.terms[0].first, 0, n.b};
    most_slots_ = std::max(most_slots_, n.b);
  }
  return change;
}

SlotFacts SlotValues::facts(const Affine& offset) const {
  SlotFacts out;
  for (const auto& [v, coefficient] : offset.terms)
    if (auto it = slot_.find(v); it != slot_.end()) out.push_back({v, it->second});
  return out;
}

void SlotValues::merge(const SlotValues& other) {
  std::erase_if(slot_, [&](const auto& e) {
    auto it = other.slot_.find(e.first);
    return it == other.slot_.end() || !(it->second == e.second);
  });
  std::erase_if(counters_, [&](int c) { return !other.counters_.count(c); });
  changed_.insert(other.changed_.begin(), other.changed_.end());
  most_slots_ = std::max(most_slots_, other.most_slots_);
}

std::set<int> SlotValues::end_loop(const Outer& outer) {
  std::set<int> changed = std::exchange(changed_, outer.changed);
  most_slots_ = outer.most_slots;  // (the facts about values taken inside are dropped below)
  std::erase_if(slot_, [&](const auto& e) { return changed.count(e.second.counter) > 0; });
  changed_.insert(changed.begin(), changed.end());
  return changed;
}

void SlotValues::forget(SlotFacts& facts, const std::set<int>& counters) {
  std::erase_if(facts, [&](const auto& e) { return counters.count(e.second.counter) > 0; });
}

std::vector<int64_t> slot_distances(const Affine& a, const SlotFacts& af, const Affine& b, const SlotFacts& bf) {
  Affine d = a - b;
  std::vector<int64_t> out = {0};
  std::set<int> used;  // variables of b already paired
  for (const auto& [v, x] : af)
    for (const auto& [w, y] : bf) {
      const int64_t k = a.coefficient(v);
      if (x.counter != y.counter || x.slots != y.slots || k == 0 || b.coefficient(w) != k || used.count(w)) continue;
      if (v != w) {  // two slot variables from one counter (a branch's take and another's)
        if (d.coefficient(v) != k || d.coefficient(w) != -k) continue;
        d = d - Affine::var(v, k) + Affine::var(w, k);
      }
      used.insert(w);
      // a's value was taken y.added - x.added after b's (modulo slots): the same slot, or values
      // d or d - slots apart.
      const int64_t apart = modulo(y.added - x.added, x.slots);
      if (apart == 0) break;
      std::vector<int64_t> next;
      for (int64_t base : out)
        for (int64_t slots_apart : {apart, apart - x.slots}) next.push_back(base + k * slots_apart);
      out = std::move(next);
      break;
    }
  if (!d.constant()) return {};
  for (int64_t& distance : out) distance += d.c;
  return out;
}

}  // namespace cubekit::codegen
