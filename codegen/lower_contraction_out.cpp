// The ways out of L0C for the contraction nest (lower_contraction.h): the coupled core's strips
// through UB with a fused epilogue, the split chips' FixPipe, and the output's layout.
#include "codegen/lower_contraction.h"
#include "codegen/vector_eval.h"

#include <algorithm>
#include <map>

namespace cubekit::codegen::detail {

// Split chips: L0C -> GM on the FixPipe, cast (and ReLU'd) on the way; with an epilogue the
// FixPipe cannot do, whole f32 fractal columns into this tile's workspace slot, handed to the
// vector cores with a cross-core flag once they have given the slot back.
std::vector<Node> ContractionStages::fixpipe(const Tile& t) {
  const sched::Contraction& c = p_.c;
  Node fix{Node::Kind::Move};
  fix.src = {{-1, l0c_, 0}, Layout::NZ16, c.acc, t.mt, t.nt, round_up(t.mt, 16)};
  if (!vepi_) {
    fix.dst = out_view(t, Affine(0), t.nt);
    fix.relu = p_.fixpipe_relu;
    return {fix};
  }
  int slot = k_.new_var("slot");
  fix.src.cols = VectorEpilogue::padded(t.nt);
  fix.dst = {{ws_tensor_, -1, slot_offset(slot)}, Layout::ND, DType::f32, t.mt, fix.src.cols, ws_pitch_};
  if (c.conv) fix.dst.layout = Layout::NZ16, fix.dst.ld = p_.tm;  // a conv's slot holds 16-channel blocks of tm rows
  return {let(slot, Affine::var(tiles_.w), LetOp::Rem, VectorEpilogue::kSlots), wait_cross(Pipe::FIX, VectorEpilogue::kFree), fix,
          set_cross(Pipe::FIX, 2, VectorEpilogue::kReady)};
}

// L0C -> UB -> GM, `strip` columns (whole fractal columns) at a time; UB holds them as in L0C.
// With an epilogue, a strip goes to ACC as it is (f32), the epilogue's vector instructions make
// the result in UB from it and the strip of each per-column input, and that goes out:
//   scope [UB]  { scope [E_..] { copy the inputs' strip; ACC <- L0C; UB <- epilogue(ACC, E_..) }  GM <- UB }
std::vector<Node> ContractionStages::epilogue(const Tile& t) {
  const sched::Contraction& c = p_.c;
  int64_t m16 = round_up(t.mt, 16);
  auto strip = [&](const Affine& col, int64_t cols) {
    Node drain{Node::Kind::Move};
    drain.src = {{-1, l0c_, 0}, Layout::NZ16, c.acc, t.mt, cols, m16};
    drain.src.col0 = col;
    drain.dst = {{-1, acc_ >= 0 ? acc_ : ub_, 0}, Layout::NZ16, acc_ >= 0 ? c.acc : c.out, t.mt, cols, m16};
    Node store{Node::Kind::Move};
    store.src = {{-1, ub_, 0}, Layout::NZ16, c.out, t.mt, cols, m16};
    store.dst = out_view(t, col, cols);
    std::vector<Node> make = {drain};
    if (acc_ >= 0) make = fused(t, col, cols, std::move(make));  // a fused epilogue
    make.push_back(store);
    if (gather_ >= 0) {  // the second output: every s-th row and column of the strip
      const int64_t images = t.rows->images, per = t.mt / images;
      SubsampledStrip sub{ub_, m16, cols / 16, images, per, 0, per, subsampled_base(p_, t.bc, t.n0 + col, t.m0)};
      make.push_back(scope({gather_}, subsample_strip(p_, gather_, sub_tensor_, sub)));
    }
    return std::vector<Node>{scope({ub_}, std::move(make))};
  };
  std::vector<Node> out;
  int64_t full = t.nt / strip_, tail = t.nt % strip_;
  if (full == 1) out = strip(Affine(0), strip_);
  else if (full > 1) {
    int v = k_.new_var("strip");
    out.push_back(loop(v, Affine(0), Affine(full), Affine(1), strip(Affine::var(v, strip_), strip_)));
  }
  if (tail) out += strip(Affine(full * strip_), tail);
  return out;
}

// Columns [col, col + cols) of the tile in the output: row-major, or for a conv NC1HWC0 (each
// 16-channel block of the tile's positions contiguous, `positions` rows of 16 apart).
View ContractionStages::out_view(const Tile& t, const Affine& col, int64_t cols) const {
  const sched::Contraction& c = p_.c;
  int64_t size = dtype_size(c.out);
  if (c.conv) {
    View v{{out_tensor_, -1, (t.bc + (t.n0 + col) * c.m + t.m0 * 16) * size}, Layout::NZ16, c.out, t.mt, cols, c.m};
    v.images = t.rows->images, v.image_ld = c.m * c.n * c.g.groups;
    return v;
  }
  return {{out_tensor_, -1, (t.bc + t.m0 * c.n + t.n0 + col) * size}, Layout::ND, c.out, t.mt, cols, c.n};
}

// The epilogue of one strip of `cols` columns from `col`, after the drain in `nodes`.
std::vector<Node> ContractionStages::fused(const Tile& t, const Affine& col, int64_t cols, std::vector<Node> nodes) {
  const sched::Contraction& c = p_.c;
  int64_t m16 = round_up(t.mt, 16);
  VTile geom{m16, cols, round_up(cols, 16), true};
  VectorOps ops(k_, *pool_, nodes, geom);
  std::map<const dsl::InputImpl*, VValue> inputs;
  std::vector<Node> loads, tile_loads;
  std::vector<int> col_bufs, tile_bufs;  // one scope each: the buffers of a scope share its copies
  for (size_t i = 0; i < p_.epilogue_inputs.size(); ++i) {
    const auto& e = p_.epilogue_inputs[i];
    int64_t s = dtype_size(e.input->dtype);
    if (e.tile) {  // NC1HWC0 in GM: each 16-channel block's rows of the tile (of each image) are contiguous
      inputs[e.input.get()] = {VShape::Full, e.input->dtype, {-1, epi_[i], Affine(0)}, 0};
      auto blocks = [&](int64_t rows) { return rows * 16 * s / 32; };
      const int64_t images = t.rows->images, rows = t.mt / images;
      for (int64_t im = 0; im < images; ++im)
        tile_loads.push_back(instr("copy_gm_ub", Pipe::MTE2,
                                   {{-1, epi_[i], Affine(im * rows * 16 * s)},
                                    {2 + int(i), -1, (t.bc + Affine(im * c.m * c.n * c.g.groups) + (t.n0 + col) * c.m + t.m0 * 16) * s}},
                                   {mem_arg(0), mem_arg(1), kw("nburst", imm(cols / 16)), kw("len", imm(blocks(rows))),
                                    kw("src_gap", imm(blocks(c.m - rows))), kw("dst_gap", imm(blocks(m16 - rows)))}));
      tile_bufs.push_back(epi_[i]);
      continue;
    }
    col_bufs.push_back(epi_[i]);
    inputs[e.input.get()] = {VShape::Col, e.input->dtype, {-1, epi_[i], Affine(0)}, 0};
    loads.push_back(instr("copy_gm_ub_pad", Pipe::MTE2, {{-1, epi_[i], Affine(0)}, {2 + int(i), -1, (t.bg + t.n0 + col) * s}},
                          {mem_arg(0), mem_arg(1),
                           kw("len", imm(cols * s))}));
  }
  std::map<const dsl::FuncImpl*, VValue> funcs = {{p_.producer.get(), {VShape::Full, c.acc, {-1, acc_, Affine(0)}, 0}}};
  VValue out{VShape::Full, c.out, {-1, ub_, Affine(0)}, 0};
  Evaluator(ops, inputs, funcs).eval(p_.epilogue->value, &out);
  if (!col_bufs.empty()) {
    loads += std::move(nodes);
    nodes = {scope(col_bufs, std::move(loads))};
  }
  if (tile_bufs.empty()) return nodes;
  tile_loads += std::move(nodes);
  return {scope(tile_bufs, std::move(tile_loads))};
}

// Every scratch buffer of the epilogues zeroed once, so that a column a masked instruction
// skips still holds a defined value when a later one reads the whole strip.
std::vector<Node> ContractionStages::zero_scratch(std::vector<Node> body) {
  std::vector<Node> out;
  std::vector<int> all = pool_->all();
  all.insert(all.end(), zeroed_.begin(), zeroed_.end());
  for (int b : all) {
    if (pool_->written_whole(b) && std::find(zeroed_.begin(), zeroed_.end(), b) == zeroed_.end()) continue;
    int64_t n = k_.buffers[size_t(b)].bytes / 4;
    VectorOps(k_, *pool_, out, {1, n, n}).fill({VShape::Col, DType::f32, {-1, b, Affine(0)}, 0}, 0);
  }
  // The full-tile inputs are then written by MTE2: every pipe waits for the zeroing.
  if (!out.empty()) out.push_back(barrier(zeroed_.empty() ? Pipe::V : Pipe::All));
  return out += std::move(body);
}

}  // namespace cubekit::codegen::detail
