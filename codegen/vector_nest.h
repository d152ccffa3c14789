// Lowering pass 1 for the vector path: the loop nest of a VectorPlan (see schedules/vector.h) with
// its GM <-> UB copies and the V instructions of every stage, tile by tile:
//
//   zero the padding UB buffers are read with, fill the per-column inputs    (once per core)
//   fill tiles 0 .. ahead - 1 of this core                                    (fills ahead of use)
//   for w = 0; w < my tiles; w += 1
//     fill tile w + ahead
//     use tile w:  every stage (V), then the output into its UB buffer and out to GM (MTE3)
//
// The tile size is the largest that fits UB (sizes measured by building the kernel), or the
// schedule's tile_rows().
#pragma once

#include "codegen/ir.h"
#include "schedules/vector.h"

namespace cubekit::codegen {

Kernel build_vector_nest(const sched::VectorPlan& plan, const ChipConfig& chip);

}  // namespace cubekit::codegen
