// Running a program: SPMD over block_dim cores, each walking the program with its scalar unit.
// run_in_order executes every instruction at once in program order (the functional model), block
// by block (a mixed launch: each block's cube core, then its vector cores; see launch.h);
// the checks it makes (bounds, alignment, dtypes, faults, termination) become Diagnostics.
#pragma once

#include "emulator/chip_config.h"
#include "emulator/memory.h"
#include "emulator/program.h"

#include <array>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace cubekit {

struct Diagnostic {
  enum class Kind : uint8_t {
    OutOfBounds, Misaligned, DtypeMismatch, Fault, NoEnd, StepLimit,  // memory and execution
    Race, Uninitialized, Sync, Deadlock, Unwritten                    // the checker
  };
  Kind kind;
  int core = 0;       // -1: about the whole run (an output left unwritten)
  int index = -1;     // instruction index, -1 when not about one instruction
  uint32_t line = 0;  // its source line (0 when built in C++)
  std::string message;
  int64_t repeats = 1;  // how many times this instruction hit the same problem (first one described)
  int other = -1;       // the other instruction of a race
};

std::string_view diagnostic_kind_name(Diagnostic::Kind k);
// "matmul.s:42: error: out-of-bounds: core 3, instruction 17 `copy_ub_gm ...`: operand 'dst' ..."
std::string format_diagnostic(const Program& program, const Diagnostic& d, std::string_view source = {});

// The messages both drivers give when a core runs past its program or its step budget.
std::string no_end_message(int64_t pc);
std::string step_limit_message(int64_t max_steps);

// Bounds on one run, whatever the input: work over all blocks (the step limit alone counts one
// block's instructions, so many blocks or heavy instructions ran for hours) and the trace's size.
// Work is counted in units of about one scalar instruction of host time (measured: a scalar
// instruction ~10 ns, a vector repeat with the checks 1-2.5 us (vexp), an mmad fractal step ~2 us, a 32 B
// block copied ~5 ns): every instruction 1, plus 256 per vector repeat, 128 per mmad fractal step
// (16 x 16 x k0 multiply-adds) and 1 per 64 bytes a transfer moves, and under simulate 24 more
// per pipe instruction (kTimedPipeInstruction). The default, 2^33 units, is about a minute and a
// half of host time; README and bench kernels use at most ~1/3 of it (see tools/README.md). A
// timing-only run computes no data: its work is the instruction's 1, the 24 of a pipe
// instruction and one unit per L2 line a transfer touches (timing_work_units): a 16384^3 GEMM's
// cycles take some 1.2e9 units, and an endless vector loop stops in about the minute and a half
// a functional run's bound allows.
inline constexpr int64_t kDefaultMaxWork = int64_t(1) << 33;
// S instructions a block may run before the run counts as a hang (SimOptions, RunOptions).
inline constexpr int64_t kDefaultMaxSteps = 500'000'000;
inline constexpr int64_t kDefaultMaxTraceEvents = int64_t(1) << 22;  // ~200 bytes of JSON each: ~800 MB
// The timing model's own host time of a pipe instruction, up to 250 ns, past its 1 as an
// instruction: counted by simulate in both modes (an endless loop of vadd and vexp on 32 cores,
// 818M of them in 211 s whatever their repeats, ran 19 minutes to the bound timing-only at 1 unit
// each; an endless loop of 32 B copies, 130 ns each, would have run 19 minutes functional).
inline constexpr int64_t kTimedPipeInstruction = 24;
int64_t work_units(const Work& w);         // beyond the instruction's own 1
int64_t timing_work_units(const Work& w);  // the same, of a timing-only run
// The user error of a run that went past its work bound, or its trace past its size bound.
[[noreturn]] void work_limit_exceeded(int64_t max_work, int64_t instructions);
[[noreturn]] void trace_limit_exceeded(int64_t max_trace_events);

// The number of blocks a launch of `requested` runs (0: the program's block_dim), checked: a user
// error when negative, beyond kMaxBlockDim (what .block_dim allows), or, past .block_dim, when
// the program's blocks would address beyond its tensors (found before running by walking the
// scalar unit of the last block: addresses do not depend on data).
int launch_blocks(const ChipConfig& chip, const Program& program, const GlobalMemory& gm, int64_t requested);

// A user error unless `gm` is the program's (its tensors, with their bytes for a functional run)
// and both limits are positive: what run_in_order and simulate check before anything else.
void check_run_inputs(const Program& program, const GlobalMemory& gm, bool functional, int64_t max_steps, int64_t max_work);

struct RunOptions {
  int cores = 0;                     // 0: the program's block_dim
  int64_t max_steps = kDefaultMaxSteps;  // instructions per core before the run is stopped as a hang
  int64_t max_work = kDefaultMaxWork;  // work units over the whole run (all blocks); a user error past it
};

struct RunResult {
  int cores = 0;
  int64_t instructions = 0;  // executed, over all cores
  int64_t work = 0;          // work units (see kDefaultMaxWork), over all cores
  std::array<int64_t, kNumPipes> per_pipe{};
  std::vector<Diagnostic> diagnostics;
  // run_in_order's cross-core bookkeeping: the set_crosses run so far, by the kind of core they
  // reach and id (a wait_cross before any is a hand-off program order cannot make).
  std::map<std::pair<CoreKind, int64_t>, int64_t> cross_sets;
  bool clean() const { return diagnostics.empty(); }
  // Records a diagnostic, once per (kind, instruction, other): a problem inside a loop is reported once
  // with a count instead of once per iteration and core.
  void report(Diagnostic d);
  // Counts one more of a diagnostic recorded already and returns true; false when it is new. A
  // checker asks before it builds the message: a racy loop reports the same race each iteration,
  // and formatting it every time would cost far more than the run it checks.
  bool repeat(Diagnostic::Kind kind, int index, int other);

 private:
  std::map<std::tuple<Diagnostic::Kind, int, int>, size_t> seen_;  // where each one is in diagnostics
  size_t indexed_ = 0;                                            // how many of diagnostics seen_ holds
  Diagnostic* find(Diagnostic::Kind kind, int index, int other);
};

RunResult run_in_order(const ChipConfig& chip, const Program& program, GlobalMemory& gm, const RunOptions& options = {});

// Where a write into a buffer of the partner core in the group goes (the 950's paths): the memory of
// the group's vector core `subblock` (UB) or of its cube core (L1); nullptr when it has none.
using PartnerMemory = std::function<CoreMemory*(Space space, int subblock)>;

// One core's walk of the program from instruction `entry` against memory the caller owns (tests
// pre-fill buffers this way).
void run_core_in_order(const ChipConfig& chip, const Program& program, GlobalMemory& gm, CoreMemory& memory,
                       ScalarState& state, const RunOptions& options, RunResult& result, int entry = 0,
                       const PartnerMemory& partner = {}, CoreKind kind = CoreKind::Coupled);

}  // namespace cubekit
