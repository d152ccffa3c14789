// Race and initialisation checks, independent of the timing.
//
// Happens-before on one core follows only what orders instructions on the hardware:
//   - each pipe keeps a vector clock `known[p]`: for every pipe q, how many of q's instructions
//     are known to have completed before p's next instruction starts;
//   - instruction b on pipe p (its epoch = its position in p's stream) carries a copy of known[p];
//     an earlier access a (pipe q, epoch e) happens before b iff known[p][q] >= e;
//   - `barrier p` sets known[p][p] to p's epoch; `barrier ALL` sets every entry to the current
//     epochs; `set_flag p, q` snapshots known[p] with known[p][p] = p's epoch, and the wait_flag
//     that consumes it merges the snapshot into known[q].
// These values depend only on the program (flags are matched in order), never on cycle counts, so
// a missing flag is reported even when the timing happened to order the accesses right.
//
// Shadow memory keeps, per 32-byte granule, the last write and the last read of each pipe; every
// access is checked against them. Different cores (blocks) are never ordered: any conflicting
// GM access between them is a race, except atomic adds against atomic adds.
#pragma once

#include "emulator/emulator.h"
#include "emulator/isa.h"

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace cubekit {

using Clock = std::array<uint32_t, kNumPipes>;
inline constexpr int64_t kGranule = 32;

// What a pipe knows of other execution units (a core running one block): their race-checker
// clocks, sorted by unit, immutable and shared (copying it is a pointer copy; null: nothing).
struct UnitClock {
  int32_t unit;
  Clock clock;
};
using Knowledge = std::shared_ptr<const std::vector<UnitClock>>;
// Element-wise maximum of both (a null side is nothing).
Knowledge merge_knowledge(const Knowledge& a, const Knowledge& b);
// `a` with `unit`'s clock raised to at least `clock`.
Knowledge with_unit_clock(const Knowledge& a, int32_t unit, const Clock& clock);
const Clock* find_unit_clock(const Knowledge& k, int32_t unit);  // null when absent

// A dynamic instruction: which pipe, its epoch there, and its index in the program.
struct Access {
  uint32_t epoch = 0;  // 0: none
  int32_t index = -1;
  uint8_t pipe = 0;
  int32_t block = -1;
  bool atomic = false;
  uint64_t order = 0;  // when the scalar unit issued it: races are told in program order
  int32_t unit = -1;   // the execution unit (a core running one block) whose epochs these are
  int16_t core = 0;
};

struct RaceReporter {
  const Program& program;
  RunResult& sink;  // diagnostics of this core
  int core;
  void race(const Access& earlier, const Access& later, bool earlier_writes, bool later_writes, std::string_view buffer,
            int64_t lo, int64_t hi, uint64_t time);
  void uninitialised(const Access& reader, std::string_view buffer, int64_t lo, int64_t hi);
};

// Shadow state is kept per 32-byte granule, and refined to per-byte entries for a granule the
// first time an access covers only part of it (two tiles' rows meeting inside a granule write
// different bytes: no race). Granules live in pages made on first touch, and a reset drops the
// pages touched: a run pays for the bytes its program accesses, not for every core's whole L1.
template <class Entry>
class Granules {
 public:
  // n granules, each starting as `initial`.
  void resize(size_t n, const Entry& initial = {}) {
    pages_.clear();
    pages_.resize((n + kPage - 1) / kPage);
    touched_.clear(), fine_.clear();
    initial_ = initial, size_ = n;
  }
  bool empty() const { return size_ == 0; }
  void reset() {
    for (uint32_t p : touched_) pages_[p].reset();
    touched_.clear(), fine_.clear();
  }
  // Calls f(entry, lo, hi) for the entries covering bytes [lo, hi) of granule g (absolute bytes).
  template <class F>
  void visit(int64_t g, int64_t lo, int64_t hi, F f) {
    Page& page = page_of(size_t(g));
    const size_t i = size_t(g) % kPage;
    int64_t start = g * kGranule;
    if (page.fine_of[i] < 0) {
      if (lo == start && hi == start + kGranule) return f(page.coarse[i], lo, hi);
      page.fine_of[i] = int32_t(fine_.size());
      fine_.emplace_back();
      fine_.back().fill(page.coarse[i]);
    }
    auto& bytes = fine_[size_t(page.fine_of[i])];
    for (int64_t b = lo; b < hi; ++b) f(bytes[size_t(b - start)], b, b + 1);
  }

 private:
  static constexpr size_t kPage = 128;  // granules (4 KB of the buffer)
  struct Page {
    std::array<Entry, kPage> coarse;
    std::array<int32_t, kPage> fine_of;  // per granule: its per-byte entries in fine_, or -1
  };
  Page& page_of(size_t g) {
    std::unique_ptr<Page>& p = pages_[g / kPage];
    if (!p) {
      p = std::make_unique<Page>();
      p->coarse.fill(initial_);
      p->fine_of.fill(-1);
      touched_.push_back(uint32_t(g / kPage));
    }
    return *p;
  }
  std::vector<std::unique_ptr<Page>> pages_;
  std::vector<uint32_t> touched_;
  std::vector<std::array<Entry, 32>> fine_;
  Entry initial_{};
  size_t size_ = 0;
};

// One core's buffers. Its own unit accesses them, and on the 950 the partner core of its group
// writes some (fixpipe into a vector core's UB, copy_ub_l1 into the cube core's L1): an access of
// another unit is ordered by what `remote` knows of that unit, as GM accesses are.
class LocalShadow {
 public:
  explicit LocalShadow(const ChipConfig& chip);
  void reset();  // a new block starts: nothing written, nothing accessed
  // Checks the regions of `fp` in the spaces of `spaces` (a bit per Space).
  void check(const Footprint& fp, const Access& who, const Clock& known, const Knowledge& remote, uint32_t spaces,
             RaceReporter& out, uint64_t time);

 private:
  struct Entry {
    Access write;
    std::array<uint32_t, kNumPipes> read_epoch{};
    std::array<int32_t, kNumPipes> read_index{};
    std::array<uint64_t, kNumPipes> read_order{};
    std::array<int32_t, kNumPipes> read_unit{};
    bool written = false;
  };
  Granules<Entry> granules_[kNumSpaces];
};

// A GM access waiting for the end of the window.
struct GmAccess {
  uint64_t time = 0;
  int core = 0;
  uint64_t seq = 0;
  Region region;
  Access who;
  Clock known{};
  Knowledge remote;  // what it knew of other units
};

class GmShadow {
 public:
  // `cross_core`: the program has cross-core flags, so reads of different units may be ordered
  // before a write and are kept one by one (otherwise one flag says that several units read).
  GmShadow(const GlobalMemory& gm, bool cross_core);
  // Checks accesses in (time, core, seq) order.
  void check(std::vector<const GmAccess*>& accesses, const Program& program, std::vector<RunResult*>& sinks);

 private:
  struct Entry {
    Access write;
    Access read;  // the last read since the write
    // Earlier reads since the write, by other units, that no later read is known to follow (the
    // AIVs of a group reading one workspace); shared by the per-byte copies of a granule until
    // one of them changes (copy on write). Null: none.
    std::shared_ptr<std::vector<Access>> other_reads;
    bool reads_from_many_units = false;  // without cross-core flags: reads of units nothing orders
    bool written = false;
  };
  std::vector<Granules<Entry>> tensors_;
  const GlobalMemory& gm_;
  bool cross_core_;
};

}  // namespace cubekit
