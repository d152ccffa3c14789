#include "codegen/fit.h"

#include "codegen/lower_stages.h"
#include "codegen/storage.h"
#include "emulator/error.h"

#include <fmt/format.h>

namespace cubekit::codegen {

namespace {


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
      if (ub_bytes(k) > chip_.buffer_size(Space::UB)) overflow(k, p_.tile_rows, fitting(1, p_.tile_rows - 1));
      return k;
    }
    Kernel smallest = make(unit);
    if (ub_bytes(smallest) > chip_.buffer_size(Space::UB)) overflow(smallest, unit, 0);
    return make(fitting(1, most) * unit);
  }

 private:
  int64_t unit() const { return p_.flat ? 128 : 1; }  // tile sizes in rows, or in 128 elements when flat

  Kernel make(int64_t tile) {
    g_.row_tiles.tile_rows = tile;
    return lower_stages(g_, chip_);
  }

  int64_t ub_bytes(const Kernel& k) const { return space_bytes(k, Space::UB, chip_); }

  // The largest tile (in units) in [lo, hi] that fits UB; lo - 1 when none.
  int64_t fitting(int64_t lo, int64_t hi) {
    int64_t best = lo - 1;
    while (lo <= hi) {
      int64_t mid = (lo + hi) / 2;
      if (ub_bytes(make(mid * unit())) <= chip_.buffer_size(Space::UB)) best = mid, lo = mid + 1;
      else hi = mid - 1;
    }
    return best;
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

}  // namespace

Kernel fit_row_tiles(sched::StageGraph& graph, const sched::VectorPlan& plan, const ChipConfig& chip) {
  return RowTileFit(graph, plan, chip).run();
}

}  // namespace cubekit::codegen
