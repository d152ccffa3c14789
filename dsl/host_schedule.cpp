// The fast schedule of the host reference. It moves and vectorises loops over independent results
// only: every reduction still runs over its RDom in order, each result accumulated on its own, so the
// values are bit for bit the plain pipeline's (tests/dsl/host_schedule_test.cpp holds it to that).
#include "dsl/host_lowering.h"

#include <cstdint>

#include <algorithm>

namespace cubekit::dsl::host {

namespace {

using Halide::TailStrategy;

constexpr int kTileRows = 8;             // rows of a register tile; its columns are two vectors
constexpr int kChunk = 1 << 13;  // elements per parallel task of a 1-D Func

int lanes(const Halide::Target& t, const Halide::Func& f) { return t.natural_vector_size(f.output_types()[0]); }

// One parallel loop over `outer` (adjacent loops, innermost first), fused: a batch of one still
// leaves the rows to share out.
void parallel_over(Halide::Func f, std::vector<Halide::VarOrRVar> outer) {
  if (outer.empty()) return;
  Halide::VarOrRVar task = outer[0];
  for (size_t i = 1; i < outer.size(); ++i) {
    Halide::Var fused;
    f.fuse(task.var, outer[i].var, fused);
    task = fused;
  }
  f.parallel(task);
}

// An elementwise Func: vectorised along its innermost dimension, parallel over the others.
void schedule_pure(const LoweredFunc& f, const Halide::Target& t) {
  if (f.vars.empty()) return;
  Halide::Func func = f.func;
  int v = lanes(t, func);
  if (f.vars.size() == 1) {
    if (f.extents[0] < 2 * kChunk) {
      if (f.extents[0] >= v) func.vectorize(f.vars[0], v, TailStrategy::GuardWithIf);
      return;
    }
    Halide::Var task, in;
    func.split(f.vars[0], task, in, kChunk, TailStrategy::GuardWithIf).vectorize(in, v).parallel(task);
    return;
  }
  if (f.extents[0] >= v) func.vectorize(f.vars[0], v, TailStrategy::GuardWithIf);
  parallel_over(func, {f.vars.begin() + 1, f.vars.end()});
}

// An input copy: converted and stored with `inner` innermost, written along it.
// A copy of 2 GiB or more stays inline (read from the input at each use): Halide 14 sizes a buffer it
// allocates in 32 bits ("Allocation size should be a positive number").
void schedule_copy(const InputCopy& c, const Halide::Target& t) {
  Halide::Func func = c.func;
  int64_t bytes = func.output_types().at(0).bytes();
  for (int64_t e : c.extents) bytes *= e;
  if (bytes > INT32_MAX) return;
  func.compute_root();
  std::vector<Halide::Var> order = c.vars;
  std::rotate(order.begin(), order.begin() + c.inner, order.begin() + c.inner + 1);
  if (c.inner != 0) func.reorder_storage(order).reorder(std::vector<Halide::VarOrRVar>(order.begin(), order.end()));
  int v = lanes(t, func);
  if (c.extents[size_t(c.inner)] >= v) func.vectorize(order[0], v, TailStrategy::GuardWithIf);
  parallel_over(func, {order.begin() + 1, order.end()});
}

// A register tile: `columns` results along the innermost variable (in vectors of `vector` lanes, or
// none when fewer than a vector), `rows` along the next.
struct Tile {
  int columns = 1, vector = 0, rows = 1;
};

Tile tile_for(const LoweredFunc& f, int v) {
  Tile tile;
  int64_t x = f.extents[0];
  tile.columns = int(x >= 2 * v ? 2 * v : std::min<int64_t>(x, v));
  tile.vector = x >= v ? v : 0;
  if (f.vars.size() >= 2) tile.rows = int(std::min<int64_t>(kTileRows, f.extents[1]));
  return tile;
}

// The reduction within one (whole) tile of its consumer: both definitions with the lanes along x,
// the rows unrolled, and (the update) its RDom outside them, in order. Each result's accumulator
// stays in a register across the whole RDom.
template <class Definition>
void schedule_in_tile(Definition def, const LoweredReduction& r, const Tile& tile, bool update) {
  std::vector<Halide::VarOrRVar> order{r.vars[0]};
  // Split by the tile's width, guarded: the same vectors as the tile's, also where bounds inference
  // trims the region (a select on the variable: a causal mask) and the extent is not a constant.
  if (tile.vector) def.vectorize(r.vars[0], tile.columns, TailStrategy::GuardWithIf);
  else def.unroll(r.vars[0]);
  if (r.vars.size() >= 2) def.unroll(r.vars[1]), order.push_back(r.vars[1]);
  if (update)
    for (int d = 0; d < r.rdom.dimensions(); ++d) order.push_back(r.rdom[d]);
  for (size_t d = 2; d < r.vars.size(); ++d) order.push_back(r.vars[d]);
  def.reorder(order);
}

// `f`, tiled (parallel over column panels, each panel's rows in turn: the operand a panel reads
// again and again stays in cache), computes `reductions` tile by tile. f is computed over its
// extents exactly (bound), and the last tiles shift inwards to stay whole (recomputing a few
// results, the same values): no tails to guard, far less code for LLVM to compile.
void schedule_tiled(const LoweredFunc& f, const std::vector<const LoweredReduction*>& reductions,
                    const Halide::Target& t) {
  Halide::Func func = f.func;
  Tile tile = tile_for(f, lanes(t, reductions[0]->func));
  TailStrategy tail = TailStrategy::ShiftInwards;
  for (size_t d = 0; d < f.vars.size(); ++d) func.bound(f.vars[d], 0, int(f.extents[d]));
  Halide::Var xo, xi, yo, yi;
  func.split(f.vars[0], xo, xi, tile.columns, tail);
  std::vector<Halide::VarOrRVar> order{xi};
  Halide::VarOrRVar at = xo;
  if (f.vars.size() >= 2) {
    func.split(f.vars[1], yo, yi, tile.rows, tail);
    order.insert(order.end(), {yi, yo});
    at = yo;
  }
  order.push_back(xo);
  std::vector<Halide::VarOrRVar> outer{xo};
  for (size_t d = 2; d < f.vars.size(); ++d) order.push_back(f.vars[d]), outer.push_back(f.vars[d]);
  func.reorder(order);
  if (tile.vector) func.vectorize(xi, tile.vector);
  parallel_over(func, outer);
  for (const LoweredReduction* r : reductions) {
    Halide::Func reduction = r->func;
    reduction.compute_at(func, at.var);
    Tile own = tile;
    own.vector = tile.vector ? std::min(tile.vector, lanes(t, reduction)) : 0;
    schedule_in_tile(reduction, *r, own, false);
    schedule_in_tile(reduction.update(), *r, own, true);
  }
}

}  // namespace

void schedule_fast(Lowered& lowered, const Halide::Target& target) {
  for (const InputCopy& c : lowered.copies) schedule_copy(c, target);
  for (const auto& [impl, f] : lowered.funcs) {
    std::vector<const LoweredReduction*> owned;
    for (const LoweredReduction& r : lowered.reductions)
      if (r.owner == impl && !r.vars.empty()) owned.push_back(&r);
    if (owned.empty()) schedule_pure(f, target);
    else schedule_tiled(f, owned, target);
  }
  for (const LoweredReduction& r : lowered.reductions) {
    Halide::Func reduction = r.func;
    if (r.vars.empty() || r.nested) {
      // One value, or a reduction inside another (rare): computed once, in plain loops.
      reduction.compute_root();
      continue;
    }
    if (r.owner) continue;
    // Called with fewer variables than its consumer has: computed once, into a root wrapper over the
    // consumer's extents.
    LoweredFunc wrapper{reduction.in(), {}, r.extents};
    wrapper.vars = wrapper.func.args();
    wrapper.func.compute_root();
    schedule_tiled(wrapper, {&r}, target);
  }
}

}  // namespace cubekit::dsl::host
