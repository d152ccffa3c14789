// The compiler: a Func and its schedule in, a Program out, through the passes listed in
// lower.cpp. CUBEKIT_DEBUG=lower prints the IR after every pass (to stderr).
#pragma once

#include "codegen/ir.h"
#include "codegen/layouts.h"
#include "dsl/func.h"
#include "emulator/chip_config.h"
#include "emulator/program.h"

namespace cubekit::codegen {

struct Compiled {
  Program program;
  double milliseconds = 0;  // compile time
  // Tensors the program stores otherwise than the Func shapes them (a conv's NC1HWC0 and
  // FRACTAL_Z): give and take them through these conversions.
  std::vector<TensorLayout> layouts;
  std::string stages;  // the kernel's stage graph, printed (schedules/stages.h)
};

// f with the schedule written on it.
Compiled compile(const dsl::Func& f, const ChipConfig& chip);
// f and a second output its kernel writes (Func::store_with), in that order.
Compiled compile(const std::vector<dsl::Func>& outputs, const ChipConfig& chip);
// The checks compile() makes before its passes: the outputs' definitions, their schedule's plan
// (sched::plan_*: buffer capacities, alignment, copies against event ids) and the fit of strips
// and row tiles in UB. A user error where compile() would give the same one; the tuner prunes its
// space with it.
void check_schedule(const std::vector<dsl::Func>& outputs, const ChipConfig& chip);
// f with another schedule (f's own is left as it is): one Func, many schedules side by side.
Compiled compile(const dsl::Func& f, const dsl::Schedule& schedule, const ChipConfig& chip);

// The passes after a nest builder (selection, storage, sync, simplification, scalar code), for a
// kernel made without a Func (TransData).
Program lower_nest(Kernel& k, const ChipConfig& chip);

}  // namespace cubekit::codegen
