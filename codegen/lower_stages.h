// The staged lowering (docs/lowering.md): a kernel's stage graph (schedules/stages.h) to its loop
// nest, the first pass of lower_nest. A vector-unit graph (inputs copied into UB, the Funcs the
// output calls computed there, the output copied back) becomes:
//
//   zero the padding UB buffers are read with; fill the stages made per core   (once per core)
//   fill tiles 0 .. ahead - 1 of this core                                      (fills ahead of use)
//   for w = 0; w < my tiles; w += 1
//     fill tile w + ahead:  every stage made per tile from GM (MTE2)
//     use tile w:           every computed stage in the graph's order (V), each value given back
//                           after its last reader; the output into its UB stage and out (MTE3)
//
// A contraction's graph (matmul, conv, with a fused epilogue, on either kind of chip) is lowered
// by lower_contraction.h: its tiles over the cores, their L1 chunks of k filled ahead, the L0
// steps and mmads, the way out of L0C its graph's edges name.
//
// The graph's tiles and strips are chosen before (codegen/fit.h): the lowering neither searches
// nor reports a user's error; what it cannot lower is an internal error.
#pragma once

#include "codegen/ir.h"
#include "schedules/stages.h"

namespace cubekit::codegen {

Kernel lower_stages(const sched::StageGraph& graph, const ChipConfig& chip);

}  // namespace cubekit::codegen
