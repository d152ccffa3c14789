// Running a program: SPMD over block_dim cores, each walking the program with its scalar unit.
// run_in_order executes every instruction at once in program order (the functional model);
// the checks it makes (bounds, alignment, dtypes, faults, termination) become Diagnostics.
#pragma once

#include "emulator/chip_config.h"
#include "emulator/memory.h"
#include "emulator/program.h"

#include <array>
#include <string>
#include <vector>

namespace cubekit {

struct Diagnostic {
  enum class Kind : uint8_t {
    OutOfBounds, Misaligned, DtypeMismatch, Fault, NoEnd, StepLimit,  // memory and execution
    Race, Uninitialized, Sync, Deadlock                               // the checker
  };
  Kind kind;
  int core = 0;
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

struct RunOptions {
  int cores = 0;                     // 0: the program's block_dim
  int64_t max_steps = 500'000'000;   // instructions per core before the run is stopped as a hang
};

struct RunResult {
  int cores = 0;
  int64_t instructions = 0;  // executed, over all cores
  std::array<int64_t, kNumPipes> per_pipe{};
  std::vector<Diagnostic> diagnostics;
  bool clean() const { return diagnostics.empty(); }
  // Records a diagnostic, once per (kind, instruction, other): a problem inside a loop is reported once
  // with a count instead of once per iteration and core.
  void report(Diagnostic d);
};

RunResult run_in_order(const ChipConfig& chip, const Program& program, GlobalMemory& gm, const RunOptions& options = {});

// One core's walk of the program against memory the caller owns (tests pre-fill buffers this way).
void run_core_in_order(const ChipConfig& chip, const Program& program, GlobalMemory& gm, CoreMemory& memory,
                       ScalarState& state, const RunOptions& options, RunResult& result);

}  // namespace cubekit
