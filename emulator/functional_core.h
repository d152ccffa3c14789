// The data side of one physical core in the timing model: replays, in simulated order, the work
// instructions its TimingCore started, seeing GM through a window (gm_window.h), and checks every
// access for races and uninitialised reads (race_checker.h). Cores replay a window in parallel.
#pragma once

#include "emulator/gm_window.h"
#include "emulator/race_checker.h"
#include "emulator/timing_core.h"

#include <memory>

namespace cubekit {

class FunctionalCore {
 public:
  // `kind`: the core's buffers (per-kind core memory).
  FunctionalCore(const ChipConfig& chip, CoreKind kind, const Program& program, const GlobalMemory& gm, int core,
                 bool checks);

  void replay(const std::vector<Started>& stream);
  GmWindow& gm_window() { return window_; }
  std::vector<GmAccess>& gm_accesses() { return gm_accesses_; }
  RunResult& diagnostics() { return diagnostics_; }

 private:
  void execute(const Started& s, const Footprint& fp);

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
  std::vector<GmView> views_;
  RunResult diagnostics_;
};

}  // namespace cubekit
