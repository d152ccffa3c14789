// Executing one instruction, apart from the order instructions are driven in: `issue` resolves
// operands with the scalar state at dispatch time, `check` validates the instruction's footprint
// against the buffers, `execute` runs its semantics. The in-order driver (emulator.cpp) and the
// timing model both use these three.
#pragma once

#include "emulator/isa.h"
#include "emulator/memory.h"

#include <string>

namespace cubekit {

Issued issue(const Instr& in, int index, const ScalarState& s);
void issue_into(Issued& I, const Instr& in, int index, const ScalarState& s);  // the same, in place

struct AccessError {
  enum Kind { None, OutOfBounds, Misaligned, DtypeMismatch, Fault } kind = None;
  std::string message;
  int region = -1;  // the footprint's region at fault
};

// Computes the footprint of an issued instruction and checks every region; the first problem is
// returned (kind None when the instruction may execute).
AccessError check(const Issued& I, const ChipConfig& chip, const GlobalMemory& gm, Footprint& fp);

}  // namespace cubekit
