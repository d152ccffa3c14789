// Lowering pass 2: instruction selection. Every Move becomes the ISA's data movement for its
// (source layout, destination layout) -- nd2nz into L1, load2d rows into L0A / L0B (transposing
// where the stored orientation differs from the cube's), mov_l0c_ub, copy_ub_gm_pad -- and every
// Mmad an mmad. Fractal offsets are computed here and nowhere else.
#pragma once

#include "codegen/ir.h"

namespace cubekit::codegen {

void select_instructions(Kernel& kernel, const ChipConfig& chip);

}  // namespace cubekit::codegen
