#include "codegen/contraction_nest.h"

#include "codegen/contraction_builder.h"

namespace cubekit::codegen {

namespace {

using detail::Builder;


int64_t ub_bytes(const Kernel& k, const ChipConfig& chip) { return space_bytes(k, Space::UB, chip); }

std::string ub_buffers(const Kernel& k) {
  std::string list;
  for (const Buffer& b : k.buffers)
    if (b.space == Space::UB) list += fmt::format("{}{} {} x {}", list.empty() ? "" : ", ", b.name, b.bytes, b.copies);
  return list;
}

// The vector cores' strips: as many rows of an AIV's half tile as fit its UB.
Kernel build_vector_epilogue_nest(const sched::ContractionPlan& plan, const ChipConfig& chip) {
  int64_t lo = 1, hi = std::min<int64_t>((plan.tm + 1) / 2, 4095), best = 0;  // a strip's rows are one copy's bursts
  while (lo <= hi) {
    int64_t mid = (lo + hi) / 2;
    if (ub_bytes(Builder(plan, chip, mid).build(), chip) <= chip.buffer_size(Space::UB)) best = mid, lo = mid + 1;
    else hi = mid - 1;
  }
  if (best > 0) return Builder(plan, chip, best).build();
  Kernel k = Builder(plan, chip, 1).build();
  user_error("{}: the epilogue's strips of one row of the {}-column tile need {} bytes of the vector cores' UB ({}; "
             "ACC: the accumulators, OUT: the result, E_: inputs, V: scratch) but {} has {}; {}", plan.func_name, plan.tn,
             ub_bytes(k, chip), ub_buffers(k), chip.name, chip.buffer_size(Space::UB),
             plan.tn > 16 ? "use a smaller n tile or fewer epilogue operations" : "use fewer epilogue operations");
}

}  // namespace

// An epilogue needs UB for its accumulator strip, its inputs and its intermediate values: the
// widest strip (whole fractal columns, at most the plan's) whose kernel fits. On the vector cores
// of a split chip, strips are rows of the AIV's half of the tile: the most that fit.
Kernel build_contraction_nest(const sched::ContractionPlan& plan, const ChipConfig& chip) {
  if (plan.split && !plan.vector_epilogue) return Builder(plan, chip, 0).build();
  if (plan.vector_epilogue) return build_vector_epilogue_nest(plan, chip);
  if (!plan.epilogue) return Builder(plan, chip, plan.strip).build();
  int64_t lo = 1, hi = plan.strip / 16, best = 0;
  while (lo <= hi) {
    int64_t mid = (lo + hi) / 2;
    if (space_bytes(Builder(plan, chip, mid * 16).build(), Space::UB, chip) <= chip.buffer_size(Space::UB)) best = mid, lo = mid + 1;
    else hi = mid - 1;
  }
  if (best == 0) {
    Kernel k = Builder(plan, chip, 16).build();
    std::string list = ub_buffers(k);
    user_error("{}: the epilogue's strips of 16 columns of the {}-row tile need {} bytes of UB ({}; ACC: the "
               "accumulator strip, E_: inputs, V: scratch) but {} has {}; {}", plan.func_name, plan.tm,
               space_bytes(k, Space::UB, chip), list, chip.name, chip.buffer_size(Space::UB),
               plan.tm > 16 ? "use a smaller m tile or fewer epilogue operations" : "use fewer epilogue operations");
  }
  return Builder(plan, chip, best * 16).build();
}

}  // namespace cubekit::codegen
