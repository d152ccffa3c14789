// The launch width: how many of the chip's cores a kernel whose schedule says cores() starts (on
// the vector path, without tile_rows()).
//
// A chip that starts a launch's cores one after another (TimingConfig::core_start_cycles apart;
// docs/chips.md, "Launch and block dispatch") charges a kernel for every core it starts. Spread
// over all of them, a small kernel waits longer for its last core to start than that core works:
// a softmax of 64 x 2 on the 950 took 23,128 cycles on its 64 vector cores and 2,943 on 2, a 3 x 3
// convolution of 2 x 40 x 13 x 13 into 72 channels, stride 2, with a fused epilogue on the 910B2
// 28,597 on its 24 groups and 8,943 on 3. The
// vendor's advice is to find the number by trying (Ascend C best practices, "Setting a Proper
// Number of Cores"); this fit tries on the timing model: every core, then half as many while that
// is faster. A kernel whose bytes alone keep HBM busy for longer than the whole stagger is not
// measured (measuring costs a simulation of it per width), nor is one on a chip that starts its
// cores at once.
#pragma once

#include "codegen/ir.h"
#include "emulator/program.h"
#include "schedules/contraction.h"
#include "schedules/pool.h"
#include "schedules/stages.h"
#include "schedules/vector.h"

#include <functional>

namespace cubekit::codegen {

struct Launch {
  Kernel kernel;    // lowered from `graph` (fit_row_tiles) and then by lower_nest
  Program program;  // its program
};

// fit_row_tiles and lower_nest at the launch width that the timing model finds fastest; `graph`
// becomes the chosen kernel's.
Launch fit_launch_width(sched::StageGraph& graph, sched::VectorPlan plan, const ChipConfig& chip);

// The cube path's: `all_cores` is fit_strips' kernel of `plan` at every core (`graph` its graph);
// the chosen one lowered, `graph` becoming its.
Launch fit_contraction_width(sched::StageGraph& graph, sched::ContractionPlan plan, Kernel all_cores, const ChipConfig& chip);
// A pooling's, the same way (`all_cores` lower_stages' kernel of `plan`'s graph).
Launch fit_pool_width(sched::StageGraph& graph, sched::PoolPlan plan, Kernel all_cores, const ChipConfig& chip);
// A kernel built without a stage graph (TransData's): `at(n)` the kernel on at most n cores.
Launch fit_width(Kernel all_cores, const ChipConfig& chip, const std::function<Kernel(int)>& at);

}  // namespace cubekit::codegen
