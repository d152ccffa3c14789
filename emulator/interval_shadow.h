// Shadow state as byte intervals of equal entries.
//
// The race checker keeps, for every byte of a buffer, what last wrote it and what read it since.
// Neighbouring bytes almost always share that state (one instruction writes a whole tile, the
// next reads it all), so the state is kept as a sorted map of intervals [start, end), each with
// one entry: an access costs the intervals it meets, not the bytes it covers. `visit` splits the
// map at the access's ends, hands each piece inside to the caller (who checks and updates it),
// then joins neighbours whose entries became equal. A 16 MB tensor written by 64 KB tiles holds
// one interval per tile at most, and one in all once a single instruction has covered it.
#pragma once

#include "emulator/error.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>

namespace cubekit {

template <class Entry>
class IntervalShadow {
 public:
  // `bytes` bytes, all starting as `initial`.
  void resize(int64_t bytes, const Entry& initial = {}) {
    size_ = bytes, initial_ = initial;
    reset();
  }
  bool empty() const { return size_ == 0; }
  // Back to one interval of the initial entry: O(intervals held), not O(bytes).
  void reset() {
    pieces_.clear();
    if (size_ > 0) pieces_.emplace(0, Piece{size_, initial_});
  }
  size_t intervals() const { return pieces_.size(); }

  // Calls f(entry, lo, hi) for the intervals covering bytes [lo, hi), in address order, each cut
  // to the range; f may change the entry. Bytes outside the buffer are not visited.
  template <class F>
  void visit(int64_t lo, int64_t hi, F f) {
    lo = std::max<int64_t>(lo, 0), hi = std::min(hi, size_);
    if (lo >= hi) return;
    auto first = split(lo);
    auto last = split(hi);
    for (auto it = first; it != last; ++it) f(it->second.entry, it->first, it->second.end);
    join(first == pieces_.begin() ? first : std::prev(first), hi);
  }

 private:
  struct Piece {
    int64_t end;
    Entry entry;
  };
  using Map = std::map<int64_t, Piece>;

  // The interval starting at `at` (cutting the one that holds it in two); end() at the buffer's end.
  typename Map::iterator split(int64_t at) {
    if (at >= size_) return pieces_.end();
    auto it = std::prev(pieces_.upper_bound(at));
    CUBEKIT_ASSERT(it->first <= at && at < it->second.end, "shadow interval map has a hole at byte {}", at);
    if (it->first == at) return it;
    Piece tail{it->second.end, it->second.entry};
    it->second.end = at;
    return pieces_.emplace_hint(std::next(it), at, std::move(tail));
  }

  // Joins equal neighbours from `it` on, up to the interval starting at `until`.
  void join(typename Map::iterator it, int64_t until) {
    while (it != pieces_.end() && it->first < until) {
      auto next = std::next(it);
      if (next == pieces_.end()) return;
      if (it->second.entry == next->second.entry) {
        it->second.end = next->second.end;
        pieces_.erase(next);
        continue;
      }
      it = next;
    }
  }

  Map pieces_;
  Entry initial_{};
  int64_t size_ = 0;
};

}  // namespace cubekit
