// Synchronisation between and within pipes. Functionally they do nothing; the timing model and
// the race checker give them their meaning (see emulator/README.md, "Ordering"):
//   set_flag src, dst, id   queued on src: fires when every earlier src instruction completed
//   wait_flag src, dst, id  queued on dst: blocks dst until that flag fired, then clears it
//   barrier P               later P instructions start after earlier P ones completed
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
  for (int i : {0, 1})
    if (Pipe(in.ops[i].imm) == Pipe::S) {
      operand = i;
      return "the scalar pipe S needs no flag: it issues in program order";
    }
  return {};
}

std::vector<OperandSpec> flag_operands() {
  return {pipe("src", false, "the pipe whose earlier work is waited for"),
          pipe("dst", false, "the pipe that waits"),
          imm("event", 0, 15, "event id; the chip's event_ids bounds it (ascend910: 0-3)")};
}

}  // namespace

void add_sync_instructions(std::vector<InstrSpec>& t) {
  t.push_back({.mnemonic = "set_flag", .pipe = Pipe::All, .operands = flag_operands(),
               .summary = "signal dst that src's earlier work is done",
               .semantics = "Queued on `src`. Fires the flag (src, dst, event) once every earlier instruction of "
                            "`src` has completed. Setting a flag that is already set is a sync error.",
               .exec = nothing, .validate = check_pair});
  t.push_back({.mnemonic = "wait_flag", .pipe = Pipe::All, .operands = flag_operands(),
               .summary = "block dst until src's flag fires",
               .semantics = "Queued on `dst`. Blocks `dst` until the flag (src, dst, event) has fired, then clears "
                            "it. A wait that nothing will satisfy is reported as a deadlock.",
               .exec = nothing, .validate = check_pair});
  t.push_back({.mnemonic = "barrier", .pipe = Pipe::All,
               .operands = {pipe("pipe", true, "the pipe to order, or ALL")},
               .summary = "order a pipe's later instructions after its earlier ones",
               .semantics = "Instructions of one pipe may overlap in time. Later instructions of `pipe` start only "
                            "after every earlier one of `pipe` has completed; `barrier ALL` drains every pipe.",
               .exec = nothing});
}

}  // namespace cubekit
