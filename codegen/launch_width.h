// The vector path's launch width: how many of the chip's vector cores a kernel whose schedule says
// cores() (and no tile_rows()) starts.
//
// A chip that starts a launch's cores one after another (TimingConfig::core_start_cycles apart;
// docs/chips.md, "Launch and block dispatch") charges a kernel for every core it starts. Spread
// over all of them, a small kernel waits longer for its last core to start than that core works:
// a softmax of 64 x 2 on the 950 took 23,128 cycles on its 64 vector cores and 2,943 on 2. The
// vendor's advice is to find the number by trying (Ascend C best practices, "Setting a Proper
// Number of Cores"); this fit tries on the timing model: every core, then half as many while that
// is faster. A kernel whose bytes alone keep HBM busy for longer than the whole stagger is not
// measured (measuring costs a simulation of it per width), nor is one on a chip that starts its
// cores at once.
#pragma once

#include "codegen/ir.h"
#include "emulator/program.h"
#include "schedules/stages.h"
#include "schedules/vector.h"

namespace cubekit::codegen {

struct Launch {
  Kernel kernel;    // lowered from `graph` (fit_row_tiles) and then by lower_nest
  Program program;  // its program
};

// fit_row_tiles and lower_nest at the launch width that the timing model finds fastest; `graph`
// becomes the chosen kernel's.
Launch fit_launch_width(sched::StageGraph& graph, sched::VectorPlan plan, const ChipConfig& chip);

}  // namespace cubekit::codegen
