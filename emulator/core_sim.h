// One physical core in the timing model (see simulator.h for the model): its scalar unit, its
// pipe queues, flags, the blocks it runs one after another, and its checks. Internal to
// simulate.cpp; a CoreSim touches nothing shared except through its CoreMemoryView, so cores of
// one window may run on different threads.
#pragma once

#include "emulator/memory_system.h"
#include "emulator/race_checker.h"
#include "emulator/simulator.h"

#include <deque>
#include <memory>

namespace cubekit {

struct SimContext {
  const ChipConfig& chip;
  const Program& program;
  SharedMemory& shared;
  const SimOptions& options;
  int total_blocks;
};

class CoreSim {
 public:
  CoreSim(const SimContext& ctx, int core, std::vector<int> blocks);

  void run_until(uint64_t until);  // processes every event that happens before `until`
  bool done() const { return done_; }
  uint64_t next_event() const;     // UINT64_MAX when done

  CoreStats& stats() { return stats_; }
  CoreTrace& trace() { return trace_; }
  RunResult& diagnostics() { return diagnostics_; }
  CoreMemoryView& memory() { return view_; }
  std::vector<GmAccess>& gm_accesses() { return gm_accesses_; }

 private:
  static constexpr uint64_t kNever = UINT64_MAX;
  static constexpr int kFlagKeys = kNumPipes * kNumPipes * 16;

  struct Entry {
    Issued I;
    uint64_t ready;
  };
  struct PipeState {
    std::vector<Entry> ring;
    size_t head = 0, count = 0;
    uint64_t next_start = 0, barrier_floor = 0, last_completion = 0, last_start = 0;
    uint32_t epoch = 0;
    Clock known{};
    Entry& front() { return ring[head]; }
  };
  struct Fire {
    uint64_t time;
    Clock snapshot;
    int32_t set_index;
  };

  uint64_t s_ready() const;
  uint64_t pipe_ready(int p) const;
  uint64_t sync_base(const PipeState& q, const Entry& e) const;
  void step_scalar(uint64_t t);
  void step_pipe(int p, uint64_t t);
  void execute_work(int p, const Entry& e, uint64_t t);
  struct Cost {
    int64_t latency = 0, occupancy = 0;
  };
  Cost cost_of(const Issued& I, const Footprint& fp, uint64_t t);
  void run_functional(const Issued& I, const Footprint& fp, uint64_t t);
  void start_block(uint64_t t);
  void finish_block();
  void deadlock();
  void report(Diagnostic::Kind kind, int index, std::string message);
  static int flag_key(const Instr& in);

  const SimContext& ctx_;
  int core_;
  std::vector<int> blocks_;
  size_t next_block_ = 0;
  int block_ = -1;
  bool done_ = false;

  // The scalar unit.
  ScalarState regs_;
  int64_t pc_ = 0;
  uint64_t s_time_ = 0;
  bool halted_ = false;
  int waiting_queue_ = -1;  // S waits for a slot in this pipe's queue
  int64_t steps_ = 0;

  std::array<PipeState, kNumPipes> pipes_;
  std::vector<std::deque<Fire>> fired_;       // per flag key: fired, not yet consumed
  std::vector<int> pending_sets_;             // per flag key: sets minus waits, in dispatch order
  std::vector<int32_t> last_set_;             // per flag key: the last set_flag dispatched

  CoreMemory memory_;
  CoreMemoryView view_;
  std::unique_ptr<LocalShadow> shadow_;
  std::vector<GmAccess> gm_accesses_;
  uint64_t gm_seq_ = 0;
  CoreStats stats_;
  CoreTrace trace_;
  RunResult diagnostics_;
  Footprint fp_;
  std::vector<GmView> views_;
};

}  // namespace cubekit
