#include "codegen/lower_stages.h"

#include "codegen/lower_attention.h"
#include "codegen/lower_attention_split.h"
#include "codegen/lower_contraction.h"
#include "codegen/lower_pool.h"
#include "codegen/storage.h"
#include "codegen/tile_loop.h"
#include "codegen/vector_eval.h"
#include "codegen/vector_ops.h"
#include "emulator/error.h"

#include <map>

namespace cubekit::codegen {

namespace {

using sched::At;
using sched::GraphStage;
using sched::Path;
using sched::Place;
using sched::StageGraph;
using sched::VecShape;

VShape vshape(VecShape s) { return s == VecShape::Full ? VShape::Full : s == VecShape::Row ? VShape::Row : VShape::Col; }

std::vector<Arg> mems(size_t n) {
  std::vector<Arg> a;
  for (size_t i = 0; i < n; ++i) a.push_back(mem_arg(int(i)));
  return a;
}

// How many times e reads f directly (not through the Funcs it calls).
int reads(const dsl::Expr& e, const dsl::FuncImpl* f) {
  if (!e.defined()) return 0;
  const dsl::ExprNode& n = e.node();
  int k = n.op == dsl::Op::Func && n.func.get() == f;
  for (const dsl::Expr& a : n.args) k += reads(a, f);
  return k;
}

// A vector-unit graph: its tiles (graph.row_tiles) walked by tile_loop, a UB buffer per input
// stage and one for the output, the computed stages' values in scratch.
class VectorStages {
 public:
  VectorStages(const StageGraph& g, const ChipConfig& chip) : g_(g), t_(g.row_tiles), chip_(chip) {
    CUBEKIT_ASSERT(t_.tile_rows > 0, "{}: the graph's tiles are not chosen", g.kernel);
    for (size_t i = 0; i < g.stages.size(); ++i) {
      const GraphStage& s = g.stages[i];
      if (s.place == Place::UB && s.input) inputs_.push_back(int(i));
      else if (s.place == Place::UB && s.func) computed_.push_back(int(i));
    }
    CUBEKIT_ASSERT(!computed_.empty(), "{}: a vector graph computes its output", g.kernel);
    output_ = computed_.back();
    computed_.pop_back();
    int64_t narrowest = dtype_size(out().func->value.type().dtype);
    for (int i : inputs_) narrowest = std::min<int64_t>(narrowest, dtype_size(stage(i).input->dtype));
    for (int i : computed_) narrowest = std::min<int64_t>(narrowest, dtype_size(stage(i).func->value.type().dtype));
    align_ = std::max<int64_t>(16, 32 / narrowest);
    ahead_ = out().copies - 1;
  }

  Kernel lower() {
    const int64_t tile = t_.tile_rows;
    Kernel k;
    k.name = g_.kernel;
    k.new_var("block_idx");
    k.new_var("block_num");
    k_ = &k;
    pitch_ = t_.flat ? round_up(tile, align_) : round_up(t_.cols, align_);
    const int64_t total = t_.flat ? t_.rows * t_.cols : t_.rows;
    ntiles_ = cdiv(total, tile);
    last_ = total - (ntiles_ - 1) * tile;
    k.block_dim = t_.cores ? int(std::min<int64_t>(t_.core_limit ? t_.core_limit : chip_.vector_cores(), ntiles_)) : 1;
    for (int i : inputs_) {
      const GraphStage& s = stage(i);
      k.tensors.push_back({s.input->name, s.input->dtype, s.input->shape, TensorRole::In});
      int b = k.new_buffer("in_" + s.input->name, Space::UB, vbytes(vshape(s.shape), s.input->dtype, geometry(tile)), s.copies);
      buffer_[i] = b;
      if (s.at == At::Tile) per_tile_.push_back(b);
    }
    out_type_ = out().func->value.type().dtype;
    k.tensors.push_back({g_.kernel, out_type_, dsl::Func(out().func).shape(), TensorRole::Out});
    out_shape_ = t_.row_output ? VShape::Row : VShape::Full;
    int64_t out_bytes = t_.row_output ? vbytes(VShape::Row, out_type_, geometry(tile))
                                      : round_up(geometry(tile).rows * pitch_ * dtype_size(out_type_), 32);
    buffer_[output_] = k.new_buffer("out", Space::UB, out_bytes, out().copies);
    pool_ = std::make_unique<ScratchPool>(k);

    auto fill_of = [&](const TileLoop::Index& at) {
      const Affine& t = at[0];
      return per_tile_.empty() ? std::vector<Node>{} : with_tail(t, ntiles_, tile, last_, [&](int64_t n) { return fill(t, n); });
    };
    auto use_of = [&](const TileLoop::Index& at, bool with_fill) {
      const Affine& t = at[0];
      return with_tail(t, ntiles_, tile, last_, [&](int64_t n) {
        std::vector<Node> body = with_fill ? fill(t, n) : std::vector<Node>{};
        return body += use(t, n);
      });
    };
    std::vector<Node> body = per_core(tile_loop(k, {{{"tile", ntiles_}}, ahead_, fill_of, use_of}));
    k.body = zeroed();
    for (Node& n : body) k.body.push_back(std::move(n));
    k_ = nullptr;
    return k;
  }

 private:
  const GraphStage& stage(int i) const { return g_.stages[size_t(i)]; }
  const GraphStage& out() const { return stage(output_); }
  int tensor_of(int input_stage) const {  // inputs are the kernel's first tensors, in the graph's order
    for (size_t j = 0; j < inputs_.size(); ++j)
      if (inputs_[j] == input_stage) return int(j);
    CUBEKIT_ASSERT(false, "stage {} is no input", input_stage);
    return -1;
  }

  // Flat tiles are exactly their elements (the last masked); rows are pitch_ apart.
  VTile geometry(int64_t n) const {
    if (t_.flat) return {1, n, n};
    return {n, t_.cols, pitch_};
  }

  // The stages made once per core (per-column inputs), filled before the tile loop.
  std::vector<Node> per_core(std::vector<Node> body) {
    std::vector<Node> fills;
    std::vector<int> bufs;
    for (int i : inputs_) {
      if (stage(i).at != At::Core) continue;
      fills.push_back(copy_in(i, Affine(0), t_.cols));
      bufs.push_back(buffer_.at(i));
    }
    if (bufs.empty()) return body;
    fills.push_back(scope({}, std::move(body)));  // a plain group, so that the column scope sees one reader
    return {scope(bufs, std::move(fills))};
  }

  // GM -> UB for input stage i: n rows of cols elements, each row at pitch, or n contiguous ones.
  Node copy_in(int i, const Affine& first, int64_t n) {
    const GraphStage& s = stage(i);
    int64_t size = dtype_size(s.input->dtype);
    Ref src{tensor_of(i), -1, first * size}, dst{-1, buffer_.at(i), Affine(0)};
    std::vector<Arg> args = mems(2);
    if (s.shape == VecShape::Full && !t_.flat) {
      int64_t len = t_.cols * size, gap = pitch_ * size / 32 - cdiv(len, 32);
      args.push_back(kw("nburst", imm(n)));
      args.push_back(kw("len", imm(len)));
      if (gap) args.push_back(kw("dst_gap", imm(gap)));
    } else {
      args.push_back(kw("len", imm(n * size)));
    }
    return instr("copy_gm_ub_pad", Pipe::MTE2, {dst, src}, std::move(args));
  }

  std::vector<Node> fill(const Affine& t, int64_t n) {
    if (per_tile_.empty()) return {};
    std::vector<Node> copies;
    for (int i : inputs_) {
      const GraphStage& s = stage(i);
      if (s.at != At::Tile) continue;
      Affine first = t_.flat || s.shape == VecShape::Row ? t * t_.tile_rows : t * (t_.tile_rows * t_.cols);
      copies.push_back(copy_in(i, first, n));
    }
    return {scope(per_tile_, std::move(copies), Node::Phase::Fill)};
  }

  // The stage after which computed stage i is read no more: its last computed reader, or the
  // output (an index past every computed stage).
  size_t last_reader(size_t i) const {
    size_t last = i;
    for (const sched::Edge& e : g_.edges) {
      if (e.producer != computed_[i] || e.path != Path::Compute) continue;
      if (e.consumer == output_) return computed_.size();
      for (size_t j = i + 1; j < computed_.size(); ++j)
        if (computed_[j] == e.consumer) last = std::max(last, j);
    }
    return last;
  }

  // The use of one tile of n rows (or n elements when flat).
  std::vector<Node> use(const Affine& t, int64_t n) {
    VTile geom = geometry(n);
    std::vector<Node> body;
    VectorOps ops(*k_, *pool_, body, geom);
    std::map<const dsl::InputImpl*, VValue> inputs;
    for (int i : inputs_)
      inputs[stage(i).input.get()] = {vshape(stage(i).shape), stage(i).input->dtype, {-1, buffer_.at(i), Affine(0)}, 0};
    std::map<const dsl::FuncImpl*, VValue> funcs;
    const size_t n_stages = computed_.size();
    std::vector<size_t> last(n_stages);
    for (size_t i = 0; i < n_stages; ++i) last[i] = last_reader(i);
    for (size_t i = 0; i < n_stages; ++i) {
      const GraphStage& st = stage(computed_[i]);
      // A stage read for the last time, and once, here: its scratch may take this stage's value.
      Evaluator eval(ops, inputs, funcs);
      std::vector<VValue> dying;
      for (size_t j = 0; j < i; ++j) {
        if (last[j] != i) continue;
        dying.push_back(funcs.at(stage(computed_[j]).func.get()));
        if (reads(st.func->value, stage(computed_[j]).func.get()) == 1) eval.adopt(dying.back());
      }
      VValue value = eval.materialize(st.func->value, vshape(st.shape));
      for (size_t j = 0; j < i; ++j)
        if (last[j] == i) funcs.erase(stage(computed_[j]).func.get());
      for (const VValue& v : dying)
        if (v.at.buffer != value.at.buffer) ops.done(v);
      funcs[st.func.get()] = value;
    }
    const dsl::Expr& result = out().func->value;
    std::vector<Node> out_nodes;
    VectorOps out_ops(*k_, *pool_, out_nodes, geom);
    Evaluator out_eval(out_ops, inputs, funcs);
    for (int i : computed_)  // every stage is read for the last time by the output
      if (funcs.count(stage(i).func.get()) && reads(result, stage(i).func.get()) == 1) out_eval.adopt(funcs.at(stage(i).func.get()));
    VValue o{out_shape_, out_type_, {-1, buffer_.at(output_), Affine(0)}, 0};
    out_eval.eval(result, &o);
    out_nodes.push_back(store(t, n));
    body.push_back(scope({buffer_.at(output_)}, std::move(out_nodes)));
    for (auto& [f, v] : funcs) ops.done(v);
    if (per_tile_.empty()) return body;
    return {scope(per_tile_, std::move(body), Node::Phase::Use)};
  }

  // UB -> GM: the tile's rows at pitch, or its contiguous elements (or one value per row).
  Node store(const Affine& t, int64_t n) {
    int64_t size = dtype_size(out_type_);
    int out_tensor = int(inputs_.size());
    std::vector<Arg> args = mems(2);
    Affine first = t_.flat || t_.row_output ? t * t_.tile_rows : t * (t_.tile_rows * t_.cols);
    if (t_.flat || t_.row_output) {
      args.push_back(kw("len", imm(n * size)));
    } else {
      int64_t len = t_.cols * size, gap = pitch_ * size / 32 - cdiv(len, 32);
      args.push_back(kw("nburst", imm(n)));
      args.push_back(kw("len", imm(len)));
      if (gap) args.push_back(kw("src_gap", imm(gap)));
    }
    return instr("copy_ub_gm_pad", Pipe::MTE3, {{out_tensor, -1, first * size}, {-1, buffer_.at(output_), Affine(0)}}, std::move(args));
  }

  // Zeroes every scratch buffer once (a padding element read by a masked or spread instruction is
  // then defined) and the 32 B blocks of the full inputs' rows that their copies do not write.
  std::vector<Node> zeroed() {
    std::vector<Node> out;
    for (int b : pool_->all()) {
      if (pool_->written_whole(b)) continue;
      int64_t n = k_->buffers[size_t(b)].bytes / 4;
      VectorOps ops(*k_, *pool_, out, {1, n, n});
      ops.fill({VShape::Col, DType::f32, {-1, b, Affine(0)}, 0}, 0);
    }
    if (t_.flat) return with_barrier(std::move(out));
    for (int i : inputs_) {
      const GraphStage& s = stage(i);
      int64_t size = dtype_size(s.input->dtype), written = cdiv(t_.cols * size, 32), blocks = pitch_ * size / 32;
      if (s.shape == VecShape::Row || blocks == written) continue;
      const int buf = buffer_.at(i);
      int copy = k_->new_var("copy");
      int64_t rows = s.shape == VecShape::Full ? t_.tile_rows : 1;  // a per-column input is one row
      auto zero = [&](const Affine& at, int64_t repeats) {
        std::vector<Arg> args = {mems(1)[0], num(0), kw("repeat", imm(repeats)), kw("mask", mask_count((blocks - written) * 8))};
        if (repeats > 1) args.push_back(kw("dst_rep", imm(blocks)));
        return instr("vdup.f32", Pipe::V, {{-1, buf, at, copy}}, std::move(args));
      };
      for (int c = 0; c < k_->buffers[size_t(buf)].copies; ++c) {
        out.push_back(let(copy, Affine(c), LetOp::Add, 0));
        if (rows > 1 && blocks > kMaxRepeatStride) {  // rows too far apart for a repeat stride: a row at a time
          int row = k_->new_var("row");
          out.push_back(loop(row, Affine(0), Affine(rows), Affine(1), {zero(Affine::var(row, blocks * 32) + Affine(written * 32), 1)}));
          continue;
        }
        for (int64_t r0 = 0; r0 < rows; r0 += 255)
          out.push_back(zero(Affine((r0 * blocks + written) * 32), std::min<int64_t>(255, rows - r0)));
      }
    }
    return with_barrier(std::move(out));
  }

  // The zeroing is outside every scope, so the sync pass does not see it: order it here.
  static std::vector<Node> with_barrier(std::vector<Node> out) {
    if (out.empty()) return out;
    out.push_back(barrier(Pipe::V));
    return out;
  }

  const StageGraph& g_;
  const sched::RowTiles& t_;
  const ChipConfig& chip_;
  std::vector<int> inputs_;    // the UB stages of the inputs, in the graph's order
  std::vector<int> computed_;  // the computed stages before the output, producers first
  int output_ = -1;            // the output's UB stage
  std::map<int, int> buffer_;  // stage -> its UB buffer
  std::vector<int> per_tile_;  // the buffers filled per tile
  int64_t align_ = 16, ahead_ = 0;
  Kernel* k_ = nullptr;
  std::unique_ptr<ScratchPool> pool_;
  int64_t pitch_ = 16, ntiles_ = 1, last_ = 1;
  DType out_type_ = DType::f32;
  VShape out_shape_ = VShape::Full;
};

}  // namespace

Kernel lower_stages(const StageGraph& graph, const ChipConfig& chip) {
  if (graph.contraction) return detail::ContractionStages(graph, chip).lower();
  if (graph.pool) return lower_pool(graph, chip);
  if (graph.attention) return graph.attention->split ? lower_attention_split(graph, chip) : lower_attention(graph, chip);
  return VectorStages(graph, chip).lower();
}

}  // namespace cubekit::codegen
