// Flash attention on the split chips (AIC + AIV): see lower_attention_split.cpp's header.
#pragma once

#include "codegen/ir.h"
#include "schedules/stages.h"

namespace cubekit::codegen {

Kernel lower_attention_split(const sched::StageGraph& graph, const ChipConfig& chip);

}  // namespace cubekit::codegen
