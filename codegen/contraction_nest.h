// Lowering pass 1 for the cube path: the loop nest of a ContractionPlan (see
// schedules/contraction.h), with Move and Mmad nodes, scopes for every staged buffer, and
// variants for partial tiles (the last m, n and k tiles of a shape that does not divide). `strip`
// is the width of the UB strips on the way out of L0C: columns on the coupled core, rows of a
// tile on a split chip's vector cores (chosen by codegen/fit.h), unused when the FixPipe writes
// the result.
#pragma once

#include "codegen/ir.h"
#include "schedules/contraction.h"

namespace cubekit::codegen {

Kernel build_contraction_nest(const sched::ContractionPlan& plan, int64_t strip, const ChipConfig& chip);

}  // namespace cubekit::codegen
