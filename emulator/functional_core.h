// The data side of one physical core in the timing model: replays, in simulated order, the work
// instructions its TimingCore started, seeing GM through a window (gm_window.h), and checks every
// access for races and uninitialised reads (race_checker.h). Cores replay a window in parallel.
//
// On a chip whose paths reach the partner core of a group (the 950: the cube core's FixPipe into a
// vector core's UB, a vector core's UB into the cube core's L1), such a write lands in a staging
// copy of the partner's buffer and goes to a log; commit_remote applies every core's log to the
// partners' buffers in (time, core, order) order at the end of the window, and checks each write
// against the partner's shadow, as GM writes are committed and checked.
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
  // a launch of one kind): its cube core, and its vector cores by subblock_idx.
  void set_group(int aic, std::vector<int> aivs);
  void replay(const std::vector<Started>& stream);
  GmWindow& gm_window() { return window_; }
  std::vector<GmAccess>& gm_accesses() { return gm_accesses_; }
  RunResult& diagnostics() { return diagnostics_; }
  // Applies and checks the window's writes into partner cores' buffers (all cores' logs).
  static void commit_remote(std::vector<std::unique_ptr<FunctionalCore>>& cores, const Program& program);

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
  void execute(const Started& s, const Footprint& fp);
  void begin_block(int block);  // the shadow starts afresh for a later block
  void log_remote(const Started& s, const Region& r);

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
  int aic_ = -1;
  std::vector<int> aivs_;
  std::vector<RemoteWrite> remote_writes_;
  uint64_t remote_seq_ = 0;
};

}  // namespace cubekit
