// Lowering pass 1 for the cube path: the loop nest of a ContractionPlan (see
// schedules/contraction.h), with Move and Mmad nodes, scopes for every staged buffer, and
// variants for partial tiles (the last m, n and k tiles of a shape that does not divide).
#pragma once

#include "codegen/ir.h"
#include "schedules/contraction.h"

namespace cubekit::codegen {

Kernel build_contraction_nest(const sched::ContractionPlan& plan, const ChipConfig& chip);

}  // namespace cubekit::codegen
