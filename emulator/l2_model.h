// The memory system the cores share in the timing model: a line-granular L2 in front of HBM,
// modelled in simulated-time order (one thread, so deterministic).
//
// A read of a line that is in L2 is a hit; a read of a line being filled (another core missed it
// a moment ago) merges with that fill: it waits for the data but costs HBM nothing (counted apart
// from hits); any other read misses, fetches the line from HBM and makes it present once the fill
// completes. Replacement: a miss in a full L2 evicts the least recently used of
// l2_replacement_candidates pseudo-randomly chosen lines (sampled LRU: 1 candidate is random
// replacement, many approach LRU). A cyclic sweep a little larger than L2 then still hits in part,
// as on hardware, where LRU would miss every line.
// Two shared servers: HBM, which each missed line and each write-back occupies for its bytes at
// hbm_rate x hbm_efficiency (plus hbm_turnaround_cycles whenever it turns between reading and
// writing), so cores that all stream compete while cores that read the same panels share them;
// and L2's read ports, which hit and merged bytes occupy at l2_rate: one port per core kind, shared
// by all cores of that kind (the cube cores of a split chip reach L2 apart from its vector cores).
// Writes allocate their lines in L2 (write-back, write-allocate). A line's bytes pay their HBM
// write-back once per residency, when they first become dirty: a workspace slot rewritten while it
// stays in L2 (a cube core handing S to its vector cores tile after tile) costs HBM nothing more,
// while a kernel that writes each byte once (every streaming kernel) pays exactly what it writes.
// Charging at the first write rather than at eviction keeps that write-once cost where it was
// measured (rows stream_add_*); dirtiness is tracked in 1/64-line sectors.
//
// Which line an eviction chooses costs nothing at the time (write-backs are charged at the first
// write): it only decides whether a later request finds an old line. So a request whose every line
// is new to L2 (never in it) is costed at once and its lines only marked, its replacement deferred;
// the deferred requests are replayed, in order, before a request that touches a line L2 has seen
// (resolve()). A streaming kernel, which never touches a line twice, never pays for choosing
// victims; the replacement, ages and pseudo-random sequence are the same as if every request had
// been replayed at once. A kernel that does come back to its lines pauses deferring (come_back()),
// which then only costs it the marks and the log.
#pragma once

#include "emulator/chip_config.h"
#include "emulator/isa.h"
#include "emulator/memory.h"
#include "emulator/program.h"

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace cubekit {

struct L2Counts {
  int64_t hit_lines = 0, merged_lines = 0, miss_lines = 0, hbm_read_bytes = 0, hbm_write_bytes = 0;
};

class L2Model {
 public:
  L2Model(const ChipConfig& chip, const std::vector<TensorDecl>& tensors);
  // The same on `state`: state_bytes(chip, tensors) zeroed bytes that outlive the model (simulate
  // maps them with the cores' queues, so that the huge pages cleared for both are used in full).
  L2Model(const ChipConfig& chip, const std::vector<TensorDecl>& tensors, ZeroedBytes state);
  static size_t state_bytes(const ChipConfig& chip, const std::vector<TensorDecl>& tensors);

  struct Cost {
    int64_t latency = 0, occupancy = 0;
  };
  // The cost of the GM reads (or writes) of one instruction that starts at `time`, over a core's
  // path of `rate` (its port to L2: hits and writes at that rate, CoreConfig::paths). `efficiency`
  // (0..1] scales the core's own transfer rates (short or misaligned bursts); the shared servers do
  // not see it.
  Cost read(const Footprint& fp, uint64_t time, int64_t requested_bytes, double rate, double efficiency,
            L2Counts& counts, CoreKind port);
  Cost write(const Footprint& fp, uint64_t time, int64_t bytes, double rate, double efficiency, L2Counts& counts);
  // For tests of the age counter's wrap: the next request's id follows `id`.
  void start_requests_at(uint32_t id) {
    resolve();
    request_ = id;
  }
  // For tests: every request replayed at once (nothing deferred), which must change no cost; and
  // every request deferred that can be (no pause after a come-back).
  void defer_nothing() { defer_ = false; }
  void defer_always() { never_pause_ = true; }

 private:
  struct Line {
    uint64_t key;
    uint64_t ready;      // when its data is in L2
    uint64_t dirty = 0;  // the sectors (1/64 of the line each) written since it came into L2
  };
  // Per slot, apart from the lines: the last request that visited it (a request counts a line
  // once; the LRU age). An eviction probes the ages of two random slots: 4 bytes a slot keep them
  // in the host's L2 cache (256 KB for the 910's 64K lines), where the lines' 24 bytes did not.
  using Age = uint32_t;
  // Calls f(line id, run) for every line the GM regions of one direction touch (a line may
  // repeat); `run` is the length in bytes of the contiguous run the line is part of.
  template <class F>
  void for_each_line(const Footprint& fp, bool writes, F f) const;
  // Calls f(line id, sector mask, sectors in the mask) for every line a write touches, with the
  // sectors it covers.
  template <class F>
  void for_each_written_sector(const Footprint& fp, F f) const;
  // One request's view of the replacement's state, in locals: a store into lines_ may alias every
  // uint64_t and size_t member, which the compiler then reloaded at every line. Taken from and
  // given back to random_, the ring's positions and used_ once a request.
  struct Request {
    uint64_t random;
    uint64_t next, end;  // drawn_[next % kRing] .. drawn_[(end - 1) % kRing] are drawn
    Age id;
    Line* lines;    // lines_'s, ages_'s, slot_'s and drawn_'s storage (through the members each access reloaded it)
    Age* ages;
    int32_t* slot;
    size_t* drawn;
    size_t mask;      // capacity_mask_
    size_t used;      // used_
    size_t capacity;  // capacity_
    bool two_candidates;  // two_candidates_
  };
  Age next_request() {
    if (request_ == std::numeric_limits<Age>::max()) resolve(), renumber_ages();
    return ++request_;
  }
  Request state(Age id) {
    return {random_, drawn_next_, drawn_end_, id, &lines_[0], &ages_[0], &slot_[0], drawn_, capacity_mask_, used_, capacity_, two_candidates_};
  }
  // The ages ranked anew from 1, in the same order (once every 4 billion requests): replacement
  // compares ages only with each other and with the current request.
  void renumber_ages();
  void end_request(const Request& r) { random_ = r.random, drawn_next_ = r.next, drawn_end_ = r.end, used_ = r.used; }
  static int32_t find(uint64_t key, const Request& r);       // the slot holding line `key`, -1 when L2 has it not
  int32_t insert(uint64_t key, uint64_t ready, Request& r);  // its slot; evicts a line when L2 is full
  size_t victim(Request& r);                                 // the slot a miss in a full L2 reuses
  // The ring refilled: the sequence's next kRing slots from `next` on, prefetched. Its state by value,
  // not in the Request: a Request whose address a call took lived in memory, not in registers.
  struct Drawn {
    uint64_t random, end;
  };
  [[gnu::noinline]] Drawn draw_ahead(Drawn d, uint64_t next, size_t mask, const Age* ages, const Line* lines);
  // When a transfer of `bytes` starting at `time` ends on HBM (`write`: a write-back) or L2's port.
  // `scattered` of the bytes are read in runs shorter than a DRAM page (hbm_page_bytes).
  uint64_t reserve_hbm(uint64_t time, int64_t bytes, bool write, int64_t scattered = 0);
  uint64_t reserve_l2(CoreKind port, uint64_t time, double bytes);

  // Deferred replacement (the header comment): what a deferred request's lines get, its GM
  // regions kept in deferred_regions_.
  struct Deferred {
    uint64_t arrive;        // a read's time plus its latency; a write's time (its lines' `ready`)
    uint64_t fill, misses;  // a read's: HBM's cycles to fill its lines, and how many (read()'s arrivals)
    size_t regions_end;     // its regions end here in deferred_regions_, and start where the previous one's end
    Age id;
    bool write;
  };
  struct NewLines {  // what a deferred request touches
    int64_t lines = 0, scattered = 0;  // lines; of them, in runs shorter than a DRAM page
    int64_t sectors = 0;               // the sectors its runs cover
  };
  // Whether every line the request touches is new to L2 (in no slot, deferred by no request): then
  // its lines are marked deferred (slot_ kDeferred), its regions logged and `n` counts them; else
  // nothing changes.
  bool defer(const Footprint& fp, bool writes, NewLines& n);
  // The marks of deferred_regions_[begin..] and of the first `runs` runs of `partial` undone; false.
  bool unmark(size_t begin, const Region& partial, int64_t runs);
  void resolve();  // every deferred request replayed, in order
  void come_back();  // resolve(), before a request that touches a line L2 has seen, and a pause of deferring
  static constexpr uint32_t kFirstPause = 4096, kMaxPause = 1 << 20;  // requests
  uint32_t pause_ = 0, paused_ = 0;  // the last pause's length; requests left of it
  bool never_pause_ = false;          // defer_always()
  // Not a byte repeated: marking is then a loop the compiler vectorises, not a call of memset a run.
  static constexpr int32_t kDeferred = std::numeric_limits<int32_t>::min();
  // Deferred regions at most, before they are replayed anyway: the log stays within a few hundred KB.
  static constexpr size_t kMaxDeferredRegions = size_t(1) << 12;
  std::vector<Deferred> deferred_;
  std::vector<Region> deferred_regions_;
  bool defer_ = true;

  struct Layout;  // where slot_ and lines_ lie in state_
  static Layout layout(const ChipConfig& chip, const std::vector<TensorDecl>& tensors);

  const TimingConfig& t_;
  std::vector<uint64_t> first_line_;  // per tensor: the id of its first line (lines are numbered densely)
  // Megabytes for big tensors and L2s, in huge pages: a 4 KB page fault each 128 lines cost a
  // timing-only add of 4096^2 a third of its run on a virtual machine.
  ZeroedBytes state_;           // slot_, lines_ and ages_, one after the other
  // Per line id: its slot in lines_ plus one, 0 for a line never in L2. An evicted line's entry is
  // left as it was (one random write less an eviction): the slot it names holds another line now.
  ZeroedArray<int32_t> slot_;
  ZeroedArray<Line> lines_;    // the first `used_` of `capacity_`
  ZeroedArray<Age> ages_;      // as many
  size_t used_ = 0;
  uint64_t random_ = 0;               // the replacement's pseudo-random sequence (splitmix64 state)
  // The sequence's next slots, drawn ahead in a tight loop and their lines prefetched: the probes
  // of a streaming kernel's evictions are cache misses on the host. An eviction finds at least
  // kAhead drawn (every candidate, l2_replacement_candidates <= 64, and the walk's start).
  static constexpr size_t kRing = 128, kAhead = 65;
  size_t drawn_[kRing] = {};
  uint64_t drawn_next_ = 0, drawn_end_ = 0;  // the ring's positions, as in Request
  size_t capacity_;
  size_t capacity_mask_ = 0;  // capacity_ - 1 where capacity_ is a power of two (every preset's)
  bool two_candidates_ = false;  // l2_replacement_candidates == 2 (the 910's)
  double hbm_free_ = 0;  // when HBM can start the next transfer
  bool hbm_writing_ = false;  // the direction of HBM's last transfer
  double l2_free_[kNumCoreKinds] = {};  // per port: when it can start the next transfer
  std::vector<int32_t> missed_;  // slots of the lines the current request fetches
  std::vector<std::pair<int32_t, uint64_t>> written_;  // slots and sectors the current write dirties
  Age request_ = 0;
};

}  // namespace cubekit
