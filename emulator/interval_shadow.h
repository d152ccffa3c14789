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
#include "emulator/isa.h"
#include "emulator/memory.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <vector>

namespace cubekit {

// Calls f(lo, hi) for the byte ranges a region touches, its chunks in order, a chunk that starts
// inside or right after the range before joined to it (rows of a tile back to back, a broadcast's
// repeated reads): checking a byte twice for one access finds nothing the first check did not.
// A masked vector operand's chunks (Region::byte_mask) are their active bytes' runs.
template <class F>
void for_each_run(const Region& r, F f) {
  int64_t lo = 0, hi = -1;
  auto add = [&](int64_t start, int64_t end) {
    if (start >= lo && start <= hi) {
      hi = std::max(hi, end);
      return;
    }
    if (hi > lo) f(lo, hi);
    lo = start, hi = end;
  };
  for (int64_t j = 0; j < r.n2; ++j)
    for (int64_t i = 0; i < r.n1; ++i) {
      const int64_t start = r.base + i * r.s1 + j * r.s2;
      if (!r.byte_mask) {
        add(start, start + r.bytes);
        continue;
      }
      for (uint32_t m = r.byte_mask; m;) {  // each run of set bits [a, b)
        const int a = std::countr_zero(m), b = a + std::countr_one(m >> a);
        add(start + a, start + b);
        m = b >= 32 ? 0 : m & ~((uint32_t(1) << b) - 1);
      }
    }
  if (hi > lo) f(lo, hi);
}

// The memory of one map's nodes (all of one size): chunks that double from 1 KB, from the heap up
// to 64 KB and then from 2 MB on in huge pages (ZeroedBytes), and a free list. A tensor's shadow
// holds 10^5 intervals and more: from malloc each 4 KB page of them cost a page fault (on a virtual
// machine some 30 us: 10,000 faults in a functional matmul of 2048^3). A small map (a core's UB)
// stays a kilobyte or two.
class NodePool {
 public:
  void* take(size_t bytes) {
    if (free_) {
      void* p = free_;
      free_ = *static_cast<void**>(p);
      return p;
    }
    const size_t size = (std::max(bytes, sizeof(void*)) + 15) / 16 * 16;
    if (chunks_.empty() || used_ + size > chunks_.back().size) grow(size);
    void* p = chunks_.back().data + used_;
    used_ += size;
    return p;
  }
  void give(void* p) {
    *static_cast<void**>(p) = free_;
    free_ = p;
  }

 private:
  struct Chunk {
    std::unique_ptr<uint8_t[]> heap;
    ZeroedBytes huge;
    uint8_t* data = nullptr;
    size_t size = 0;
  };
  void grow(size_t at_least) {
    // Up to 64 KB from the heap, which small maps share; then 2 MB and more in huge pages.
    constexpr size_t kFirst = 1024, kLastFromHeap = size_t(64) << 10, kLargest = size_t(32) << 20;
    const size_t last = chunks_.empty() ? 0 : chunks_.back().size;
    const size_t next = last == 0 ? kFirst : last < kLastFromHeap ? last * 2 : std::clamp(last * 2, kHugePage, kLargest);
    Chunk c;
    c.size = std::max(at_least, next);
    if (c.size >= kHugePage) c.huge = ZeroedBytes(c.size, true), c.data = c.huge.data();
    else c.heap = std::make_unique_for_overwrite<uint8_t[]>(c.size), c.data = c.heap.get();
    chunks_.push_back(std::move(c));
    used_ = 0;
  }
  std::vector<Chunk> chunks_;
  size_t used_ = 0;
  void* free_ = nullptr;
};

// std::map's allocator over a NodePool: nodes one at a time from the pool (a map allocates
// nothing else); without a pool, the heap's.
template <class T>
struct PoolAllocator {
  using value_type = T;
  NodePool* pool;
  explicit PoolAllocator(NodePool* p) : pool(p) {}
  template <class U>
  PoolAllocator(const PoolAllocator<U>& o) : pool(o.pool) {}
  T* allocate(size_t n) {
    if (pool && n == 1) return static_cast<T*>(pool->take(sizeof(T)));
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, size_t n) {
    if (pool && n == 1) pool->give(p);
    else std::allocator<T>().deallocate(p, n);
  }
  template <class U>
  bool operator==(const PoolAllocator<U>& o) const { return pool == o.pool; }
};

template <class Entry>
class IntervalShadow {
 public:
  // `pooled`: the intervals' nodes from a pool of their own (NodePool: for a shadow that may hold
  // 10^5 of them, a GM tensor's), else from the heap (a core's buffers: a few each).
  explicit IntervalShadow(bool pooled = false)
      : pool_(pooled ? std::make_unique<NodePool>() : nullptr), pieces_(PoolAllocator<std::pair<const int64_t, Piece>>(pool_.get())) {}
  IntervalShadow(IntervalShadow&&) = default;  // the pool moves with its nodes
  IntervalShadow& operator=(IntervalShadow&&) = delete;
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
  // Calls f(entry, lo, hi) for every interval, in address order.
  template <class F>
  void for_each(F f) const {
    for (const auto& [lo, piece] : pieces_) f(piece.entry, lo, piece.end);
  }

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
  using Map = std::map<int64_t, Piece, std::less<int64_t>, PoolAllocator<std::pair<const int64_t, Piece>>>;

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

  // The pool first: the map's nodes go back to it. Held by pointer, so that the shadow can move.
  std::unique_ptr<NodePool> pool_;
  Map pieces_;
  Entry initial_{};
  int64_t size_ = 0;
};

}  // namespace cubekit
