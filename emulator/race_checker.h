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
// Shadow memory keeps, per byte, the last write and the last read of each pipe, as intervals of
// bytes that share them (interval_shadow.h); every access is checked against the intervals it meets.
// Where the last write raced an earlier one, that one is kept too: an access ordered after the
// last write alone (a barrier on its pipe) still races the other, whichever the timing took first. Different cores (blocks) are never ordered: any conflicting
// GM access between them is a race, except atomic adds against atomic adds.
#pragma once

#include "emulator/emulator.h"
#include "emulator/interval_shadow.h"
#include "emulator/isa.h"

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace cubekit {

using Clock = std::array<uint32_t, kNumPipes>;

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
  friend bool operator==(const Access&, const Access&) = default;
};

struct CrossTopology;  // cross_core.h

// Earlier writes a shadow entry keeps beside its last write (that write raced them), out of line:
// rare, and an entry's size is what copying and comparing intervals cost. Ids from 1; 0 is none.
class RacingWrites {
 public:
  // The last kept again (the pieces of one interval) reuses its id. A run racing in every step of a
  // long loop keeps the first kMax (some 40 MB) and then none: its first races are reported anyway.
  int32_t keep(const Access& w) {
    if (writes_.empty() || !(writes_.back() == w)) {
      if (writes_.size() >= kMax) return 0;
      writes_.push_back(w);
    }
    return int32_t(writes_.size());
  }
  const Access* get(int32_t id) const { return id > 0 ? &writes_[size_t(id - 1)] : nullptr; }

 private:
  static constexpr size_t kMax = size_t(1) << 20;
  std::vector<Access> writes_;
};

struct RaceReporter {
  const Program& program;
  RunResult& sink;  // diagnostics of this core
  int core;         // the core whose memory (or GM accesses) is checked; a race names the core that ran it
  const CrossTopology* topology = nullptr;  // a split chip's cores (kind, group): which cross-core flag to advise
  // `read_too_early`: `earlier` read bytes nothing had written, which `later` (another unit) then
  // wrote: the advice orders the read after the write, as a hand-off means.
  void race(const Access& earlier, const Access& later, bool earlier_writes, bool later_writes, std::string_view buffer,
            int64_t lo, int64_t hi, uint64_t time, bool read_too_early = false);
  void uninitialised(const Access& reader, std::string_view buffer, int64_t lo, int64_t hi);
};

// One core's buffers. Its own unit accesses them, and on the 950 the partner core of its group
// writes some (fixpipe into a vector core's UB, copy_ub_l1 into the cube core's L1): an access of
// another unit is ordered by what `remote` knows of that unit, as GM accesses are.
class LocalShadow {
 public:
  explicit LocalShadow(const ChipConfig& chip);
  // The core starts `block` in the spaces of `spaces`: what its earlier block wrote and read is
  // forgotten (that block has drained; its bytes are leftovers nobody wrote in this one), but a
  // partner's write for this block or a later one, which may arrive before the core gets there,
  // stays: it is what this block will read, and a race if an earlier block still used the bytes.
  void start_block(uint32_t spaces, int32_t block);
  // Checks the regions of `fp` in the spaces of `spaces` (a bit per Space).
  void check(const Footprint& fp, const Access& who, const Clock& known, const Knowledge& remote, uint32_t spaces,
             RaceReporter& out, uint64_t time);

 private:
  struct Entry {
    Access write;
    // An earlier write that `write` is not ordered after (a race, reported when `write` came):
    // kept, so that a later access ordered after `write` alone still meets it (racing_'s id).
    int32_t racing = 0;
    std::array<uint32_t, kNumPipes> read_epoch{};
    std::array<int32_t, kNumPipes> read_index{};
    std::array<uint64_t, kNumPipes> read_order{};
    std::array<int32_t, kNumPipes> read_unit{};
    std::array<int32_t, kNumPipes> read_block{};
    std::array<bool, kNumPipes> read_unwritten{};  // the read found bytes nothing had written yet
    bool written = false;
    bool operator==(const Entry&) const = default;
  };
  IntervalShadow<Entry> shadow_[kNumSpaces];
  RacingWrites racing_;
};

// Which GM tensors the GM shadow must follow: those some instruction may write (GM is written only
// through operands named `dst`: copy_ub_gm, copy_ub_gm_pad, fixpipe), and those the host does not
// fill (a read of one no instruction writes is a read of unwritten memory). Reads of an input no
// instruction writes can neither race nor read unwritten bytes: following them cost the matmuls'
// functional runs a fifth of their time (A and B read by every core, a row at a time).
std::vector<bool> gm_tensors_to_check(const Program& program);


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
  // `topology`: a split chip's cores, which the advice of a race between them names (or null).
  GmShadow(const GlobalMemory& gm, bool cross_core, const CrossTopology* topology);
  // Checks accesses in (time, core, seq) order.
  void check(std::vector<const GmAccess*>& accesses, const Program& program, std::vector<RunResult*>& sinks);
  // The byte ranges [lo, hi) of `tensor` no instruction wrote, in address order (all of it when
  // nothing touched it), and the host did not give.
  std::vector<std::pair<int64_t, int64_t>> unwritten(size_t tensor) const;

 private:
  struct Entry {
    Access write;
    int32_t racing = 0;  // an earlier write `write` is not ordered after (as LocalShadow's): racing_'s id
    Access read;  // the last read since the write
    // Earlier reads since the write, by other units, that no later read is known to follow (the
    // AIVs of a group reading one workspace); shared by the intervals split from one until one of
    // them changes (copy on write). Null: none.
    std::shared_ptr<std::vector<Access>> other_reads;
    bool reads_from_many_units = false;  // without cross-core flags: reads of units nothing orders
    bool written = false;
    bool operator==(const Entry&) const = default;  // other_reads: the same list, not equal lists
  };
  std::vector<IntervalShadow<Entry>> tensors_;
  RacingWrites racing_;
  const GlobalMemory& gm_;
  const CrossTopology* topology_;
  bool cross_core_;
};

// An `out` tensor is the kernel's to write whole: the host gets every byte back, and bytes no
// instruction wrote come back as the zeros GM started with, silently (a tile loop one short, a
// tail never stored). One Unwritten diagnostic per such tensor, after a run that ended normally;
// `blocks` is how many the launch ran (fewer than .block_dim explains a gap).
void report_unwritten_outputs(const GmShadow& shadow, const Program& program, int blocks,
                              std::vector<Diagnostic>& out);

}  // namespace cubekit
