#include "codegen/launch_width.h"

#include "codegen/fit.h"
#include "codegen/lower.h"
#include "codegen/lower_stages.h"
#include "emulator/simulator.h"

#include <cstdlib>
#include <optional>

namespace cubekit::codegen {

namespace {

// The GM bytes the kernel's tensors hold: each is read or written at least once.
int64_t tensor_bytes(const Kernel& k) {
  int64_t bytes = 0;
  for (const TensorDecl& t : k.tensors) bytes += t.bytes();
  return bytes;
}

// Worth measuring: starting every core takes longer than HBM alone needs for the tensors' bytes.
// (A softmax of BERT-Large's scores, 128 MB, is not: its stagger is a tenth of that, and
// measuring two widths cost its compile 140 ms.) A mixed kernel starts each group's cube core and
// its vector cores.
bool stagger_matters(const Kernel& all_cores, const ChipConfig& chip) {
  const TimingConfig& t = chip.timing;
  const int per_block = all_cores.mixed() ? 1 + chip.vector_cores_per_cube : 1;
  const double stagger = double(all_cores.block_dim * per_block - 1) * t.core_start_cycles;
  const double hbm = double(tensor_bytes(all_cores)) / (t.hbm_rate * t.hbm_efficiency);
  return stagger > 0 && stagger > hbm;
}

uint64_t cycles_of(const Program& program, const ChipConfig& chip) {
  GlobalMemory gm = GlobalMemory::shape_only(program);
  SimOptions o;
  o.timing_only = true, o.checks = false, o.threads = 1;
  return simulate(chip, program, gm, o).report.cycles;
}

Launch lowered(Kernel k, const ChipConfig& chip) {
  Launch l{std::move(k), {}};
  l.program = lower_nest(l.kernel, chip);
  return l;
}

// From `best` (every core), half as many cores while the timing model finds it faster: `at(n)`
// the kernel at n cores, made in `graph` (where the kernel has one), which ends as the chosen
// kernel's.
template <class KernelAt>
Launch narrowed(Launch best, sched::StageGraph* graph, const ChipConfig& chip, KernelAt at) {
  if (!stagger_matters(best.kernel, chip)) return best;
  std::optional<sched::StageGraph> best_graph;
  if (graph) best_graph = *graph;
  uint64_t best_cycles = cycles_of(best.program, chip);
  for (int n = best.kernel.block_dim / 2; n >= 1; n /= 2) {
    Launch l = lowered(at(n), chip);
    uint64_t cycles = cycles_of(l.program, chip);
    if (cycles >= best_cycles) break;
    best = std::move(l), best_cycles = cycles;
    if (graph) best_graph = *graph;
  }
  if (graph) *graph = std::move(*best_graph);
  return best;
}

}  // namespace

Launch fit_launch_width(sched::StageGraph& graph, sched::VectorPlan plan, const ChipConfig& chip) {
  Launch all = lowered(fit_row_tiles(graph, plan, chip), chip);
  if (!plan.cores || plan.tile_rows) return all;
  return narrowed(std::move(all), &graph, chip, [&](int n) {
    plan.core_limit = n;
    return fit_row_tiles(graph, plan, chip);
  });
}

Launch fit_pool_width(sched::StageGraph& graph, sched::PoolPlan plan, Kernel all_cores, const ChipConfig& chip) {
  Launch all = lowered(std::move(all_cores), chip);
  if (!plan.cores) return all;
  return narrowed(std::move(all), &graph, chip, [&](int n) {
    plan.core_limit = n;
    graph = sched::stage_graph(plan);
    return lower_stages(graph, chip);
  });
}

Launch fit_contraction_width(sched::StageGraph& graph, sched::ContractionPlan plan, Kernel all_cores, const ChipConfig& chip) {
  Launch all = lowered(std::move(all_cores), chip);
  if (!plan.core_loops) return all;
  return narrowed(std::move(all), &graph, chip, [&](int n) {
    plan.core_limit = n;
    return fit_strips(plan, chip, graph);
  });
}

Launch fit_width(Kernel all_cores, const ChipConfig& chip, const std::function<Kernel(int)>& at) {
  return narrowed(lowered(std::move(all_cores), chip), nullptr, chip, at);
}

}  // namespace cubekit::codegen
