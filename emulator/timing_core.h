// One physical core in the timing model (see simulator.h): its scalar unit, pipe queues, flags,
// the vector clocks of the race checker, and the blocks it runs one after another. It computes
// no data: every work instruction it starts goes to its stream, which a FunctionalCore replays.
// Internal to simulate.cpp, which steps all cores in simulated-time order on one thread.
#pragma once

#include "emulator/cross_core.h"
#include "emulator/l2_model.h"
#include "emulator/launch.h"
#include "emulator/race_checker.h"
#include "emulator/simulator.h"


namespace cubekit {

// What the timing model does with an instruction, decided once per program instruction.
enum class Kind : uint8_t { Scalar, Work, SetFlag, WaitFlag, Barrier, BarrierAll, SetCross, WaitCross };

// What the whole run has used of its bounds (SimOptions::max_work, max_trace_events).
struct RunBudget {
  int64_t work = 0, trace_events = 0, instructions = 0;
};

struct SimContext {
  const ChipConfig& chip;
  const Program& program;
  const GlobalMemory& gm;  // for bounds checks only: the timing model reads no data
  L2Model& l2;
  const SimOptions& options;
  int total_blocks;
  std::vector<Kind> kinds;       // per instruction
  std::vector<uint8_t> pipes;    // per instruction: the queue it goes to
  std::vector<ScalarFn> scalar;  // per instruction: its behaviour, for scalar ones
  std::vector<bool> gm_touching; // per instruction: has a GM operand
  RunBudget& budget;             // shared by the cores (their timing runs on one thread)
  CrossCore* cross = nullptr;    // the cross-core flags, on chips that have them
  int cores = 1;                 // cores of the run (a core's k-th block is unit core + cores * k)
  // Per instruction: a set_flag's or wait_flag's flag (pipe pair and event id) numbered densely
  // over the program's flags, else -1; `flags` of them. A core keeps its flags' state for these
  // alone: for every possible one it was 19 KB a core, 32 cores' worth of page faults.
  std::vector<int16_t> flag_slot;
  int flags = 0;
  // Every core's pipe queues, TimingCore::queue_bytes(chip) a core from core 0 on, zeroed: one
  // mapping in huge pages (simulate.cpp). Grown entry by entry on the heap, the queues of a 32-core
  // vector kernel cost 150 page faults, a tenth of a timing-only add of 4096^2 on a virtual machine.
  uint8_t* queues = nullptr;
  // Per core kind (CoreKind), per instruction: its transfer path's rate on that kind, else 0
  // (TimingCore::transfer_rates; filled for the kinds the launch runs).
  std::array<std::vector<double>, kNumCoreKinds> rates;
};

// A work instruction as it started, for the functional replay and the race checker.
struct Started {
  Issued I;
  uint64_t start;
  Clock known;  // what its pipe knew to have completed when it started
  Knowledge remote;  // what it knew of other units (cores), through cross-core flags
  int32_t unit;      // the execution unit (core x block) it ran in
  uint32_t epoch;
  uint8_t pipe;
  int32_t block;
  uint64_t order;  // its position in the block's issue order
};

class TimingCore {
 public:
  // Core `core` of the run (its place in the launch plan) runs `launch`'s blocks from its entry.
  TimingCore(const SimContext& ctx, int core, const LaunchCore& launch);
  // The bytes of one core's pipe queues (SimContext::queues).
  static size_t queue_bytes(const ChipConfig& chip);
  // SimContext::rates for one kind: per instruction, the rate of its path from source to
  // destination on `kind` (launch checked that the kind has the paths it reaches), else 0.
  static std::vector<double> transfer_rates(const CoreConfig& kind, const Program& program);

  uint64_t next_event() const;  // UINT64_MAX when done
  void step();                  // processes the core's earliest event
  // Processes events before `until`; an event that touches GM only while it comes no later than
  // `others` (the earliest event of any other core). Processes at least one event.
  void run(uint64_t until, uint64_t others);
  bool done() const { return done_; }
  // Cross-core flags: whether run() stopped at a wait_cross whose increment was set in this
  // window (the functional replay must commit the setter's GM writes first); and the notice that
  // another core's set_cross reached this core's counters.
  bool wants_cut() const { return cut_; }
  void cross_delivered();
  // Nothing is left to run anywhere else: a core still waiting is deadlocked (reported, and its
  // block ends).
  void give_up() { deadlock(); }
  bool blocked_on_cross() const;  // only a wait_cross (or what waits behind it) keeps it from running
  std::vector<int>& woken() { return woken_; }  // other cores the last run's set_cross reached

  CoreStats& stats() { return stats_; }
  CoreTrace& trace() { return trace_; }
  RunResult& diagnostics() { return diagnostics_; }
  std::vector<Started>& stream() { return stream_; }

 private:
  static constexpr uint64_t kNever = UINT64_MAX;

  struct Entry {
    Issued I;
    uint64_t ready;
    uint64_t order;
    Kind kind;
  };
  struct PipeState {
    Entry* ring = nullptr;  // `depth` entries in SimContext::queues
    size_t depth = 0, head = 0, count = 0;
    uint64_t next_start = 0, barrier_floor = 0, last_completion = 0, last_start = 0;
    uint32_t epoch = 0;
    uint32_t syncs = 0;  // the waits (flags, cross-core flags) and barrier ALLs it has passed: what may order its sets
    Clock known{};
    Knowledge remote;  // what this pipe knows of other units (cross-core happens-before)
    mutable uint64_t ready = 0;  // cached pipe_ready(); valid unless `dirty`
    mutable bool dirty = true;
    Entry& front() { return ring[head]; }
    Entry& push() { return ring[(head + count) % depth]; }  // the slot after the last entry (count < depth)
  };
  struct Fire {
    uint64_t time;
    Clock snapshot;
    Knowledge remote;
    int32_t set_index;
    uint32_t setter_syncs;  // the setting pipe's PipeState::syncs when it fired
    bool lost = false;  // it fired while the flag was still set: reported, and never "left set"
  };
  struct Cost {
    int64_t latency = 0, occupancy = 0;
  };

  uint64_t s_ready() const;
  uint64_t pipe_ready(int p) const;
  uint64_t compute_ready(int p) const;
  // The earliest event: its time (kNever if none) and who (a pipe, or S).
  uint64_t earliest(int& who) const;
  void process(int who, uint64_t t);  // the event earliest() found
  uint64_t sync_base(const PipeState& q, const Entry& e) const;
  void step_scalar(uint64_t t);
  void scalar_one(uint64_t t);  // one instruction, or a run of scalar ones
  // Counts an instruction against the step budget; past it, reports the hang and halts. Inline, the
  // budget's checks out of the way: as calls they were a sixth of a run of scalar instructions.
  bool count_step() {
    ++ctx_.budget.instructions;
    count_work(1);
    if (++steps_ <= ctx_.options.max_steps) [[likely]] return true;
    return step_limit();
  }
  bool step_limit();  // false
  void count_work(int64_t units) {
    if ((ctx_.budget.work += units) > ctx_.options.max_work) [[unlikely]]
      work_limit_exceeded(ctx_.options.max_work, ctx_.budget.instructions);
  }
  void count_trace_events(int64_t events);
  void step_pipe(int p, uint64_t t);
  void execute_work(int p, const Entry& e, uint64_t t);
  void set_cross(int p, const Entry& e, uint64_t t);
  void wait_cross(int p, const Entry& e, uint64_t t);
  bool must_yield(int who, uint64_t t, uint64_t others);
  std::string cross_deadlock(int p, const Instr& in) const;
  Cost cost_of(const Issued& I, const Footprint& fp, uint64_t t);
  void start_block(uint64_t t);
  void finish_block();
  void deadlock();
  void report(Diagnostic::Kind kind, int index, std::string message);

  const SimContext& ctx_;
  int core_;
  const CoreConfig& kind_;
  int entry_, subblock_;
  const std::vector<double>& rates_;  // SimContext::rates of this core's kind
  std::vector<int> blocks_;
  size_t next_block_ = 0;
  int block_ = -1;
  int32_t unit_ = -1;  // the race checker's execution unit: this core running this block
  bool done_ = false;
  bool cut_ = false;
  bool delivered_elsewhere_ = false;  // the last set_cross reached another core
  std::vector<int> woken_;

  // The scalar unit.
  ScalarState regs_;
  int64_t pc_ = 0;
  int64_t last_pc_ = -1;  // the instruction that moved pc_ last: where a run past the end is reported
  uint64_t s_time_ = 0;
  bool halted_ = false;
  int waiting_queue_ = -1;  // S waits for a slot in this pipe's queue
  int64_t steps_ = 0;
  uint64_t issued_ = 0;  // instructions issued in this block

  std::array<PipeState, kNumPipes> pipes_;
  std::vector<Fire>& fired_of(int instr) { return fired_[size_t(ctx_.flag_slot[size_t(instr)])]; }  // its flag's
  const std::vector<Fire>& fired_of(int instr) const { return fired_[size_t(ctx_.flag_slot[size_t(instr)])]; }
  std::vector<std::vector<Fire>> fired_;  // per flag (SimContext::flag_slot): fired, not yet consumed (oldest first)
  void check_set_while_set(std::vector<Fire>& fifo, const Fire& consumed, uint64_t when);
  void report_set_while_set(Fire& again, const Fire& earlier, uint64_t when);

  CoreStats stats_;
  CoreTrace trace_;
  RunResult diagnostics_;
  Footprint fp_;
  std::vector<Started> stream_;
};

}  // namespace cubekit
