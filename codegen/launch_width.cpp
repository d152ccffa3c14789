#include "codegen/launch_width.h"

#include "codegen/fit.h"
#include "codegen/lower.h"
#include "emulator/simulator.h"

#include <cstdlib>

namespace cubekit::codegen {

namespace {

// The GM bytes the kernel's tensors hold: each is read or written at least once.
int64_t tensor_bytes(const Kernel& k) {
  int64_t bytes = 0;
  for (const TensorDecl& t : k.tensors) bytes += t.bytes();
  return bytes;
}

// Worth measuring: starting every vector core takes longer than HBM alone needs for the tensors'
// bytes. (A softmax of BERT-Large's scores, 128 MB, is not: its stagger is a tenth of that, and
// measuring two widths cost its compile 140 ms.)
bool stagger_matters(const Kernel& all_cores, const ChipConfig& chip) {
  const TimingConfig& t = chip.timing;
  const double stagger = double(all_cores.block_dim - 1) * t.core_start_cycles;
  const double hbm = double(tensor_bytes(all_cores)) / (t.hbm_rate * t.hbm_efficiency);
  return stagger > 0 && stagger > hbm;
}

uint64_t cycles_of(const Program& program, const ChipConfig& chip) {
  GlobalMemory gm = GlobalMemory::shape_only(program);
  SimOptions o;
  o.timing_only = true, o.checks = false, o.threads = 1;
  return simulate(chip, program, gm, o).report.cycles;
}

Launch lowered(sched::StageGraph& graph, const sched::VectorPlan& plan, const ChipConfig& chip) {
  Launch l;
  l.kernel = fit_row_tiles(graph, plan, chip);
  l.program = lower_nest(l.kernel, chip);
  return l;
}

}  // namespace

Launch fit_launch_width(sched::StageGraph& graph, sched::VectorPlan plan, const ChipConfig& chip) {
  Launch best = lowered(graph, plan, chip);
  if (!plan.cores || plan.tile_rows || !stagger_matters(best.kernel, chip)) return best;
  sched::StageGraph best_graph = graph;
  uint64_t best_cycles = cycles_of(best.program, chip);
  for (int n = best.kernel.block_dim / 2; n >= 1; n /= 2) {
    plan.core_limit = n;
    Launch l = lowered(graph, plan, chip);
    uint64_t cycles = cycles_of(l.program, chip);
    if (cycles >= best_cycles) break;
    best = std::move(l), best_graph = graph, best_cycles = cycles;
  }
  graph = std::move(best_graph);
  return best;
}

}  // namespace cubekit::codegen
