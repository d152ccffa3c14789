#include "codegen/contraction_nest.h"

#include "codegen/contraction_builder.h"

namespace cubekit::codegen {

Kernel build_contraction_nest(const sched::ContractionPlan& plan, int64_t strip, const ChipConfig& chip) {
  return detail::Builder(plan, chip, strip).build();
}

}  // namespace cubekit::codegen
