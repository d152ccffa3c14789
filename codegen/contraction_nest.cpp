#include "codegen/contraction_nest.h"

#include "emulator/error.h"

#include <fmt/format.h>

namespace cubekit::codegen {

namespace {

using sched::ContractionPlan;
using sched::round_up;

class Builder {
 public:
  Builder(const ContractionPlan& p, const ChipConfig& chip) : p_(p), chip_(chip) {}

  Kernel build() {
    const sched::Contraction& c = p_.c;
    k_.name = p_.func_name;
    k_.new_var("block_idx");
    k_.new_var("block_num");
    std::vector<int64_t> a_shape = c.a->shape, b_shape = c.b->shape, c_shape = c.batch;
    c_shape.push_back(c.m);
    c_shape.push_back(c.n);
    k_.tensors = {{c.a->name, c.in, a_shape, TensorRole::In},
                  {c.b->name, c.in, b_shape, TensorRole::In},
                  {p_.func_name, c.out, c_shape, TensorRole::Out}};
    int copies = p_.double_buffer ? 2 : 1;
    int64_t s = dtype_size(c.in), m16 = round_up(p_.tm, 16), n16 = round_up(p_.tn, 16);
    auto nz = [&](int64_t rows, int64_t cols) { return round_up(rows, 16) * round_up(cols, p_.c0) * s; };
    l1a_ = k_.new_buffer("L1A", Space::L1, c.a_transposed ? nz(p_.tk_l1, p_.tm) : nz(p_.tm, p_.tk_l1), copies);
    l1b_ = k_.new_buffer("L1B", Space::L1, c.b_transposed ? nz(p_.tn, p_.tk_l1) : nz(p_.tk_l1, p_.tn), copies);
    int64_t k0 = round_up(p_.tk_l0, p_.c0);
    l0a_ = k_.new_buffer("L0A", Space::L0A, m16 * k0 * s, copies);
    l0b_ = k_.new_buffer("L0B", Space::L0B, k0 * n16 * s, copies);
    l0c_ = k_.new_buffer("L0C", Space::L0C, m16 * n16 * 4, 1);
    ub_ = k_.new_buffer("UB", Space::UB, m16 * 16 * dtype_size(c.out), copies);
    k_.body = tiles();
    return std::move(k_);
  }

 private:
  // ---- tiles: the core loops fused and spread over cores, the rest serial ----
  std::vector<Node> tiles() {
    const auto& loops = p_.tile_loops;
    int64_t fused = 1;
    for (int i = 0; i < p_.core_loops; ++i) fused *= loops[size_t(i)].extent;
    k_.block_dim = int(std::min<int64_t>(fused, chip_.cores));
    index_.assign(loops.size(), -1);
    std::vector<Node> decompose;
    if (p_.core_loops > 0) {
      int u = k_.new_var("tile");
      int rest = u;
      for (int i = p_.core_loops - 1; i >= 0; --i) {
        index_[size_t(i)] = k_.new_var(loops[size_t(i)].name);
        decompose.push_back(let(index_[size_t(i)], Affine::var(rest), "%", loops[size_t(i)].extent));
        if (i > 0) {
          int next = k_.new_var(loops[size_t(i)].name + "_rest");
          decompose.push_back(let(next, Affine::var(rest), "/", loops[size_t(i)].extent));
          rest = next;
        }
      }
      std::vector<Node> body = std::move(decompose);
      for (Node& n : serial(size_t(p_.core_loops))) body.push_back(std::move(n));
      return {loop(u, Affine::var(kBlockIdx), Affine(fused), Affine::var(kBlockNum), std::move(body))};
    }
    return serial(0);
  }

  std::vector<Node> serial(size_t i) {
    if (i == p_.tile_loops.size()) return tile_body();
    index_[i] = k_.new_var(p_.tile_loops[i].name);
    return {loop(index_[i], Affine(0), Affine(p_.tile_loops[i].extent), Affine(1), serial(i + 1))};
  }

  // ---- one output tile, specialised for partial m / n tiles ----
  std::vector<Node> tile_body() {
    const sched::Contraction& c = p_.c;
    Affine mo, no;
    std::vector<std::pair<int, int64_t>> batch_index;  // (variable, batch dimension)
    int64_t mo_count = 1, no_count = 1;
    for (size_t i = 0; i < p_.tile_loops.size(); ++i) {
      const auto& t = p_.tile_loops[i];
      if (t.dim == ContractionPlan::Dim::M) mo = Affine::var(index_[i]), mo_count = t.extent;
      else if (t.dim == ContractionPlan::Dim::N) no = Affine::var(index_[i]), no_count = t.extent;
      else batch_index.push_back({index_[i], t.batch});
    }
    // Batch offsets in elements of A, B and C.
    Affine ba, bb, bc;
    for (auto [var, d] : batch_index) {
      int64_t sa = 1, sb = 1, sc = c.m * c.n;
      for (size_t j = size_t(d) + 1; j < c.a->shape.size(); ++j) sa *= c.a->shape[j];
      for (size_t j = size_t(d) + 1; j < c.b->shape.size(); ++j) sb *= c.b->shape[j];
      for (size_t j = size_t(d) + 1; j < c.batch.size(); ++j) sc *= c.batch[j];
      ba = ba + Affine::var(var, sa), bb = bb + Affine::var(var, sb), bc = bc + Affine::var(var, sc);
    }
    Tile t{mo * p_.tm, no * p_.tn, ba, bb, bc, 0, 0};
    int64_t m_tail = c.m - (mo_count - 1) * p_.tm, n_tail = c.n - (no_count - 1) * p_.tn;
    auto with = [&](int64_t mt, int64_t nt) {
      Tile v = t;
      v.mt = mt, v.nt = nt;
      return one_tile(v);
    };
    auto by_n = [&](int64_t mt) {
      if (n_tail == p_.tn) return with(mt, p_.tn);
      return std::vector<Node>{when(no, no_count - 1, with(mt, n_tail), with(mt, p_.tn))};
    };
    if (m_tail == p_.tm) return by_n(p_.tm);
    return {when(mo, mo_count - 1, by_n(m_tail), by_n(p_.tm))};
  }

  struct Tile {
    Affine m0, n0, ba, bb, bc;  // origin (elements) and batch offsets (elements)
    int64_t mt, nt;
  };

  std::vector<Node> one_tile(const Tile& t) {
    std::vector<Node> body = chunks(p_.tk_l1, p_.c.k, Affine(0), true, [&](const Affine& k1, int64_t kt1, bool first) {
      return l1_fill(t, k1, kt1, first);
    });
    for (Node& n : epilogue(t)) body.push_back(std::move(n));
    return {scope({l0c_}, std::move(body))};
  }

  // Walks `extent` in chunks of `step` (the last one shorter when it does not divide): a loop over
  // the full chunks and the tail peeled; `f(offset, size, first)` makes one chunk's nodes. With
  // `peel_first`, the first chunk is peeled too, so that it can differ (the first mmad of a tile
  // starts the accumulation instead of adding to it).
  template <class F>
  std::vector<Node> chunks(int64_t step, int64_t extent, const Affine& origin, bool peel_first, F f) {
    std::vector<Node> out;
    auto append = [&](std::vector<Node> nodes) {
      for (Node& n : nodes) out.push_back(std::move(n));
    };
    int64_t full = extent / step, tail = extent % step, first = 0;
    if (peel_first && full > 0) append(f(origin, step, true)), first = 1;
    if (full - first == 1) append(f(origin + Affine(first * step), step, first == 0 && peel_first));
    else if (full - first > 1) {
      int v = k_.new_var(fmt::format("k{}", step));
      out.push_back(loop(v, Affine(first), Affine(full), Affine(1), f(origin + Affine::var(v, step), step, false)));
    }
    if (tail) append(f(origin + Affine(full * step), tail, full == 0 && peel_first));
    return out;
  }

  // GM -> L1 for one k chunk [k1, k1 + kt1), then its L0 fills.
  std::vector<Node> l1_fill(const Tile& t, const Affine& k1, int64_t kt1, bool first) {
    const sched::Contraction& c = p_.c;
    int64_t s = dtype_size(c.in);
    std::vector<Node> body;
    // A: logical (m, k); stored (m, k) with row stride K, or transposed (k, m) with row stride M.
    Node a{Node::Kind::Move};
    a.src = {{0, -1, (t.ba + (c.a_transposed ? k1 * c.m + t.m0 : t.m0 * c.k + k1)) * s}, Layout::ND, c.in,
             c.a_transposed ? kt1 : t.mt, c.a_transposed ? t.mt : kt1, c.a_transposed ? c.m : c.k};
    a.dst = {{-1, l1a_, 0}, Layout::NZ, c.in, a.src.rows, a.src.cols, round_up(a.src.rows, 16)};
    a.src.transposed = a.dst.transposed = c.a_transposed;
    Node b{Node::Kind::Move};
    b.src = {{1, -1, (t.bb + (c.b_transposed ? t.n0 * c.k + k1 : k1 * c.n + t.n0)) * s}, Layout::ND, c.in,
             c.b_transposed ? t.nt : kt1, c.b_transposed ? kt1 : t.nt, c.b_transposed ? c.k : c.n};
    b.dst = {{-1, l1b_, 0}, Layout::NZ, c.in, b.src.rows, b.src.cols, round_up(b.src.rows, 16)};
    b.src.transposed = b.dst.transposed = c.b_transposed;
    body.push_back(a);
    body.push_back(b);
    for (Node& n : chunks(p_.tk_l0, kt1, Affine(0), first, [&](const Affine& k0, int64_t kt0, bool first0) {
           return l0_fill(t, a.dst, b.dst, k0, kt0, first0);
         }))
      body.push_back(std::move(n));
    return {scope({l1a_, l1b_}, std::move(body))};
  }

  // L1 -> L0A / L0B for [k0, k0 + kt0) of the chunk, and the mmad.
  std::vector<Node> l0_fill(const Tile& t, const View& l1a, const View& l1b, const Affine& k0, int64_t kt0, bool init) {
    const sched::Contraction& c = p_.c;
    Node a{Node::Kind::Move};
    a.src = l1a;
    a.src.rows = t.mt, a.src.cols = kt0;  // the logical window: all rows of the tile, kt0 of k
    a.src.row0 = 0, a.src.col0 = k0;
    a.dst = {{-1, l0a_, 0}, Layout::ZZ, c.in, t.mt, kt0, 0};
    Node b{Node::Kind::Move};
    b.src = l1b;
    b.src.rows = kt0, b.src.cols = t.nt;
    b.src.row0 = k0, b.src.col0 = 0;
    b.dst = {{-1, l0b_, 0}, Layout::ZN, c.in, kt0, t.nt, 0};
    Node mmad{Node::Kind::Mmad};  // the tile's first mmad starts the sum (init), later ones add to it
    mmad.c = {-1, l0c_, 0}, mmad.lhs = {-1, l0a_, 0}, mmad.rhs = {-1, l0b_, 0};
    mmad.m = t.mt, mmad.n = t.nt, mmad.k = kt0, mmad.init = init, mmad.in_type = c.in;
    return {scope({l0a_, l0b_}, {a, b, mmad})};
  }

  // L0C -> UB -> GM, 16 columns at a time.
  std::vector<Node> epilogue(const Tile& t) {
    const sched::Contraction& c = p_.c;
    auto strip = [&](const Affine& col, int64_t cols) {
      Node drain{Node::Kind::Move};
      drain.src = {{-1, l0c_, 0}, Layout::NZ16, c.acc, t.mt, cols, round_up(t.mt, 16)};
      drain.src.col0 = col;
      drain.dst = {{-1, ub_, 0}, Layout::ND, c.out, round_up(t.mt, 16), 16, 16};
      Node store{Node::Kind::Move};
      store.src = {{-1, ub_, 0}, Layout::ND, c.out, t.mt, cols, 16};
      store.dst = {{2, -1, (t.bc + t.m0 * c.n + t.n0 + col) * dtype_size(c.out)}, Layout::ND, c.out, t.mt, cols, c.n};
      return std::vector<Node>{scope({ub_}, {drain, store})};
    };
    std::vector<Node> out;
    int64_t full = t.nt / 16, tail = t.nt % 16;
    if (full == 1) out = strip(Affine(0), 16);
    else if (full > 1) {
      int v = k_.new_var("strip");
      out.push_back(loop(v, Affine(0), Affine(full), Affine(1), strip(Affine::var(v, 16), 16)));
    }
    if (tail)
      for (Node& n : strip(Affine(full * 16), tail)) out.push_back(std::move(n));
    return out;
  }

  const ContractionPlan& p_;
  const ChipConfig& chip_;
  Kernel k_;
  std::vector<int> index_;  // the variable of each tile loop
  int l1a_ = -1, l1b_ = -1, l0a_ = -1, l0b_ = -1, l0c_ = -1, ub_ = -1;
};

}  // namespace

Kernel build_contraction_nest(const sched::ContractionPlan& plan, const ChipConfig& chip) {
  return Builder(plan, chip).build();
}

}  // namespace cubekit::codegen

