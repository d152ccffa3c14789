// The staged lowering of a contraction's graph (lower_stages.h): matmul, conv, a fused epilogue,
// the split chips' hand-off. Its buffers are its stages', sized by their forms and the fitted
// strip; the tiles, their k chunks and the fills into L1 and L0 are here, the ways out of L0C
// (the coupled core's strips through UB with a fused epilogue, the split chips' FixPipe and
// workspace hand-off) in lower_contraction_out.cpp. Not for use outside codegen.
#pragma once

#include "codegen/conv_edges.h"
#include "codegen/core_tiles.h"
#include "codegen/tile_loop.h"
#include "codegen/storage.h"
#include "codegen/subsample.h"
#include "codegen/vector_epilogue.h"
#include "emulator/error.h"
#include "schedules/conv.h"
#include "schedules/stages.h"

#include <fmt/format.h>

#include <memory>
#include <optional>

namespace cubekit::codegen::detail {

using sched::ContractionPlan;
using sched::round_up;

// One output tile: where it is and how big (the edge tiles of a shape that does not divide are
// smaller).
struct Tile {
  Affine m0, n0;      // origin in C (elements)
  Affine ba, bb, bc;  // batch offsets of A, B and C (elements)
  Affine bg;          // a grouped conv: the group's first channel in a per-channel epilogue input
  Affine indices;     // the tile loop indices weighted for stagger (see stagger_weights)
  int64_t mt = 0, nt = 0;
  const RowClass* rows = nullptr;  // conv: the row tile's input rows and padding
  Affine in_row0;                  //       and its first input row
};

class ContractionStages {
 public:
  ContractionStages(const sched::StageGraph& g, const ChipConfig& chip)
      : g_(g), p_(*g.contraction), chip_(chip), tk_l1_(g.step(sched::At::Chunk)), tk_l0_(g.step(sched::At::Step)),
        full_(p_.c.k / tk_l1_), tail_(p_.c.k % tk_l1_), chunks_(full_ + (tail_ ? 1 : 0)),
        ahead_(g.stages[size_t(nth_at(sched::Place::L1, 0))].copies - 1), rotate_(g_.tiles.stagger && full_ > 1),
        strip_(std::max(g.step(sched::At::Strip), g.step(sched::At::RowStrip))) {}

  Kernel lower() {
    const sched::Contraction& c = p_.c;
    k_.name = p_.func_name;
    k_.new_var("block_idx");
    k_.new_var("block_num");
    std::vector<int64_t> a_shape = c.a->shape, b_shape = c.b->shape, c_shape = c.batch;
    c_shape.push_back(c.m);
    c_shape.push_back(c.n);
    if (c.conv) conv_tensors(p_, a_shape, b_shape, c_shape, k_.layouts);
    k_.tensors = {{c.a->name, c.in, a_shape, TensorRole::In}, {c.b->name, c.in, b_shape, TensorRole::In}};
    for (const auto& e : p_.epilogue_inputs)
      k_.tensors.push_back({e.input->name, e.input->dtype, c.conv ? conv_input_tensor(p_, e, k_.layouts) : e.input->shape, TensorRole::In});
    out_tensor_ = int(k_.tensors.size());
    k_.tensors.push_back({p_.func_name, c.out, c_shape, TensorRole::Out});
    if (p_.subsampled) {  // the second output (Func::store_with)
      sub_tensor_ = int(k_.tensors.size());
      k_.tensors.push_back({p_.subsampled->func->name, c.out, subsampled_tensor(p_, k_.layouts), TensorRole::Out});
    }
    // The buffers of the stages, each sized by its stage (its form and tile).
    l1a_ = stage_buffer("L1A", Space::L1, nth_at(sched::Place::L1, 0));
    l1b_ = stage_buffer("L1B", Space::L1, nth_at(sched::Place::L1, 1));
    l0a_ = stage_buffer("L0A", Space::L0A, nth_at(sched::Place::L0A, 0));
    l0b_ = stage_buffer("L0B", Space::L0B, nth_at(sched::Place::L0B, 0));
    l0c_ = stage_buffer("L0C", Space::L0C, nth_at(sched::Place::L0C, 0));
    if (path_into(nth_at(sched::Place::L0A, 0)) == sched::Path::Load3d) {  // img2col: the conv edges
      conv_.emplace(ConvEdges{p_, 0, 1, l1a_, l1b_, l0a_, l0b_, tk_l0_});
      int64_t row_tiles = 1;
      for (const auto& l : g_.tiles.loops)
        if (l.dim == ContractionPlan::Dim::M) row_tiles = l.extent;
      classes_ = c.g.images > 1 ? stacked_classes(c.g) : row_classes(c.g, p_.tm / c.g.ow, row_tiles);
    }
    out_ = out_path();
    if (out_ == Out::Drain) {  // the coupled core: L0C -> UB (epilogue) -> GM
      const int drained = consumer(l0c_stage(), sched::Path::Drain);
      if (p_.subsampled) gather_ = stage_buffer("G", Space::UB, func_stage(p_.subsampled->func.get()));
      if (!computes(drained)) {
        ub_ = stage_buffer("UB", Space::UB, drained);
      } else {  // the strip drained as it is (ACC), the result (UB) computed from it and the inputs
        ub_ = stage_buffer("UB", Space::UB, consumer(drained, sched::Path::Compute));
        acc_ = stage_buffer("ACC", Space::UB, drained);
        for (const auto& e : p_.epilogue_inputs) {
          // A full-tile input has one copy, zeroed at the start: the rows past a tile's positions
          // are read (the strip is whole fractals) but never copied.
          epi_.push_back(stage_buffer("E_" + e.input->name, Space::UB, input_stage(e.input.get())));
          if (e.tile) zeroed_.push_back(epi_.back());
        }
        pool_ = std::make_unique<ScratchPool>(k_);
      }
    }
    if (out_ == Out::Workspace) {  // split: L0C -> FixPipe -> GM workspace -> the vector cores -> GM
      ws_tensor_ = int(k_.tensors.size());
      ws_pitch_ = VectorEpilogue::padded(p_.tn);
      k_.tensors.push_back({p_.func_name + "_workspace", DType::f32, {1}, TensorRole::Workspace});
      k_.subblock = k_.new_var("subblock_idx");
      vepi_ = std::make_unique<VectorEpilogue>(k_, g_, ws_tensor_, ws_pitch_, out_tensor_, strip_, sub_tensor_);
    }
    k_.body = tiles();
    if (pool_) k_.body = zero_scratch(std::move(k_.body));
    if (vepi_) {
      k_.tensors[size_t(ws_tensor_)].shape = {k_.block_dim, VectorEpilogue::kSlots, p_.tm, ws_pitch_};
      k_.vector_body = vector_tiles();
    }
    return std::move(k_);
  }

 private:
  // ---- the graph's stages ----
  int stage_buffer(const std::string& name, Space space, int stage) {
    const sched::GraphStage& st = g_.stages[size_t(stage)];
    return k_.new_buffer(name, space, sched::stage_bytes(st), st.copies);
  }
  int nth_at(sched::Place place, int nth) const {
    for (size_t i = 0; i < g_.stages.size(); ++i)
      if (g_.stages[i].place == place && nth-- == 0) return int(i);
    CUBEKIT_ASSERT(false, "{}: the graph has too few stages in {}", p_.func_name, sched::place_name(place));
    return -1;
  }
  int l0c_stage() const { return nth_at(sched::Place::L0C, 0); }
  // The stage `producer` feeds by `path`.
  int consumer(int producer, sched::Path path) const {
    for (const sched::Edge& e : g_.edges)
      if (e.producer == producer && e.path == path) return e.consumer;
    CUBEKIT_ASSERT(false, "{}: stage {} feeds nothing by {}", p_.func_name, producer, sched::path_name(path));
    return -1;
  }
  // The path of the edge into `stage` (its first).
  sched::Path path_into(int stage) const {
    for (const sched::Edge& e : g_.edges)
      if (e.consumer == stage) return e.path;
    CUBEKIT_ASSERT(false, "{}: nothing feeds stage {}", p_.func_name, stage);
    return sched::Path::Copy;
  }
  // Whether a vector stage computes from `stage` (a fused epilogue).
  bool computes(int stage) const {
    for (const sched::Edge& e : g_.edges)
      if (e.producer == stage && e.path == sched::Path::Compute) return true;
    return false;
  }
  // The way out of L0C: drained into UB (the coupled core), or by the FixPipe into the output or
  // into a GM workspace the vector cores read (a split chip).
  enum class Out : uint8_t { Drain, FixPipe, Workspace };
  Out out_path() const {
    for (const sched::Edge& e : g_.edges) {
      if (e.producer != l0c_stage()) continue;
      if (e.path == sched::Path::Drain) return Out::Drain;
      if (e.path == sched::Path::FixPipe)
        return g_.stages[size_t(e.consumer)].place == sched::Place::Workspace ? Out::Workspace : Out::FixPipe;
    }
    CUBEKIT_ASSERT(false, "{}: nothing takes L0C's result out", p_.func_name);
    return Out::Drain;
  }
  // The UB stage that computes `f`.
  int func_stage(const dsl::FuncImpl* f) const {
    for (size_t i = 0; i < g_.stages.size(); ++i)
      if (g_.stages[i].place == sched::Place::UB && g_.stages[i].func.get() == f) return int(i);
    CUBEKIT_ASSERT(false, "{}: no UB stage computes {}", p_.func_name, f->name);
    return -1;
  }
  // The UB stage of an epilogue input.
  int input_stage(const dsl::InputImpl* in) const {
    for (size_t i = 0; i < g_.stages.size(); ++i)
      if (g_.stages[i].place == sched::Place::UB && g_.stages[i].input.get() == in) return int(i);
    CUBEKIT_ASSERT(false, "{}: no UB stage holds {}", p_.func_name, in->name);
    return -1;
  }

  // ---- the tiles of one core, in one loop ----
  //   rounds = (fused - 1 - block_idx) / block_dim          (with tile loops on cores)
  //   fill chunks 0 .. ahead - 1 of this core                 (fills ahead of use)
  //   for w = 0; w < (rounds + 1) * serial; w += 1
  //     <decode w into the tile loop indices>
  //     <the tile, specialised for edge tiles>
  // Core c takes the fused core iterations c, c + block_dim, ...; inside each, every iteration of
  // the serial tile loops. One loop makes "the next tile" a matter of decoding w + 1.
  std::vector<Node> tiles() {
    for (const auto& l : g_.tiles.loops) space_.loops.push_back({l.name, l.extent});
    space_.on_cores = g_.tiles.on_cores, space_.group = g_.tiles.group;
    fused_ = space_.fused(), serial_ = space_.serial();
    const int64_t cores = g_.tiles.core_limit ? g_.tiles.core_limit : chip_.cores;
    k_.block_dim = g_.tiles.on_cores ? int(std::min<int64_t>(fused_, cores)) : 1;
    stagger_weights();
    tiles_ = core_tiles(k_, g_.tiles.on_cores > 0, fused_, serial_);
    fills_ = FillAhead{&tiles_, chunks_, ahead_, [this](const Affine& g) { return fill_chunk(g); }};
    std::vector<Node> out = std::move(tiles_.setup);
    out += fills_.prologue();
    out.push_back(tiles_.loop(decoded(Affine::var(tiles_.w), "", [&](const Tile& t) { return one_tile(t); })));
    for (int i = 0; vepi_ && i < VectorEpilogue::kSlots; ++i)  // the vector cores are done with every slot
      out.push_back(wait_cross(Pipe::FIX, VectorEpilogue::kFree));
    return out;
  }

  // The vector cores' program of a mixed kernel: the same tiles, in the same order, each one's
  // epilogue once the cube core's FixPipe has put it in the workspace (vector_epilogue.h).
  std::vector<Node> vector_tiles() {
    std::vector<Node> body;
    for (int i = 0; i < VectorEpilogue::kSlots; ++i)  // every slot starts free
      body.push_back(set_cross(Pipe::MTE2, 2, VectorEpilogue::kFree));
    CoreTiles v = core_tiles(k_, g_.tiles.on_cores > 0, fused_, serial_, "_v");
    body += std::move(v.setup);
    const int w = v.w;
    body.push_back(v.loop(decoded(Affine::var(w), "_v", [&](const Tile& t) {
      int slot = k_.new_var("slot_v");
      std::vector<Node> out = {let(slot, Affine::var(w), LetOp::Rem, VectorEpilogue::kSlots)};
      return out += vepi_->tile({t.m0, t.n0, t.bc, t.mt, t.nt, slot_offset(slot), t.bg, t.rows ? t.rows->images : 1});
    })));
    std::vector<Node> out = vepi_->zeroed();
    return out += std::move(body);
  }

  // The byte offset of this group's workspace slot `slot` (a variable).
  Affine slot_offset(int slot) const {
    int64_t bytes = p_.tm * ws_pitch_ * 4;
    return Affine::var(kBlockIdx, VectorEpilogue::kSlots * bytes) + Affine::var(slot, bytes);
  }

  // Stagger starts tile (.., x, y)'s chunks at (.. + wx x + wy y) mod full, x and y the last two
  // core loops. The cores running together cover about X' x Y' tiles (X' = G with a group G);
  // those sharing an A panel (same x) differ in y: wy = full / Y' spreads their starts evenly over
  // the chunks, so each of them fetches (misses) about 1/Y' of the panel and reads the rest after
  // another fetched it. Likewise wx = full / X' for those sharing y.
  void stagger_weights() {
    weight_.assign(g_.tiles.loops.size(), 1);
    if (g_.tiles.on_cores < 2) return;
    size_t xi = size_t(g_.tiles.on_cores - 2), yi = xi + 1;
    int64_t Y = g_.tiles.loops[yi].extent, cores = k_.block_dim;
    int64_t y_wave = g_.tiles.group > 1 ? std::min(Y, (cores + g_.tiles.group - 1) / g_.tiles.group) : std::min(Y, cores);
    int64_t x_wave = g_.tiles.group > 1 ? g_.tiles.group : (cores + Y - 1) / Y;
    weight_[xi] = std::max<int64_t>(1, full_ / std::max<int64_t>(1, x_wave));
    weight_[yi] = std::max<int64_t>(1, full_ / std::max<int64_t>(1, y_wave));
  }

  // Decodes tile number `w` of this core into the tile loop indices (variables named with
  // `suffix`, core_tiles.h), then makes `f(tile)` for each edge variant of it.
  template <class F>
  std::vector<Node> decoded(const Affine& w, const std::string& suffix, F f) {
    std::vector<int> index;
    std::vector<Node> out = decode_tiles(k_, space_, w, suffix, index);
    out += variants(index, f);
    return out;
  }

  // `f(tile)` for the tile at these loop indices, specialised for a partial last m or n tile.
  template <class F>
  std::vector<Node> variants(const std::vector<int>& index, F f) {
    const sched::Contraction& c = p_.c;
    Affine mo, no, indices, ba, bb, bc, bg, image_tile;
    int64_t mo_count = 1, no_count = 1, image_tiles = 1;
    for (size_t i = 0; i < g_.tiles.loops.size(); ++i) {
      const auto& l = g_.tiles.loops[i];
      Affine v = Affine::var(index[i]);
      indices = indices + v * weight_[i];
      // A loop of one tile is at 0: its origin has no term whose step need divide anything (a
      // tile of every output row, split past them, and a second output at a stride not dividing it).
      if (l.dim == ContractionPlan::Dim::M) mo = l.extent == 1 ? Affine(0) : v, mo_count = l.extent;
      else if (l.dim == ContractionPlan::Dim::N) no = l.extent == 1 ? Affine(0) : v, no_count = l.extent;
      else if (c.conv) {  // images (batch 0) and groups (batch 1): A is NC1HWC0, B FRACTAL_Z per group
        const sched::ConvGeometry& g = c.g;
        // Batch 0 steps over g.images images of all groups, batch 1 over one group.
        int64_t plane = g.c1() * g.h * g.w * g.c0, step = l.batch == 0 ? g.groups * g.images : 1;
        ba = ba + v * (plane * step), bc = bc + v * (c.m * c.n * step);
        if (l.batch == 0) image_tile = v, image_tiles = l.extent;
        if (l.batch == 1) bb = bb + v * (c.k * c.n), bg = bg + v * c.n;
      } else {  // batch offsets in elements of A, B and C
        int64_t sa = 1, sb = 1, sc = c.m * c.n;
        for (size_t j = size_t(l.batch) + 1; j < c.a->shape.size(); ++j) sa *= c.a->shape[j];
        for (size_t j = size_t(l.batch) + 1; j < c.b->shape.size(); ++j) sb *= c.b->shape[j];
        for (size_t j = size_t(l.batch) + 1; j < c.batch.size(); ++j) sc *= c.batch[j];
        ba = ba + v * sa, bb = bb + v * sb, bc = bc + v * sc;
      }
    }
    Tile t{mo * p_.tm, no * p_.tn, ba, bb, bc, bg, indices, 0, 0};
    int64_t m_tail = c.m - (mo_count - 1) * p_.tm, n_tail = c.n - (no_count - 1) * p_.tn;
    auto with = [&](int64_t mt, int64_t nt) {
      Tile v = t;
      v.mt = mt, v.nt = nt;
      return f(v);
    };
    auto by_n = [&](int64_t mt) { return with_tail(no, no_count, p_.tn, n_tail, [&](int64_t nt) { return with(mt, nt); }); };
    if (c.conv && c.g.images > 1) {  // whole images: the last tile may have fewer
      t.in_row0 = Affine(0);
      t.rows = &classes_[0];
      std::vector<Node> full = by_n(classes_[0].positions);
      if (classes_.size() == 1) return full;
      t.rows = &classes_[1];
      return {when(image_tile, image_tiles - 1, by_n(classes_[1].positions), std::move(full))};
    }
    if (c.conv) return conv_rows(mo, t, by_n);
    return with_tail(mo, mo_count, p_.tm, m_tail, by_n);
  }

  // The variants of a conv tile: one per class of row tiles sharing their input rows and padding.
  //   if mo < last of class 0 + 1 { class 0 } else if mo < ... { class 1 } else { the last class }
  template <class F>
  std::vector<Node> conv_rows(const Affine& mo, Tile& t, F by_n) {
    std::vector<Node> out;
    for (size_t i = classes_.size(); i-- > 0;) {
      const RowClass& r = classes_[i];
      t.rows = &r;
      t.in_row0 = mo * r.row_step + Affine(r.in_row0);
      std::vector<Node> body = by_n(r.positions);
      out = i + 1 == classes_.size() ? std::move(body) : std::vector<Node>{when_less(mo, r.last + 1, std::move(body), std::move(out))};
    }
    return out;
  }

  // ---- one tile: its k chunks through L1, then the epilogue ----
  //   k_start = indices % full                      (stagger; else 0)
  //   fill chunk g + ahead                          (g: this core's chunk number, w * chunks + i)
  //   use chunk k_start (its first mmad starts the sum)
  //   for j = 1; j < full; j += 1
  //     kc = (j + k_start) % full
  //     fill chunk g + ahead;  use chunk kc
  //   fill chunk g + ahead;  use the tail chunk (k % tk_l1)
  //   epilogue
  // With `ahead` = L1 copies - 1 > 0 the fills run ahead of the uses through this core's chunks,
  // across tiles, so that the cube does not wait for GM when a fill takes up to `ahead` steps.
  std::vector<Node> one_tile(const Tile& t) {
    std::vector<Node> body;
    int start = -1;
    if (rotate_) {
      start = k_.new_var("k_start");
      body.push_back(let(start, t.indices, LetOp::Rem, full_));
    }
    auto step = [&](const Affine& i, const Affine& k1, int64_t kt1, bool first) {
      std::vector<Node> out = ahead_ ? fills_.before(i) : fill(t, k1, kt1);
      return out += use(t, k1, kt1, first);
    };
    if (full_) body += step(Affine(0), rotate_ ? Affine::var(start, tk_l1_) : Affine(0), tk_l1_, true);
    if (full_ >= 2) {
      int j = k_.new_var("j");
      std::vector<Node> each;
      Affine k = chunk_k(Affine::var(j), start, each);
      each += step(Affine::var(j), k, tk_l1_, false);
      body.push_back(loop(j, Affine(1), Affine(full_), Affine(1), std::move(each)));
    }
    if (tail_) body += step(Affine(full_), Affine(full_ * tk_l1_), tail_, full_ == 0);
    body += out_ == Out::Drain ? epilogue(t) : fixpipe(t);
    return {scope({l0c_}, std::move(body))};
  }

  // Split chips: L0C -> GM on the FixPipe, cast (and ReLU'd) on the way; with an epilogue the
  // FixPipe cannot do, whole f32 fractal columns into this tile's workspace slot, handed to the
  // vector cores with a cross-core flag once they have given the slot back.
  std::vector<Node> fixpipe(const Tile& t);

  // The k offset of full chunk number `j` (rotated by k_start when staggered); may add a Let.
  Affine chunk_k(const Affine& j, int start, std::vector<Node>& out) {
    if (!rotate_) return j * tk_l1_;
    int kc = k_.new_var("kc");
    out.push_back(let(kc, j + Affine::var(start), LetOp::Rem, full_));
    return Affine::var(kc, tk_l1_);
  }

  // Fills this core's chunk number g: tile g / chunks, its chunk g % chunks in the order the
  // tile uses them (fills_ guards it by whether this core has it).
  std::vector<Node> fill_chunk(const Affine& g) {
    int w = k_.new_var("w_ahead"), i = k_.new_var("chunk_ahead");
    std::vector<Node> body = {let(w, g, LetOp::Div, chunks_), let(i, g, LetOp::Rem, chunks_)};
    return body += decoded(Affine::var(w), "_ahead", [&](const Tile& t) { return fill_chunk(t, i); });
  }

  std::vector<Node> fill_chunk(const Tile& t, int i) {
    auto full_chunk = [&] {
      std::vector<Node> out;
      int start = -1;
      if (rotate_) {
        start = k_.new_var("k_start_ahead");
        out.push_back(let(start, t.indices, LetOp::Rem, full_));
      }
      Affine k = chunk_k(Affine::var(i), start, out);
      return out += fill(t, k, tk_l1_);
    };
    if (!tail_) return full_chunk();
    std::vector<Node> tail = fill(t, Affine(full_ * tk_l1_), tail_);
    if (!full_) return tail;
    return {when(Affine::var(i), full_, std::move(tail), full_chunk())};
  }

  // The L1 tiles of A and B for the k chunk [k1, k1 + kt1): the GM -> L1 moves.
  std::pair<Node, Node> l1_moves(const Tile& t, const Affine& k1, int64_t kt1) {
    const sched::Contraction& c = p_.c;
    int64_t s = dtype_size(c.in);
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
    return {a, b};
  }

  std::vector<Node> fill(const Tile& t, const Affine& k1, int64_t kt1) {
    if (conv_) {
      std::vector<Node> moves = conv_->fill_a(*t.rows, t.ba, t.in_row0, k1, kt1);
      moves.push_back(conv_->fill_b(t.bb, t.n0, t.nt, k1, kt1));
      return {scope({l1a_, l1b_}, std::move(moves), Node::Phase::Fill)};
    }
    auto [a, b] = l1_moves(t, k1, kt1);
    return {scope({l1a_, l1b_}, {a, b}, Node::Phase::Fill)};
  }

  // The L0 fills and mmads of one L1 chunk.
  std::vector<Node> use(const Tile& t, const Affine& k1, int64_t kt1, bool first) {
    if (conv_) return {scope({l1a_, l1b_}, conv_->use(*t.rows, t.mt, t.nt, kt1, first, l0c_), Node::Phase::Use)};
    auto [a, b] = l1_moves(t, k1, kt1);
    std::vector<Node> body = chunks(tk_l0_, kt1, first, [&](const Affine& k0, int64_t kt0, bool init) {
      return l0_fill(t, a.dst, b.dst, k0, kt0, init);
    });
    return {scope({l1a_, l1b_}, std::move(body), Node::Phase::Use)};
  }

  // Walks `extent` in chunks of `step` (the last one shorter when it does not divide): a loop over
  // the full chunks and the tail peeled; `f(offset, size, first)` makes one chunk's nodes. With
  // `peel_first`, the first chunk is peeled too, so that it can differ (the first mmad of a tile
  // starts the accumulation instead of adding to it).
  template <class F>
  std::vector<Node> chunks(int64_t step, int64_t extent, bool peel_first, F f) {
    std::vector<Node> out;
    int64_t full = extent / step, tail = extent % step, first = 0;
    if (peel_first && full > 0) out += f(Affine(0), step, true), first = 1;
    if (full - first == 1) out += f(Affine(first * step), step, first == 0 && peel_first);
    else if (full - first > 1) {
      int v = k_.new_var(fmt::format("k{}", step));
      out.push_back(loop(v, Affine(first), Affine(full), Affine(1), f(Affine::var(v, step), step, false)));
    }
    if (tail) out += f(Affine(full * step), tail, full == 0 && peel_first);
    return out;
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

  // L0C -> UB -> GM, `strip` columns (whole fractal columns) at a time; UB holds them as in L0C.
  // With an epilogue, a strip goes to ACC as it is (f32), the epilogue's vector instructions make
  // the result in UB from it and the strip of each per-column input, and that goes out:
  //   scope [UB]  { scope [E_..] { copy the inputs' strip; ACC <- L0C; UB <- epilogue(ACC, E_..) }  GM <- UB }
  std::vector<Node> epilogue(const Tile& t);

  // Columns [col, col + cols) of the tile in the output: row-major, or for a conv NC1HWC0 (each
  // 16-channel block of the tile's positions contiguous, `positions` rows of 16 apart).
  View out_view(const Tile& t, const Affine& col, int64_t cols) const;

  // The epilogue of one strip of `cols` columns from `col`, after the drain in `nodes`.
  std::vector<Node> fused(const Tile& t, const Affine& col, int64_t cols, std::vector<Node> nodes);

  // Every scratch buffer of the epilogues zeroed once, so that a column a masked instruction
  // skips still holds a defined value when a later one reads the whole strip.
  std::vector<Node> zero_scratch(std::vector<Node> body);

  const sched::StageGraph& g_;
  Out out_ = Out::Drain;
  const ContractionPlan& p_;
  const ChipConfig& chip_;
  const int64_t tk_l1_, tk_l0_;  // the graph's L1 chunks of k and L0 steps of a chunk
  const int64_t full_, tail_;  // full L1 chunks of k, and the size of the last partial one
  const int64_t chunks_;       // L1 chunks per tile
  const int64_t ahead_;        // how many chunks the L1 fills run ahead of their use
  const bool rotate_;
  Kernel k_;
  TileSpace space_;                 // the tile loops
  int64_t fused_ = 1, serial_ = 1;  // iterations of the core loops (fused) and of the others
  CoreTiles tiles_;                 // this core's tiles and its tile number
  FillAhead fills_;                 // its L1 fills, ahead_ chunks ahead of their use
  std::vector<int64_t> weight_;     // per tile loop, its weight in a tile's stagger start
  const int64_t strip_;              // columns per UB strip on the way out
  int l1a_ = -1, l1b_ = -1, l0a_ = -1, l0b_ = -1, l0c_ = -1, ub_ = -1, acc_ = -1, out_tensor_ = 2;
  int sub_tensor_ = -1, gather_ = -1;  // the second output (ContractionPlan::subsampled) and its UB gather
  std::vector<int> epi_;             // the epilogue inputs' strips
  std::vector<int> zeroed_;          // buffers besides the scratch zeroed at the start
  std::unique_ptr<ScratchPool> pool_;
  int ws_tensor_ = -1;               // split chips with a vector epilogue: the workspace
  int64_t ws_pitch_ = 0;             //   and the f32 elements from one of its rows to the next
  std::unique_ptr<VectorEpilogue> vepi_;
  std::optional<ConvEdges> conv_;    // conv: the edges into the cube
  std::vector<RowClass> classes_;    //       and the classes of its row tiles
};

}  // namespace cubekit::codegen::detail
