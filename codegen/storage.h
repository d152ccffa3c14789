// Lowering pass 3: storage planning. Each buffer gets an offset in its space for each of its
// copies, aligned as the chip requires; what does not fit is reported with the bytes.
#pragma once

#include "codegen/ir.h"

namespace cubekit::codegen {

void plan_storage(Kernel& kernel, const ChipConfig& chip);

// The bytes the kernel's buffers in `space` take once aligned (what plan_storage checks), for
// passes that size tiles by building a kernel and measuring it.
int64_t space_bytes(const Kernel& kernel, Space space, const ChipConfig& chip);

}  // namespace cubekit::codegen
