#include "schedules/contraction.h"

#include "emulator/error.h"
#include "schedules/loops.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace cubekit::sched {

using dsl::Directive;
using dsl::Expr;
using dsl::ExprNode;
using dsl::Level;
using dsl::Op;
using dsl::VarImpl;

int64_t Contraction::batches() const {
  int64_t b = 1;
  for (int64_t e : batch) b *= e;
  return b;
}

namespace {

const char* kShape = "the cube computes C(b.., m, n) = sum(cast(T, A(b.., m, k)) * cast(T, B(b.., k, n)))";

// An input access, possibly under a cast: the input and its index variables.
struct Access {
  std::shared_ptr<dsl::InputImpl> input;
  std::vector<std::shared_ptr<VarImpl>> vars;
  DType cast_to;
};

Access access_of(const Expr& e, const std::string& fname) {
  const ExprNode* n = e.get();
  DType cast_to = n->type.dtype;
  if (n->op == Op::Cast) n = n->args[0].get();
  if (n->op != Op::Input)
    user_error("{}: `{}` is not an input (or a cast of one); {}", fname, e.str(), kShape);
  Access a{n->input, {}, cast_to};
  for (const Expr& idx : n->args) {
    if (idx.node().op != Op::Var)
      user_error("{}: {} is indexed by `{}`; the cube needs each index to be a plain variable", fname, n->input->name,
                 idx.str());
    a.vars.push_back(idx.node().var);
  }
  return a;
}

bool uses(const Access& a, const std::shared_ptr<VarImpl>& v) {
  return std::find(a.vars.begin(), a.vars.end(), v) != a.vars.end();
}

// Splits an access's variables into (batch.., row, col) and checks batch comes first.
void check_layout(const Access& a, const std::vector<std::shared_ptr<VarImpl>>& batch, const std::string& fname) {
  if (a.vars.size() != batch.size() + 2)
    user_error("{}: {} has {} dimensions; with {} batch dimension(s) it needs {}", fname, a.input->name, a.vars.size(),
               batch.size(), batch.size() + 2);
  for (size_t i = 0; i < batch.size(); ++i)
    if (a.vars[i] != batch[i])
      user_error("{}: {}'s dimension {} should be the batch variable {} (batch dimensions lead, in the output's order)",
                 fname, a.input->name, i, batch[i]->name);
}

// The cube path reads an input's rows at its own row length (the extent of its last dimension):
// a bound() or RDom that takes part of that dimension would read the rows at the shorter length
// and mix them up (a bound of 60 on B's 256 columns read 60 of row 0, then the rest of row 0 as row
// 1). Its other dimensions may be read in part.
void check_rows_whole(const Access& a, const Contraction& c, const std::string& fname) {
  const std::shared_ptr<VarImpl>& last = a.vars.back();
  const int64_t used = last == c.kv ? c.k : last == c.mv ? c.m : c.n;
  const int64_t whole = a.input->shape.back();
  if (used == whole) return;
  const std::string widen = last->reduction ? fmt::format("make the RDom {} cover all {}", last->name, whole)
                                             : fmt::format("bound {} to all {} ({}.bound({}, 0, {}))", last->name, whole,
                                                           fname, last->name, whole);
  user_error("{}: {} covers {} of the {} elements of {}'s last dimension, along which its rows are stored; the cube "
             "path reads an input's rows whole: {}, or give {} as an input of just the part it reads", fname, last->name,
             used, whole, a.input->name, widen, a.input->name);
}

}  // namespace

void check_cube_output(const std::string& fname, DType acc, DType out, const ChipConfig& chip) {
  const bool bf16 = writes_bf16(chip);
  if (out == acc || (acc == DType::f32 && (out == DType::f16 || (out == DType::bf16 && bf16)))) return;
  user_error("{}: the cube's {} results can be written as {}{}, not {}{}", fname, dtype_name(acc), dtype_name(acc),
             acc != DType::f32 ? "" : bf16 ? ", f16 or bf16" : " or f16", dtype_name(out),
             out == DType::bf16 && !bf16 ? fmt::format(" ({} has no bf16 conversion)", chip.name) : "");
}

Contraction recognise_contraction(const dsl::Func& f, const ChipConfig& chip) {
  const std::string& fname = f.name();
  if (!f.defined()) user_error("{} has no definition", fname);
  Contraction c;
  const ExprNode* v = f.impl->value.get();
  c.out = v->type.dtype;
  if (v->op == Op::Cast) v = v->args[0].get();  // an output cast, e.g. to f16
  if (v->op != Op::Sum)
    user_error("{}: `{}` is not a sum over a reduction; {}", fname, f.impl->value.str(), kShape);
  c.acc = v->type.dtype;
  const ExprNode* prod = v->args[0].get();
  if (prod->op != Op::Mul)
    user_error("{}: the summand `{}` is not a product of two inputs; {}", fname, v->args[0].str(), kShape);
  Access a = access_of(prod->args[0], fname), b = access_of(prod->args[1], fname);
  auto rvars = dsl::rvars_of(v->args[0]);
  if (rvars.size() != 1)
    user_error("{}: the cube reduces over one variable, `{}` uses {}", fname, v->args[0].str(), rvars.size());
  c.kv = rvars[0];
  c.k = c.kv->extent;
  if (c.kv->min != 0) user_error("{}: the reduction {} must start at 0 for the cube", fname, c.kv->name);
  for (int side : {0, 1})
    if (!uses(side ? b : a, c.kv))
      user_error("{}: both operands must be indexed by the reduction variable {}; `{}` is not", fname, c.kv->name,
                 prod->args[size_t(side)].str());

  // Output variables: in both operands = batch, in A only = m, in B only = n.
  const auto& out = f.impl->args;
  for (const auto& ov : out) {
    bool in_a = uses(a, ov), in_b = uses(b, ov);
    if (in_a && in_b) c.batch_vars.push_back(ov);
    else if (in_a && !c.mv) c.mv = ov;
    else if (in_b && !c.nv) c.nv = ov;
    else if (!in_a && !in_b) user_error("{}: the output variable {} indexes neither operand; {}", fname, ov->name, kShape);
    else {
      const std::string &mine = in_a ? a.input->name : b.input->name, &other = in_a ? b.input->name : a.input->name;
      const std::string& first = in_a ? c.mv->name : c.nv->name;
      user_error("{}: {} and {} both index {} alone, not {}: the cube multiplies matrices, batched only over variables "
                 "both operands have; give {} the batch dimension as well (a copy of it per batch), or fold {} into "
                 "{} ({} as one matrix of their rows) and compute {} as a matrix", fname, first, ov->name, mine, other,
                 other, first, ov->name, mine, fname);
    }
  }
  if (!c.mv || !c.nv) user_error("{}: the output needs a row variable from A and a column variable from B; {}", fname, kShape);
  if (out.size() != c.batch_vars.size() + 2 || out[out.size() - 2] != c.mv || out.back() != c.nv)
    user_error("{}: write the output as {}(batch.., {}, {}): rows from A, then columns from B", fname, fname, c.mv->name,
               c.nv->name);
  check_layout(a, c.batch_vars, fname);
  check_layout(b, c.batch_vars, fname);
  size_t r = c.batch_vars.size();
  if (a.vars[r] == c.mv && a.vars[r + 1] == c.kv) c.a_transposed = false;
  else if (a.vars[r] == c.kv && a.vars[r + 1] == c.mv) c.a_transposed = true;
  else user_error("{}: {} must be indexed ({}, {}) or, transposed, ({}, {})", fname, a.input->name, c.mv->name,
                  c.kv->name, c.kv->name, c.mv->name);
  if (b.vars[r] == c.kv && b.vars[r + 1] == c.nv) c.b_transposed = false;
  else if (b.vars[r] == c.nv && b.vars[r + 1] == c.kv) c.b_transposed = true;
  else user_error("{}: {} must be indexed ({}, {}) or, transposed, ({}, {})", fname, b.input->name, c.kv->name,
                  c.nv->name, c.nv->name, c.kv->name);

  // The cube reads its operands through buffers of their own (L0A and L0B), each filled from the
  // operand's own copy in L1; the schedule stages each input by name.
  if (a.input == b.input)
    user_error("{}: {} is both operands; the cube reads A and B through buffers of their own (L0A, L0B), which the "
               "schedule stages by input: give the second operand as an Input of its own (the same data twice)", fname,
               a.input->name);
  c.a = a.input, c.b = b.input;
  c.in = a.input->dtype;
  if (b.input->dtype != c.in)
    user_error("{}: {} is {} and {} is {}; the cube multiplies two inputs of one type", fname, a.input->name,
               dtype_name(c.in), b.input->name, dtype_name(b.input->dtype));
  const CubeFractal* frac = chip.fractal(c.in);
  if (!frac) {
    std::string types;
    for (const CubeFractal& cf : chip.cube) types += (types.empty() ? "" : " or ") + std::string(dtype_name(cf.input));
    user_error("{}: the cube of {} multiplies {}, but {} is {}", fname, chip.name, types, a.input->name, dtype_name(c.in));
  }
  if (a.cast_to != frac->accumulator || b.cast_to != frac->accumulator || c.acc != frac->accumulator)
    user_error("{}: the cube accumulates {} products in {}: write sum(cast({}, {}(..)) * cast({}, {}(..)))", fname,
               dtype_name(c.in), dtype_name(frac->accumulator), dtype_name(frac->accumulator), a.input->name,
               dtype_name(frac->accumulator), b.input->name);
  check_cube_output(fname, frac->accumulator, c.out, chip);
  if (c.in == DType::s8 && (c.a_transposed || !c.b_transposed))
    user_error("{}: for s8 the cube needs A as (m, k) and B as (n, k), k contiguous in both: its 8-bit fractals hold 32 "
               "consecutive k and load2d cannot transpose 8-bit data; store {} as {}",
               fname, c.a_transposed ? a.input->name : b.input->name, c.a_transposed ? "(m, k), not transposed" : "(n, k), transposed");
  std::vector<int64_t> shape = f.shape();
  for (size_t i = 0; i < r; ++i) c.batch.push_back(shape[i]);
  c.m = shape[r];
  c.n = shape[r + 1];
  for (const Access* side : {&a, &b}) check_rows_whole(*side, c, fname);
  return c;
}

int64_t ContractionPlan::tiles() const {
  int64_t t = 1;
  for (const TileLoop& l : tile_loops) t *= l.extent;
  return t;
}

std::string ContractionPlan::str() const {
  std::string loops;
  for (size_t i = 0; i < tile_loops.size(); ++i)
    loops += fmt::format("{}{}{}[{}]", i ? " > " : "", int(i) < core_loops ? "cores:" : "", tile_loops[i].name,
                         tile_loops[i].extent);
  if (core_group > 1) loops += fmt::format(", in groups of {}", core_group);
  return fmt::format("{}: {}x{}x{} {}{} x {}{} -> {}; tiles {} ({}), tm {} tn {}, k per L1 fill {}, per L0 fill {}, per "
                     "mmad {}{}{}{}",
                     func_name, c.m, c.n, c.k, dtype_name(c.in), c.a_transposed ? " (A transposed)" : "",
                     dtype_name(c.in), c.b_transposed ? " (B transposed)" : "", dtype_name(c.out), tiles(), loops, tm,
                     tn, tk_l1, tk_l0, tk_mmad, double_buffer ? ", double-buffered" : "",
                     l1_copies > 2 ? fmt::format(", {} copies in L1", l1_copies) : "", stagger ? ", staggered" : "");
}

namespace {

// One place to compute the bytes each buffer of a plan takes, for the checks and for codegen.
struct Sizes {
  int64_t l1, l0a, l0b, l0c, ub;
};

Sizes sizes_of(const ContractionPlan& p) {
  int64_t s = dtype_size(p.c.in), copies = p.double_buffer ? 2 : 1;
  int64_t m16 = round_up(p.tm, 16), n16 = round_up(p.tn, 16);
  // In L1 a matrix is NZ: rows padded to 16, columns to C0. A is (m, k) or, transposed, (k, m).
  auto nz = [&](int64_t rows, int64_t cols) { return round_up(rows, 16) * round_up(cols, p.c0) * s; };
  int64_t a1 = p.c.a_transposed ? nz(p.tk_l1, p.tm) : nz(p.tm, p.tk_l1);
  int64_t b1 = p.c.b_transposed ? nz(p.tn, p.tk_l1) : nz(p.tk_l1, p.tn);
  int64_t k0 = round_up(p.tk_l0, p.c0);
  return {(a1 + b1) * p.l1_copies, m16 * k0 * s * copies, k0 * n16 * s * copies, m16 * n16 * 4,
          m16 * p.strip * dtype_size(p.c.out) * copies};
}

}  // namespace

void check_one_tile_loop_each(const ContractionPlan& p, const std::string& fname, const std::string& m, const std::string& n) {
  for (auto [dim, var] : {std::pair{ContractionPlan::Dim::M, m}, std::pair{ContractionPlan::Dim::N, n}}) {
    std::vector<std::string> loops;
    for (const ContractionPlan::TileLoop& t : p.tile_loops)
      if (t.dim == dim) loops.push_back(t.name);
    if (loops.size() > 1)
      user_error("{}: {} has {} tile loops outside the cube ({}); the cube path tiles it with one: split {} once outside "
                 "the cube (cores() spreads that loop's tiles over the cores)", fname, var, loops.size(),
                 fmt::format("{}", fmt::join(loops, ", ")), var);
  }
}

void check_l1_copies_option(const std::string& kernel, int64_t copies, const ChipConfig& chip) {
  if (copies <= chip.event_ids) return;
  user_error("{}: l1_copies {} is more than the {} copies {} can keep apart ({} event ids per pipe pair, one per copy): "
             "give 1..{} (--l1-copies; Python l1_copies=)", kernel, copies, chip.event_ids, chip.name, chip.event_ids,
             chip.event_ids);
}

int cube_l1_copies(const std::string& fname, const Directive* multi, bool double_buffer, const ChipConfig& chip) {
  if (!multi) return double_buffer ? 2 : 1;
  if (multi->level != Level::L1)
    user_error("{}.{}: only L1 fills run ahead of their use; double_buffer() gives L0A, L0B and UB two copies", fname,
               multi->text);
  if (multi->factor < 1 || multi->factor > chip.event_ids)
    user_error("{}.{}: the copies must be 1..{} ({} has {} event ids per pipe pair, one per copy)", fname, multi->text,
               chip.event_ids, chip.name, chip.event_ids);
  return int(multi->factor);
}

ContractionPlan plan_contraction(const dsl::Func& f, const ChipConfig& chip) {
  const std::string& fname = f.name();
  ContractionPlan p;
  p.func_name = fname;
  p.c = recognise_contraction(f, chip);
  p.c0 = 32 / dtype_size(p.c.in);
  p.split = chip.split();
  p.bf16 = writes_bf16(chip);
  LoopNest nest = build_loop_nest(f);

  // The cube takes the innermost loop of each of m, n and k.
  const Directive* cube = nullptr;
  const Directive* multi = nullptr;
  for (const Directive& d : f.impl->schedule) {
    if (d.kind == Directive::Kind::Cube) cube = &d;
    if (d.kind == Directive::Kind::DoubleBuffer) p.double_buffer = true;
    if (d.kind == Directive::Kind::Stagger) p.stagger = true;
    if (d.kind == Directive::Kind::MultiBuffer) multi = &d;
    if (d.kind == Directive::Kind::StoreIn && d.level != Level::L0C)
      user_error("{}.{}: the cube accumulates in L0C; store_in({}) has no cube path", fname, d.text, dsl::level_name(d.level));
    if (d.kind == Directive::Kind::TileRows)  // not ignored: a directive that does nothing is a surprise
      user_error("{}.{}: tile_rows() sizes the vector path's row tiles; a contraction's tiles are cube(...)'s and "
                 "split(...)'s", fname, d.text);
  }
  p.l1_copies = cube_l1_copies(fname, multi, p.double_buffer, chip);
  if (!cube)
    user_error("{}: map its innermost loops onto the cube with {}.cube(mi, ni, ki), or give it the ready matmul schedule: "
               "{}.schedule() = kernels::default_schedule({}, chip) ({}.schedule = cubekit.default_schedule({}) in "
               "Python)", fname, fname, fname, fname, fname, fname);
  const size_t L = nest.loops.size();
  int mi = nest.find(cube->vars[0]), ni = nest.find(cube->vars[1]), ki = nest.find(cube->vars[2]);
  auto origin_is = [&](int at, const std::shared_ptr<VarImpl>& v) { return at >= 0 && nest.loops[size_t(at)].origin == v; };
  if (!origin_is(mi, p.c.mv) || !origin_is(ni, p.c.nv) || !origin_is(ki, p.c.kv))
    user_error("{}.{}: name the innermost loops of {}, {} and {} (the loops are {})", fname, cube->text, p.c.mv->name,
               p.c.nv->name, p.c.kv->name, nest.str());
  std::vector<int> inner = {mi, ni, ki};
  std::sort(inner.begin(), inner.end());
  if (inner != std::vector<int>{int(L) - 3, int(L) - 2, int(L) - 1})
    user_error("{}.{}: the cube's loops must be the three innermost (the loops are {}); reorder them inward", fname,
               cube->text, nest.str());
  p.tm = nest.loops[size_t(mi)].extent;
  p.tn = nest.loops[size_t(ni)].extent;
  p.tk_mmad = nest.loops[size_t(ki)].extent;
  auto fractal = [&](int64_t tile, int64_t whole, int64_t edge, const char* loop) {
    if (tile != whole && tile % edge)
      user_error("{}.{}: {} has {} iterations, not a multiple of {} (the cube's fractal edge): split by a multiple of {}",
                 fname, cube->text, loop, tile, edge, edge);
  };
  fractal(p.tm, p.c.m, 16, nest.loops[size_t(mi)].name().c_str());
  fractal(p.tn, p.c.n, 16, nest.loops[size_t(ni)].name().c_str());
  fractal(p.tk_mmad, p.c.k, p.c0, nest.loops[size_t(ki)].name().c_str());

  // Outside the cube: tile loops, then k loops.
  std::vector<int> k_loops;
  for (size_t i = 0; i + 3 < L; ++i) {
    const Loop& l = nest.loops[i];
    if (l.reduction) {
      k_loops.push_back(int(i));
      continue;
    }
    if (!k_loops.empty())
      user_error("{}: the tile loop {} is inside the reduction loop {}; every loop over {} must be inside the tile loops "
                 "(the loops are {})", fname, l.name(), nest.loops[size_t(k_loops.back())].name(), p.c.kv->name, nest.str());
    ContractionPlan::TileLoop t{ContractionPlan::Dim::M, 0, l.extent, l.name()};
    if (l.origin == p.c.nv) t.dim = ContractionPlan::Dim::N;
    else if (l.origin != p.c.mv) {
      t.dim = ContractionPlan::Dim::Batch;
      t.batch = int(std::find(p.c.batch_vars.begin(), p.c.batch_vars.end(), l.origin) - p.c.batch_vars.begin());
      if (l.factor) user_error("{}: the batch loop {} cannot be split", fname, l.name());
    }
    p.tile_loops.push_back(t);
  }
  check_one_tile_loop_each(p, fname, p.c.mv->name, p.c.nv->name);
  if (k_loops.size() > 2)
    user_error("{}: the reduction {} is split into {} loops outside the cube; the cube path takes at most two (L1 and L0 "
               "fills)", fname, p.c.kv->name, k_loops.size());
  p.core_loops = nest.cores;
  p.core_group = nest.core_group;
  if (p.core_loops > int(p.tile_loops.size())) {  // a loop on cores is one the cube computes
    const Directive* cores = nullptr;
    for (const Directive& d : f.impl->schedule)
      if (d.kind == Directive::Kind::Cores) cores = &d;
    std::string tiles;
    for (const auto& t : p.tile_loops) tiles += (tiles.empty() ? "" : ", ") + t.name;
    user_error("{}.{}: {} is inside the cube ({}), which computes it on one core; cores take the tile loops outside "
               "it{}", fname, cores->text, nest.loops[p.tile_loops.size()].name(), cube->text,
               tiles.empty() ? fmt::format(": split {} or {} to get some", p.c.mv->name, p.c.nv->name)
                             : fmt::format(" ({})", tiles));
  }

  // Where A and B are staged: L1, then L0A / L0B, at a tile or k loop.
  // A second stage of one input at one level kept the last silently, as cores() given twice would.
  auto stage_of = [&](const std::shared_ptr<dsl::InputImpl>& in, Level level) -> const Directive* {
    const Directive* found = nullptr;
    for (const Directive& d : f.impl->schedule) {
      if (d.kind != Directive::Kind::Stage || d.input != in || d.level != level) continue;
      if (found)
        user_error("{}.{}: the schedule already has {}; an input is staged in a buffer level once (keep one of the two)",
                   fname, d.text, found->text);
      found = &d;
    }
    return found;
  };
  for (const Directive& d : f.impl->schedule) {
    if (d.kind != Directive::Kind::Stage) continue;
    bool is_a = d.input == p.c.a, is_b = d.input == p.c.b;
    if (!is_a && !is_b) user_error("{}.{}: {} is not an operand of {}", fname, d.text, d.input->name, fname);
    Level want0 = is_a ? Level::L0A : Level::L0B;
    if (d.level != Level::L1 && d.level != want0)
      user_error("{}.{}: on the cube path {} goes GM -> L1 -> {}; there is no data path into {} for it", fname, d.text,
                 d.input->name, dsl::level_name(want0), dsl::level_name(d.level));
  }
  int l1_at[2], l0_at[2];
  int last_tile = int(p.tile_loops.size()) - 1;
  for (int side = 0; side < 2; ++side) {
    const auto& in = side ? p.c.b : p.c.a;
    Level lv0 = side ? Level::L0B : Level::L0A;
    const Directive* s1 = stage_of(in, Level::L1);
    const Directive* s0 = stage_of(in, lv0);
    if (!s0) user_error("{}: stage {} in {} for the cube: {}.stage({}, {}, <loop>)", fname, in->name, dsl::level_name(lv0), fname, in->name, dsl::level_name(lv0));
    if (!s1)
      user_error("{}: {} reaches {} only through L1 (GM -> L1 -> {}): add {}.stage({}, L1, <loop>)", fname, in->name,
                 dsl::level_name(lv0), dsl::level_name(lv0), fname, in->name);
    int a1 = nest.find(s1->vars[0]), a0 = nest.find(s0->vars[0]);
    auto check_at = [&](const Directive& d, int at) {
      bool ok = at >= 0 && at <= int(L) - 4 && (nest.loops[size_t(at)].reduction || at == last_tile);
      if (!ok && last_tile < 0 && k_loops.empty())
        user_error("{}.{}: every loop is on the cube (the loops are {}), so there is no loop to stage at; split m, n or "
                   "the reduction to get one outside the cube", fname, d.text, nest.str());
      if (!ok)
        user_error("{}.{}: stage at a reduction loop outside the cube or at the innermost tile loop{} (the loops are {})",
                   fname, d.text, last_tile >= 0 ? " (" + p.tile_loops[size_t(last_tile)].name + ")" : "", nest.str());
    };
    check_at(*s1, a1);
    check_at(*s0, a0);
    if (a0 < a1)
      user_error("{}.{}: the {} fill must happen at or inside the L1 fill's loop ({})", fname, s0->text,
                 dsl::level_name(lv0), s1->vars[0]->name);
    l1_at[side] = a1, l0_at[side] = a0;
  }
  if (l1_at[0] != l1_at[1] || l0_at[0] != l0_at[1])
    user_error("{}: stage {} and {} at the same loops (L1 at {} and {}, L0 at {} and {})", fname, p.c.a->name,
               p.c.b->name, nest.loops[size_t(l1_at[0])].name(), nest.loops[size_t(l1_at[1])].name(),
               nest.loops[size_t(l0_at[0])].name(), nest.loops[size_t(l0_at[1])].name());
  // The k extent one fill covers: what the loops inside its stage loop span.
  auto k_span = [&](int at) { return nest.loops[size_t(at)].reduction ? nest.loops[size_t(at)].stride : p.c.k; };
  p.tk_l1 = std::min(k_span(l1_at[0]), p.c.k);
  p.tk_l0 = std::min(k_span(l0_at[0]), p.c.k);
  // A fill that is not per k step covers every k loop inside it; the codegen walks them.
  if (nest.loops[size_t(l0_at[0])].reduction && l0_at[0] != k_loops.back())
    user_error("{}: stage the L0 operands at the innermost reduction loop outside the cube ({})", fname,
               nest.loops[size_t(k_loops.back())].name());
  if (!nest.loops[size_t(l0_at[0])].reduction && !k_loops.empty())
    user_error("{}: with reduction loops outside the cube, stage the L0 operands at the innermost of them ({})", fname,
               nest.loops[size_t(k_loops.back())].name());

  // The epilogue moves L0C out through UB in strips of whole fractal columns: as wide as half of
  // UB allows (the wider, the sooner L0C is free for the next tile).
  int64_t per_column = round_up(p.tm, 16) * dtype_size(p.c.out) * (p.double_buffer ? 2 : 1);
  p.strip = std::clamp<int64_t>(chip.buffer_size(Space::UB) / per_column / 16 * 16, 16, round_up(p.tn, 16));

  // Every buffer against the chip.
  Sizes s = sizes_of(p);
  auto fits = [&](Space space, int64_t need, const std::string& what, const std::string& fix) {
    int64_t have = chip.buffer_size(space), copies = space == Space::L1 ? p.l1_copies : (p.double_buffer ? 2 : 1);
    if (space == Space::L0C) copies = 1;
    std::string db = copies > 1 ? fmt::format(" ({} copies)", copies) : "";
    if (need > have)
      user_error("{}: {} needs {} bytes of {}{} but {} has {}; {}", fname, what, need, space_name(space), db, chip.name,
                 have, fix);
  };
  fits(Space::L1, s.l1, fmt::format("staging {} and {} (k {} per fill)", p.c.a->name, p.c.b->name, p.tk_l1),
       "fill L1 more often (stage at an inner reduction loop), use smaller tiles, or fewer copies");
  const std::string undouble = p.double_buffer ? ", or drop double_buffer()" : "";  // only where the schedule has it
  fits(Space::L0A, s.l0a, fmt::format("{} in L0A ({}x{} per fill)", p.c.a->name, p.tm, p.tk_l0),
       "split the reduction finer for the L0 fill or use a smaller m tile" + undouble);
  fits(Space::L0B, s.l0b, fmt::format("{} in L0B ({}x{} per fill)", p.c.b->name, p.tk_l0, p.tn),
       "split the reduction finer for the L0 fill or use a smaller n tile" + undouble);
  fits(Space::L0C, s.l0c, fmt::format("the {}x{} accumulator tile", p.tm, p.tn), "use a smaller m or n tile");
  // On a split chip the tile leaves through the FixPipe; an epilogue's UB is the vector cores',
  // sized with its strips (codegen/fit.cpp).
  if (!p.split) fits(Space::UB, s.ub, fmt::format("the output strips of {}x{}", p.tm, p.strip), "use a smaller m tile");
  return p;
}

}  // namespace cubekit::sched
