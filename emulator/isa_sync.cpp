// Synchronisation between and within pipes. Functionally they do nothing; the timing model and
// the race checker give them their meaning (see emulator/README.md, "Ordering"):
//   set_flag src, dst, id   queued on src: fires when every earlier src instruction completed
//   wait_flag src, dst, id  queued on dst: blocks dst until that flag fired, then clears it
//   barrier P               later P instructions start after earlier P ones completed
//   set_cross P, mode, id   queued on P: once every earlier P instruction completed, signals other
//                           cores (split chips only; emulator/cross_core.h has the modes)
//   wait_cross P, id        queued on P: holds P until this core's counter of id is non-zero, then
//                           takes one from it
#include "emulator/cross_core.h"
#include "emulator/isa_helpers.h"

namespace cubekit {
namespace {

using namespace isa;

void nothing(const Issued&, const ExecContext&) {}

std::string check_pair(const Instr& in, int& operand) {
  if (in.ops[0].imm == in.ops[1].imm) {
    operand = 1;
    return "source and destination pipe are the same; within one pipe use 'barrier'";
  }
  // S computes only on registers, which a pipe reads when S issues to it.
  operand = Pipe(in.ops[0].imm) == Pipe::S ? 0 : Pipe(in.ops[1].imm) == Pipe::S ? 1 : -1;
  if (operand == 0)
    return "the scalar pipe S needs no flag as the source: a pipe takes S's register values when S issues to it, so "
           "S's earlier work is always done";
  if (operand == 1)
    return "the scalar pipe S cannot wait for a flag: it reads no buffer a pipe writes, so nothing of it waits for a "
           "pipe; to hold S until every pipe has drained, use 'barrier ALL'";
  return {};
}

std::string check_barrier(const Instr& in, int& operand) {
  operand = 0;
  if (Pipe(in.ops[0].imm) == Pipe::S)
    return "the scalar pipe S issues in program order: a barrier on it orders nothing; name the pipe to order, or ALL";
  return {};
}

std::vector<OperandSpec> flag_operands() {
  return {pipe("src", false, "the pipe whose earlier work is waited for"),
          pipe("dst", false, "the pipe that waits"),
          imm("event", 0, 15, "event id; the chip's event_ids bounds it (ascend910: 0-3)")};
}

std::string check_cross_pipe(const Instr& in, int& operand) {
  operand = 0;
  if (Pipe(in.ops[0].imm) == Pipe::S)
    return "the scalar pipe S cannot hold a cross-core flag here: name the pipe whose work the flag is about (the one "
           "that wrote GM for set_cross, the one that reads it for wait_cross)";
  return {};
}

OperandSpec cross_id() {
  return required("id", 0, kCrossFlagIds - 1, "cross-core flag id: each core has a counter per id (Ascend C: 0-10)");
}

}  // namespace

void add_sync_instructions(std::vector<InstrSpec>& t) {
  t.push_back({.mnemonic = "set_flag", .pipe = Pipe::All, .operands = flag_operands(),
               .summary = "signal dst that src's earlier work is done",
               .semantics = "Queued on `src`. Fires the flag (src, dst, event) once every earlier instruction of "
                            "`src` has completed. The flag holds one signal: a set that fires before a wait took the previous "
                            "one's is a sync error (judged in simulated time, not program order), as is a flag still set "
                            "when the block ends. Neither pipe may be S (refused: a pipe takes S's registers when S issues "
                            "to it, so S's work is always done; to hold S until the pipes drain, `barrier ALL`; Ascend "
                            "C's PIPE_S flags have no counterpart here).",
               .exec = nothing, .validate = check_pair});
  t.push_back({.mnemonic = "wait_flag", .pipe = Pipe::All, .operands = flag_operands(),
               .summary = "block dst until src's flag fires",
               .semantics = "Queued on `dst`. Blocks `dst` until the flag (src, dst, event) has fired, then clears "
                            "it. A wait that nothing will satisfy is reported as a deadlock. Neither pipe may be S (as "
                            "for set_flag).",
               .exec = nothing, .validate = check_pair});
  t.push_back({.mnemonic = "barrier", .pipe = Pipe::All,
               .operands = {pipe("pipe", true, "the pipe to order, or ALL")},
               .summary = "order a pipe's later instructions after its earlier ones",
               .semantics = "Instructions of one pipe may overlap in time. Later instructions of `pipe` start only "
                            "after every earlier one of `pipe` has completed; `barrier ALL` drains every pipe. `barrier S` is refused: "
                            "S issues in program order.",
               .exec = nothing, .validate = check_barrier});
  t.push_back({.mnemonic = "set_cross", .pipe = Pipe::All,
               .operands = {pipe("pipe", false, "the pipe whose earlier work the flag signals"),
                            required("mode", 0, 2,
                                     "who receives it: 0 every core of the setter's kind (once all have set), 1 the two "
                                     "AIVs of a group (once both have set), 2 AIC to its AIVs, or both AIVs to their AIC"),
                            cross_id()},
               .summary = "signal other cores that this pipe's earlier work is done (split chips)",
               .semantics = "Queued on `pipe`. Fires once every earlier instruction of `pipe` has completed; after the "
                            "chip's cross-core latency it adds 1 to the counter `id` of the cores `mode` names (Ascend C "
                            "CrossCoreSetFlag). Mode 0: once every core of the setter's kind has set `id`, each gets +1. "
                            "Mode 1 (AIVs): once both AIVs of the group have set `id`, both get +1. Mode 2: an AIC's set "
                            "gives each AIV of its group +1; once both AIVs have set `id`, their AIC gets +1. An AIV the "
                            "launch does not run never sets: its group's mode-1 and mode-2 rounds never complete (a sync "
                            "error names it). A counter holds at most 16 increments (more is a sync error). Only on "
                            "chips with AIC and AIV cores.",
               .exec = nothing, .validate = check_cross_pipe});
  t.push_back({.mnemonic = "wait_cross", .pipe = Pipe::All,
               .operands = {pipe("pipe", false, "the pipe that waits"), cross_id()},
               .summary = "hold a pipe until another core's set_cross arrives (split chips)",
               .semantics = "Queued on `pipe`. Holds `pipe` while this core's counter `id` is 0, then subtracts 1 "
                            "(Ascend C CrossCoreWaitFlag). Only `pipe`'s later instructions are ordered after it: "
                            "other pipes follow through set_flag/wait_flag. A wait that no core will satisfy is a "
                            "deadlock naming the core. Only on chips with AIC and AIV cores.",
               .exec = nothing, .validate = check_cross_pipe});
}

}  // namespace cubekit
