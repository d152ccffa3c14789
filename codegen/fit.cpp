#include "codegen/fit.h"

#include "codegen/lower_stages.h"
#include "codegen/storage.h"
#include "emulator/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

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
  return largest_within(hi, chip.buffer_size(Space::UB), [&](int64_t n) { return ub_bytes(make(n), chip); });
}

class RowTileFit {
 public:
  RowTileFit(sched::StageGraph& g, const sched::VectorPlan& p, const ChipConfig& chip) : g_(g), p_(p), chip_(chip) {}

  Kernel run() {
    const int64_t total = p_.flat ? p_.rows * p_.cols : p_.rows;
    const int64_t unit = this->unit();
    const int64_t spread = !p_.cores ? 1 : p_.core_limit ? p_.core_limit : chip_.vector_cores();
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
    int64_t align = chip_.alignment(Space::UB), one_copy = 0;  // the bytes with one copy of every buffer
    for (const Buffer& b : k.buffers)
      if (b.space == Space::UB) {
        list += fmt::format("{}{} {} x {}", list.empty() ? "" : ", ", b.name, round_up(b.bytes, align), b.copies);
        one_copy += round_up(b.bytes, align);
      }
    // Fewer copies are a way out only when one copy of each buffer fits.
    const bool copies_help = !p_.fewer_copies.empty() && one_copy <= chip_.buffer_size(Space::UB);
    std::string what = p_.flat ? fmt::format("tiles of {} elements", tile)
                               : fmt::format("tiles of {} row{} of {} columns", tile, tile == 1 ? "" : "s", p_.cols);
    std::string fix = p_.flat ? "use fewer inputs or intermediate values"
                    : fits > 0 ? fmt::format("use tile_rows({}) or fewer", fits)
                               : fmt::format("a whole row must fit: use shorter rows (a reduction along a longer row in two "
                                             "Funcs, partial results per part of the row, then their combination) or fewer "
                                             "intermediate full-row Funcs{}", copies_help ? ", or " + p_.fewer_copies : "");
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

// The widest strips (n units of `unit`, n at most `most`) whose epilogue fits UB, or the user's
// error for the narrowest: `strips` names them, `ub` the UB they need, `legend` its buffers.
Kernel widest_strips(const sched::ContractionPlan& plan, const ChipConfig& chip, sched::StageGraph& graph, int64_t most,
                     int64_t unit, const std::string& strips, const char* ub, const char* legend, const char* fix) {
  auto make = [&](int64_t n) { return with_strips(plan, n * unit, chip, graph); };
  if (int64_t best = largest_fitting(most, chip, make)) return make(best);
  Kernel k = make(1);
  user_error("{}: the epilogue's {} need {} bytes of {} ({}; {}) but {} has {}; {}", plan.func_name, strips, ub_bytes(k, chip),
             ub, ub_buffers(k), legend, chip.name, chip.buffer_size(Space::UB), fix);
}

Kernel lower_flash(const sched::AttentionPlan& plan, const ChipConfig& chip, sched::StageGraph& graph) {
  graph = sched::stage_graph(plan);
  return lower_stages(graph, chip);
}

// The first level of the flash nest's buffers that its chip cannot hold, as plan_storage counts them.
Space overflow_of(const Kernel& k, const ChipConfig& chip) {
  for (Space s : {Space::UB, Space::L1, Space::L0A, Space::L0B, Space::L0C})
    if (space_bytes(k, s, chip) > chip.buffer_size(s)) return s;
  return Space::GM;
}

}  // namespace

Kernel fit_attention(const sched::AttentionPlan& plan, const ChipConfig& chip, sched::StageGraph& graph) {
  Kernel k = lower_flash(plan, chip, graph);
  const Space full = overflow_of(k, chip);
  if (full == Space::GM) return k;
  std::string where(space_name(full)), list;
  for (char& c : where) c = char(std::toupper(static_cast<unsigned char>(c)));
  for (const Buffer& b : k.buffers)
    if (b.space == full) list += fmt::format("{}{} {} x {}", list.empty() ? "" : ", ", b.name, round_up(b.bytes, chip.alignment(full)), b.copies);
  // A split chip's nest holds preload + 1 slots of some hand-offs (P in the 950's L1, a per row in
  // UB): a smaller preload helps there only; L0A, L0B and L0C hold one tile's operands whatever it is.
  const bool slots = full == Space::L1 || full == Space::UB;
  user_error("{}.{}: tiles of {} queries x {} keys with head dim {} need {} bytes of {} and {} has {}; use smaller tiles{} ({}: "
             "{})", plan.func_name, plan.schedule, plan.tile_q, plan.tile_kv, plan.dim, space_bytes(k, full, chip), where,
             chip.name, chip.buffer_size(full), plan.split && plan.preload > 1 && slots ? " or a smaller preload" : "",
             where, list);
}

Space attention_overflow(const sched::AttentionPlan& plan, const ChipConfig& chip) {
  sched::StageGraph graph;
  return overflow_of(lower_flash(plan, chip, graph), chip);
}

Kernel fit_strips(const sched::ContractionPlan& plan, const ChipConfig& chip, sched::StageGraph& graph) {
  if (plan.split && !plan.vector_epilogue) return with_strips(plan, 0, chip, graph);
  if (!plan.epilogue) return with_strips(plan, plan.strip, chip, graph);
  if (plan.vector_epilogue)  // strips of rows of an AIV's half tile, at most one copy's 4095 bursts
    return widest_strips(plan, chip, graph, std::min<int64_t>((plan.tm + 1) / 2, 4095), 1,
                         fmt::format("strips of one row of the {}-column tile", plan.tn), "the vector cores' UB",
                         "ACC: the accumulators, OUT: the result, E_: inputs, V: scratch",
                         plan.tn > 16 ? "use a smaller n tile or fewer epilogue operations" : "use fewer epilogue operations");
  return widest_strips(plan, chip, graph, plan.strip / 16, 16, fmt::format("strips of 16 columns of the {}-row tile", plan.tm),
                       "UB", "ACC: the accumulator strip, E_: inputs, V: scratch",
                       plan.tm > 16 ? "use a smaller m tile or fewer epilogue operations" : "use fewer epilogue operations");
}

Kernel fit_row_tiles(sched::StageGraph& graph, const sched::VectorPlan& plan, const ChipConfig& chip) {
  return RowTileFit(graph, plan, chip).run();
}

int64_t largest_within(int64_t hi, int64_t cap, const std::function<int64_t(int64_t)>& bytes) {
  int64_t lo = 1, best = 0;
  if (hi >= 3) {
    const int64_t one = bytes(1), two = bytes(2);
    if (one > cap) return 0;
    lo = 2, best = 1;
    if (two <= cap) {
      const int64_t guess = two > one ? std::clamp<int64_t>(1 + (cap - one) / (two - one), 2, hi) : hi;
      if (bytes(guess) <= cap) {
        if (guess == hi || bytes(guess + 1) > cap) return guess;
        best = guess + 1, lo = guess + 2;
      } else {
        best = 2, lo = 3, hi = guess - 1;
      }
    } else {
      hi = 1;
    }
  }
  while (lo <= hi) {
    int64_t mid = (lo + hi) / 2;
    if (bytes(mid) <= cap) best = mid, lo = mid + 1;
    else hi = mid - 1;
  }
  return best;
}

}  // namespace cubekit::codegen
