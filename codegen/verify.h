// The IR's invariants, checked after every lowering pass in debug builds, in the tests
// (CUBEKIT_VERIFY=1, which the codegen tests set) and with CUBEKIT_DEBUG=verify. A broken invariant
// is the compiler's bug: an InternalError naming the pass, the node and what is wrong, never a
// message for the user.
//
//   every variable is defined (Let, Loop, or one the emitter sets) where it is read, in scope
//   every Ref names one tensor or one buffer that exists (and a copy selector that is set)
//   a Let divides by a positive number, a Loop steps by a positive constant
//   after instruction selection: no Move or Mmad; every Instr is an instruction the ISA accepts
//   after storage planning: every buffer has an offset
//   after synchronisation: every buffer with copies has its counter
#pragma once

#include "codegen/ir.h"

namespace cubekit::codegen {

enum class Stage : uint8_t { LoopNest, Selected, Stored, Synchronised, Simplified };

void verify(const Kernel& kernel, Stage after, const char* pass);
bool verification_on();  // debug build, CUBEKIT_VERIFY=1 or CUBEKIT_DEBUG containing "verify"

// CUBEKIT_DEBUG: words separated by commas or spaces, each "lower" (the IR after every pass, to
// stderr) or "verify"; any other word is the user's error, not silently nothing.
struct DebugFlags {
  bool lower = false, verify = false;
};
DebugFlags debug_flags();

}  // namespace cubekit::codegen
