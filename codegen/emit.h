// Lowering pass 5: scalar code. Loops stay loops: each loop counter, definition and use counter
// lives in a register (registers are reused once a loop or branch ends); addresses are computed
// from them before each instruction; a double-buffered token picks its event id by branching on
// its use counter's parity. The result is an ordinary Program.
#pragma once

#include "codegen/ir.h"

namespace cubekit::codegen {

Program emit_program(const Kernel& kernel, const ChipConfig& chip);

}  // namespace cubekit::codegen
