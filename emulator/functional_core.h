// The data side of one physical core in the timing model: replays, in simulated order, the work
// instructions its TimingCore started, seeing GM through a window (gm_window.h), and checks every
// access for races and uninitialised reads (race_checker.h). Cores replay a window in parallel.
//
// On a chip whose paths reach the partner core of a group (the 950: the cube core's FixPipe into a
// vector core's UB, a vector core's UB into the cube core's L1), such a write lands in a staging
// copy of the partner's buffer and goes to a log; commit_remote applies every core's log to the
// partners' buffers in (time, core, order) order at the end of the window, and checks each write
// against the partner's shadow, as GM writes are committed and checked. Such a core's own accesses
// of the buffers a partner writes are checked then too, merged with the partners' writes in
// simulated-time order: a partner's write and the core's own accesses of the window are checked
// in the order they ran, so a race between them names the one that came second (a vector core's
// read after the FixPipe's unordered write is a read of that write, not an earlier write the
// FixPipe overwrote).
#pragma once

#include "emulator/gm_window.h"
#include "emulator/race_checker.h"
#include "emulator/timing_core.h"

#include <memory>

namespace cubekit {

class FunctionalCore {
 public:
  // `kind`: the core's buffers (per-kind core memory).
  // `memory`: its buffers (CoreArena::memory).
  FunctionalCore(const ChipConfig& chip, CoreKind kind, const Program& program, const GlobalMemory& gm, int core,
                 bool checks, CoreMemory memory);

  // The cores of this core's group in the launch (-1 / empty when it has none: a coupled chip or
  // a launch of one kind): its cube core, and its vector cores by subblock_idx. `topology`: the
  // run's cores, which a race between two of them names the cross-core flag for (kept, not copied).
  void set_group(int aic, std::vector<int> aivs, const CrossTopology* topology);
  void replay(const std::vector<Started>& stream);
  GmWindow& gm_window() { return window_; }
  std::vector<GmAccess>& gm_accesses() { return gm_accesses_; }
  RunResult& diagnostics() { return diagnostics_; }
  // Applies and checks the window's writes into partner cores' buffers (all cores' logs).
  static void commit_remote(std::vector<std::unique_ptr<FunctionalCore>>& cores);

 private:
  struct RemoteWrite {
    uint64_t time = 0;
    int core = 0;
    uint64_t seq = 0;
    int target = -1;             // the core whose buffer it writes
    Region region;               // in the target's buffer
    std::vector<uint8_t> data;   // the region's chunks, packed in order
    Access who;
    Clock known{};
    Knowledge remote;
  };
  // An access of this core to a buffer a partner writes, checked when the window's writes are
  // committed (`regions` indexes deferred_regions_).
  struct DeferredAccess {
    uint64_t time = 0;
    uint64_t seq = 0;
    size_t first_region = 0, regions = 0;
    Access who;
    Clock known{};
    Knowledge remote;
  };
  void execute(const Started& s, const Footprint& fp);
  void begin_block(int block);  // the shadow of the buffers checked at once starts afresh for a later block
  void log_remote(const Started& s, const Region& r);
  void defer(const Started& s, const Footprint& fp, const Access& who);
  // Checks this core's deferred accesses and the partners' writes into its buffers, in time order.
  void check_partner_buffers(const std::vector<const RemoteWrite*>& writes);

  const ChipConfig& chip_;
  const Program& program_;
  const GlobalMemory& gm_;
  int core_;
  int block_ = -1;
  CoreMemory memory_;
  GmWindow window_;
  std::unique_ptr<LocalShadow> shadow_;
  std::vector<GmAccess> gm_accesses_;
  uint64_t gm_seq_ = 0;
  std::vector<bool> gm_checked_;  // gm_tensors_to_check
  std::vector<GmView> views_;
  RunResult diagnostics_;
  uint32_t own_spaces_ = 0;  // a bit per Space this core has
  CoreKind kind_;
  int aic_ = -1;
  std::vector<int> aivs_;
  const CrossTopology* topology_ = nullptr;
  std::vector<RemoteWrite> remote_writes_;
  uint64_t remote_seq_ = 0;
  // The buffers of this core a partner's path reaches (a mixed launch on the 950: an AIV's UB,
  // an AIC's L1): their checks wait for the window's end (DeferredAccess).
  uint32_t partner_written_spaces_ = 0;
  int deferred_block_ = -1;  // the block those buffers' shadow is at
  std::vector<DeferredAccess> deferred_;
  std::vector<Region> deferred_regions_;
  uint64_t deferred_seq_ = 0;
};

}  // namespace cubekit
