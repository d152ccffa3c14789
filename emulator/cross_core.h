// Cross-core synchronisation on the split chips: Ascend C's CrossCoreSetFlag / CrossCoreWaitFlag
// (hiascend atlasascendc_api_07_0265), as the timing model's shared engine.
//
// Every core has a counter per flag id (0..kCrossFlagIds-1), initially 0. `set_cross P, mode=M,
// id=N` adds to counters once it fires; `wait_cross P, id=N` holds its pipe while the core's
// counter of N is 0, then subtracts 1. Who receives a set depends on its mode:
//   0  every core of the setter's kind in the launch: once each of them has set N (its k-th set
//      of N counts toward round k), each of them gets +1;
//   1  the AIVs of one group: once both have set N, each gets +1 (an AIC setting mode 1 is a sync
//      error);
//   2  AIC <-> AIV of one group: an AIC's set gives each AIV of its group +1; once both AIVs have
//      set N, their AIC gets +1.
// "Both" is both AIVs of the chip's group, not those of it the launch runs: an AIV the launch
// leaves idle (a vector-only launch of one block runs AIV 0 alone) never sets, so its partner's
// round never completes and a wait for it deadlocks, as on the hardware; the set is a sync error
// naming the missing AIV.
// An increment reaches its counters `latency` cycles after the last set of its round fired. It
// carries what the setters knew (their race-checker clocks, Knowledge below), which the wait
// merges: that is the cross-core happens-before of the checker.
//
// The engine is driven on one thread in simulated-time order (simulate.cpp), so what it decides
// is deterministic. It knows cores by their index in the run and nothing of pipes or programs.
#pragma once

#include "emulator/launch.h"
#include "emulator/program.h"
#include "emulator/race_checker.h"

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace cubekit {

inline constexpr int kCrossFlagIds = 11;       // ids 0..10 (Ascend C: flagId 0-10)
inline constexpr int kCrossMaxOutstanding = 16;  // increments a counter holds at most

enum class CrossRole : uint8_t { Aic, Aiv };
std::string_view cross_role_name(CrossRole r);  // "aic", "aiv"

// The cores of a run as cross-core flags see them: each core's kind and its group (one AIC and
// its AIVs); `sub` is an AIV's index in its group (subblock_idx).
struct CrossTopology {
  struct Core {
    CrossRole role;
    int group;
    int sub;
  };
  std::vector<Core> cores;  // by the core's index in the run
  int aivs_per_group = 2;   // the chip's vector_cores_per_cube: the AIVs a mode-1 or mode-2 round waits for
  // A mixed launch's groups run the same blocks in the same sequence (the AIC and its AIVs share each
  // block); a launch of one kind gives each core blocks of its own.
  bool blocks_shared = true;
};

// One increment on its way to (or in) a core's counter.
struct CrossDelivery {
  uint64_t time = 0;    // when it reaches the counter
  Knowledge knowledge;  // what the setters of its round knew
  int32_t set_index = -1;  // the set_cross that completed its round
  int setter_core = -1;
  uint64_t window = 0;  // the simulation window in which that set was processed
};

class CrossCore {
 public:
  CrossCore(CrossTopology topology, uint64_t latency);

  // A set_cross of `id` with `mode` by `core`, firing at `fire`, knowing `knowledge`. Appends
  // the cores whose counters it (or the round it completes) increments to `woken`, and problems
  // (a mode the core's kind cannot use, a round nobody receives, a counter past
  // kCrossMaxOutstanding) to `errors`, as messages about the set.
  void set(int core, int mode, int id, uint64_t fire, const Knowledge& knowledge, int32_t index,
           std::vector<int>& woken, std::vector<std::string>& errors);
  // The oldest increment of `core`'s counter `id` not yet consumed (it may still be on its way:
  // its time is in the future); null when none is coming.
  const CrossDelivery* front(int core, int id) const;
  CrossDelivery consume(int core, int id);  // front() must exist

  // The counters still holding increments when the run ends: (core, id, count, last set_cross).
  struct Leftover {
    int core, id, count;
    int32_t set_index;
    int setter_core;
  };
  std::vector<Leftover> leftovers() const;
  // Why a round whose increment would reach `core`'s counter `id` stays open: which of its cores
  // set how often (a core's k-th set joins round k); empty when no round for it is open.
  std::string open_round(int core, int id) const;

  const CrossTopology& topology() const { return topology_; }
  uint64_t window = 0;  // the driver's window count, stamped on deliveries

 private:
  // Sets that complete only when every participant has set: one per (mode, group or kind, id).
  struct Round {
    int sets = 0;
    uint64_t fire = 0;
    Knowledge knowledge;
    int32_t index = -1;
    int core = -1;
  };
  struct Rounds {
    std::vector<int> participants;  // those in the launch
    int required = 0;               // sets that complete a round (participants the round waits for)
    std::vector<int> made;     // per participant: sets made so far
    std::deque<Round> open;    // rounds not yet complete, the oldest first
    int first = 0;             // the round number of open.front()
  };
  Rounds& rounds(int mode, int key, int id, CrossRole role);
  // Adds one set to its round; true when that completes the round (then `done` holds it).
  bool join(Rounds& r, int core, uint64_t fire, const Knowledge& knowledge, int32_t index, Round& done);
  void deliver(const std::vector<int>& to, const Round& r, int id, std::vector<int>& woken,
               std::vector<std::string>& errors);
  std::vector<int> cores_where(CrossRole role, int group) const;  // group -1: every group
  // Why the AIVs of `core`'s group cannot complete a round: the group's AIVs the launch does not
  // run (empty when it runs them all).
  std::string missing_partners(int core, int mode, int id) const;

  CrossTopology topology_;
  uint64_t latency_;
  std::vector<std::deque<CrossDelivery>> counters_;  // per core * kCrossFlagIds + id
  std::map<std::tuple<int, int, int>, Rounds> rounds_;
};

// The cores of `plan` as cross-core flags see them (a core's group: its AIC index, or its AIV
// index over the chip's AIVs per AIC).
CrossTopology cross_topology(const ChipConfig& chip, const LaunchPlan& plan);
// The engine of a simulated run of `plan`; null when the program uses no cross-core flag.
std::unique_ptr<CrossCore> make_cross_core(const ChipConfig& chip, const Program& program, const LaunchPlan& plan);
// A sync diagnostic per counter that still holds increments when the run ends: no wait_cross
// consumed them.
void report_cross_leftovers(const CrossCore& cross, const Program& program, std::vector<Diagnostic>& out);

}  // namespace cubekit
