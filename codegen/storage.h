// Lowering pass 3: storage planning. Each buffer gets an offset in its space for each of its
// copies, aligned as the chip requires; what does not fit is reported with the bytes.
#pragma once

#include "codegen/ir.h"

namespace cubekit::codegen {

void plan_storage(Kernel& kernel, const ChipConfig& chip);

}  // namespace cubekit::codegen
