// Lowering pass 4: synchronisation, from what each instruction reads and writes (the ISA's own
// footprints) and nothing else.
//
// Between pipes, every staged buffer of a scope is a token passed between its producer pipe P and
// consumer pipe Q, one token per copy (ping-pong event ids when double-buffered):
//
//   set_flag Q, P, free[c] (each copy, at the start)   wait_flag Q, P, free[c]  before P first writes
//   ... P writes ...                                    set_flag P, Q, full[c]   after P last writes
//                                                       wait_flag P, Q, full[c]  before Q first reads
//   ... Q reads ...                                     set_flag Q, P, free[c]   after Q last reads
//   wait_flag Q, P, free[c] (each copy, at the end)     c = uses so far % copies
//
// Buffers of a scope with the same producer and consumer share their tokens. Within one pipe,
// instructions may overlap: `barrier P` goes before an instruction whose bytes meet an earlier
// one's on the same pipe (a write on either side) with no barrier or token in between -- found by
// comparing byte ranges, across loop iterations too, so disjoint accesses get none.
#pragma once

#include "codegen/ir.h"

namespace cubekit::codegen {

void insert_sync(Kernel& kernel, const ChipConfig& chip);

}  // namespace cubekit::codegen
