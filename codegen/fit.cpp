#include "codegen/fit.h"

#include "codegen/lower_stages.h"
#include "codegen/storage.h"
#include "emulator/error.h"

#include <fmt/format.h>

namespace cubekit::codegen {

namespace {

int64_t ub_bytes(const Kernel& k, const ChipConfig& chip) { return space_bytes(k, Space::UB, chip); }

std::string ub_buffers(const Kernel& k) {
  std::string list;
  for (const Buffer& b : k.buffers)
    if (b.space == Space::UB) list += fmt::format("{}{} {} x {}", list.empty() ? "" : ", ", b.name, b.bytes, b.copies);
  return list;
}

// The largest n in [1, hi] whose kernel fits UB; 0 when none does.
template <class Make>
int64_t largest_fitting(int64_t hi, const ChipConfig& chip, Make make) {
  int64_t lo = 1, best = 0;
  while (lo <= hi) {
    int64_t mid = (lo + hi) / 2;
    if (ub_bytes(make(mid), chip) <= chip.buffer_size(Space::UB)) best = mid, lo = mid + 1;
    else hi = mid - 1;
  }
  return best;
}

class RowTileFit {
 public:
  RowTileFit(sched::StageGraph& g, const sched::VectorPlan& p, const ChipConfig& chip) : g_(g), p_(p), chip_(chip) {}

  Kernel run() {
    const int64_t total = p_.flat ? p_.rows * p_.cols : p_.rows;
    const int64_t unit = this->unit();
    const int64_t spread = p_.cores ? chip_.vector_cores() : 1;
    int64_t most = std::max<int64_t>(1, cdiv(cdiv(total, spread), unit));
    if (!p_.flat) most = std::min<int64_t>(most, 4095);  // rows are bursts of one copy
    if (p_.tile_rows) {
      Kernel k = make(p_.tile_rows);
      if (ub_bytes(k) > chip_.buffer_size(Space::UB)) overflow(k, p_.tile_rows, fitting(p_.tile_rows - 1));
      return k;
    }
    Kernel smallest = make(unit);
    if (ub_bytes(smallest) > chip_.buffer_size(Space::UB)) overflow(smallest, unit, 0);
    return make(fitting(most) * unit);
  }

 private:
  int64_t unit() const { return p_.flat ? 128 : 1; }  // tile sizes in rows, or in 128 elements when flat

  Kernel make(int64_t tile) {
    g_ = sched::stage_graph(p_, tile);
    return lower_stages(g_, chip_);
  }

  int64_t ub_bytes(const Kernel& k) const { return codegen::ub_bytes(k, chip_); }

  // The largest tile (in units) in [1, hi] that fits UB; 0 when none.
  int64_t fitting(int64_t hi) {
    return largest_fitting(hi, chip_, [&](int64_t units) { return make(units * unit()); });
  }

  [[noreturn]] void overflow(const Kernel& k, int64_t tile, int64_t fits) {
    std::string list;
    int64_t align = chip_.alignment(Space::UB);
    for (const Buffer& b : k.buffers)
      if (b.space == Space::UB) list += fmt::format("{}{} {} x {}", list.empty() ? "" : ", ", b.name, round_up(b.bytes, align), b.copies);
    std::string what = p_.flat ? fmt::format("tiles of {} elements", tile)
                               : fmt::format("tiles of {} row{} of {} columns", tile, tile == 1 ? "" : "s", p_.cols);
    std::string fix = p_.flat ? "use fewer inputs or intermediate values"
                    : fits > 0 ? fmt::format("use tile_rows({}) or fewer", fits)
                               : fmt::format("a whole row must fit: use shorter rows (split the last dimension) or fewer "
                                             "intermediate full-row Funcs{}", p_.fewer_copies.empty() ? "" : ", or " + p_.fewer_copies);
    user_error("{}: {} need {} bytes of UB ({}; V: scratch) but {} has {}; {}", p_.name, what, ub_bytes(k), list, chip_.name,
               chip_.buffer_size(Space::UB), fix);
  }

  sched::StageGraph& g_;
  const sched::VectorPlan& p_;
  const ChipConfig& chip_;
};

// The kernel lowered from the contraction's graph with strips `strip` wide (`graph` becomes it).
Kernel with_strips(const sched::ContractionPlan& plan, int64_t strip, const ChipConfig& chip, sched::StageGraph& graph) {
  graph = sched::stage_graph(plan, strip);
  return lower_stages(graph, chip);
}

// The vector cores' strips: as many rows of an AIV's half tile as fit its UB.
Kernel fit_row_strips(const sched::ContractionPlan& plan, const ChipConfig& chip, sched::StageGraph& graph) {
  auto make = [&](int64_t rows) { return with_strips(plan, rows, chip, graph); };
  int64_t best = largest_fitting(std::min<int64_t>((plan.tm + 1) / 2, 4095), chip, make);  // a strip's rows are one copy's bursts
  if (best > 0) return make(best);
  Kernel k = make(1);
  user_error("{}: the epilogue's strips of one row of the {}-column tile need {} bytes of the vector cores' UB ({}; "
             "ACC: the accumulators, OUT: the result, E_: inputs, V: scratch) but {} has {}; {}", plan.func_name, plan.tn,
             ub_bytes(k, chip), ub_buffers(k), chip.name, chip.buffer_size(Space::UB),
             plan.tn > 16 ? "use a smaller n tile or fewer epilogue operations" : "use fewer epilogue operations");
}

}  // namespace

Kernel fit_strips(const sched::ContractionPlan& plan, const ChipConfig& chip, sched::StageGraph& graph) {
  if (plan.split && !plan.vector_epilogue) return with_strips(plan, 0, chip, graph);
  if (plan.vector_epilogue) return fit_row_strips(plan, chip, graph);
  if (!plan.epilogue) return with_strips(plan, plan.strip, chip, graph);
  auto make = [&](int64_t fractals) { return with_strips(plan, fractals * 16, chip, graph); };
  int64_t best = largest_fitting(plan.strip / 16, chip, make);
  if (best > 0) return make(best);
  Kernel k = make(1);
  user_error("{}: the epilogue's strips of 16 columns of the {}-row tile need {} bytes of UB ({}; ACC: the "
             "accumulator strip, E_: inputs, V: scratch) but {} has {}; {}", plan.func_name, plan.tm,
             ub_bytes(k, chip), ub_buffers(k), chip.name, chip.buffer_size(Space::UB),
             plan.tm > 16 ? "use a smaller m tile or fewer epilogue operations" : "use fewer epilogue operations");
}

Kernel fit_row_tiles(sched::StageGraph& graph, const sched::VectorPlan& plan, const ChipConfig& chip) {
  return RowTileFit(graph, plan, chip).run();
}

}  // namespace cubekit::codegen
