#include "codegen/vector_nest.h"

#include "codegen/vector_eval.h"
#include "codegen/storage.h"
#include "codegen/tile_loop.h"
#include "codegen/vector_ops.h"
#include "emulator/error.h"
#include "emulator/program.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

namespace cubekit::codegen {

namespace {

using dsl::Expr;
using dsl::ExprNode;
using dsl::Op;
using sched::VecShape;
using sched::VectorPlan;

int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }
int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

VShape vshape(VecShape s) { return s == VecShape::Full ? VShape::Full : s == VecShape::Row ? VShape::Row : VShape::Col; }

std::vector<Arg> mems(size_t n) {
  std::vector<Arg> a;
  for (size_t i = 0; i < n; ++i) a.push_back(mem_arg(int(i)));
  return a;
}

int reads(const Expr& e, const dsl::FuncImpl* f) {
  if (!e.defined()) return 0;
  const ExprNode& n = e.node();
  int k = n.op == Op::Func && n.func.get() == f;
  for (const Expr& a : n.args) k += reads(a, f);
  return k;
}

bool calls(const Expr& e, const dsl::FuncImpl* f) {
  if (!e.defined()) return false;
  const ExprNode& n = e.node();
  if (n.op == Op::Func && n.func.get() == f) return true;
  for (const Expr& a : n.args)
    if (calls(a, f)) return true;
  return false;
}

class Builder {
 public:
  Builder(const VectorPlan& p, const ChipConfig& chip) : p_(p), chip_(chip) {
    int64_t narrowest = dtype_size(p.output->value.type().dtype);
    for (const auto& in : p.inputs) narrowest = std::min<int64_t>(narrowest, dtype_size(in.input->dtype));
    for (const auto& s : p.stages) narrowest = std::min<int64_t>(narrowest, dtype_size(s.func->value.type().dtype));
    align_ = std::max<int64_t>(16, 32 / narrowest);
    ahead_ = p.copies - 1;
  }

  Kernel build() {
    int64_t total = p_.flat ? p_.rows * p_.cols : p_.rows;
    int64_t unit = p_.flat ? 128 : 1;  // tile sizes in rows, or in 128 elements when flat
    int64_t spread = p_.cores ? chip_.vector_cores() : 1;
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
  // The largest tile (in units) in [lo, hi] that fits UB; lo - 1 when none.
  int64_t fitting(int64_t lo, int64_t hi) {
    int64_t unit = p_.flat ? 128 : 1, best = lo - 1;
    while (lo <= hi) {
      int64_t mid = (lo + hi) / 2;
      if (ub_bytes(make(mid * unit)) <= chip_.buffer_size(Space::UB)) best = mid, lo = mid + 1;
      else hi = mid - 1;
    }
    return best;
  }

  int64_t ub_bytes(const Kernel& k) const { return space_bytes(k, Space::UB, chip_); }

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

  // ---- one kernel for a tile size ----
  Kernel make(int64_t tile) {
    Kernel k;
    k.name = p_.name;
    k.new_var("block_idx");
    k.new_var("block_num");
    k_ = &k;
    tile_ = tile;
    pitch_ = p_.flat ? round_up(tile, align_) : round_up(p_.cols, align_);
    int64_t total = p_.flat ? p_.rows * p_.cols : p_.rows;
    ntiles_ = cdiv(total, tile);
    last_ = total - (ntiles_ - 1) * tile;
    k.block_dim = p_.cores ? int(std::min<int64_t>(chip_.vector_cores(), ntiles_)) : 1;
    const int copies = p_.copies;
    in_.clear(), in_full_.clear();
    for (const auto& o : p_.inputs) {
      k.tensors.push_back({o.input->name, o.input->dtype, o.input->shape, TensorRole::In});
      int64_t bytes = vbytes(vshape(o.shape), o.input->dtype, geometry(tile));
      int b = k.new_buffer("in_" + o.input->name, Space::UB, bytes, o.shape == VecShape::Col ? 1 : copies);
      in_.push_back(b);
      if (o.shape != VecShape::Col) in_full_.push_back(b);
    }
    out_type_ = p_.output->value.type().dtype;
    k.tensors.push_back({p_.name, out_type_, p_.shape, TensorRole::Out});
    out_shape_ = p_.row_output ? VShape::Row : VShape::Full;
    int64_t out_bytes = p_.row_output ? vbytes(VShape::Row, out_type_, geometry(tile))
                                      : round_up(geometry(tile).rows * pitch_ * dtype_size(out_type_), 32);
    out_ = k.new_buffer("out", Space::UB, out_bytes, copies);
    pool_ = std::make_unique<ScratchPool>(k);

    auto fill_of = [&](const Affine& t) {
      return in_full_.empty() ? std::vector<Node>{} : variants(t, [&](int64_t n) { return fill(t, n); });
    };
    auto use_of = [&](const Affine& t, bool with_fill) {
      return variants(t, [&](int64_t n) {
        std::vector<Node> body = with_fill ? fill(t, n) : std::vector<Node>{};
        return body += one_tile(t, n);
      });
    };
    std::vector<Node> body = with_columns(tile_loop(k, {ntiles_, ahead_, fill_of, use_of}));
    k.body = zeroed();
    for (Node& n : body) k.body.push_back(std::move(n));
    k_ = nullptr;
    return k;
  }

  // Flat tiles are exactly their elements (the last masked); rows are pitch_ apart.
  VTile geometry(int64_t n) const {
    if (p_.flat) return {1, n, n};
    return {n, p_.cols, pitch_};
  }

  // f(rows or elements of the tile) for tile t, specialised for a partial last tile.
  template <class F>
  std::vector<Node> variants(const Affine& t, F f) {
    return with_tail(t, ntiles_, tile_, last_, f);
  }

  // The per-column inputs, filled once and read by every tile.
  std::vector<Node> with_columns(std::vector<Node> body) {
    std::vector<Node> fills;
    std::vector<int> bufs;
    for (size_t i = 0; i < p_.inputs.size(); ++i) {
      const auto& o = p_.inputs[i];
      if (o.shape != VecShape::Col) continue;
      fills.push_back(copy_in(int(i), Affine(0), p_.cols));
      bufs.push_back(in_[i]);
    }
    if (bufs.empty()) return body;
    fills.push_back(scope({}, std::move(body)));  // a plain group, so that the column scope sees one reader
    return {scope(bufs, std::move(fills))};
  }

  Node copy_in(int i, const Affine& first, int64_t n) {
    const auto& o = p_.inputs[size_t(i)];
    int64_t s = dtype_size(o.input->dtype);
    Ref src{i, -1, first * s}, dst{-1, in_[size_t(i)], Affine(0)};
    std::vector<Arg> args = mems(2);
    if (o.shape == VecShape::Full && !p_.flat) {  // n rows of cols elements, each row at pitch
      int64_t len = p_.cols * s, gap = pitch_ * s / 32 - cdiv(len, 32);
      args.push_back(kw("nburst", imm(n)));
      args.push_back(kw("len", imm(len)));
      if (gap) args.push_back(kw("dst_gap", imm(gap)));
    } else {
      args.push_back(kw("len", imm(n * s)));
    }
    return instr("copy_gm_ub_pad", Pipe::MTE2, {dst, src}, std::move(args));
  }

  std::vector<Node> fill(const Affine& t, int64_t n) {
    if (in_full_.empty()) return {};
    std::vector<Node> copies;
    for (size_t i = 0; i < p_.inputs.size(); ++i) {
      const auto& o = p_.inputs[i];
      if (o.shape == VecShape::Col) continue;
      Affine first = p_.flat || o.shape == VecShape::Row ? t * tile_ : t * (tile_ * p_.cols);
      copies.push_back(copy_in(int(i), first, n));
    }
    return {scope(in_full_, std::move(copies), Node::Phase::Fill)};
  }

  // The use of one tile of n rows (or n elements when flat).
  std::vector<Node> one_tile(const Affine& t, int64_t n) {
    std::vector<Node> body;
    VTile geom = geometry(n);
    std::vector<Node> use;
    VectorOps ops(*k_, *pool_, use, geom);
    std::map<const dsl::InputImpl*, VValue> inputs;
    for (size_t i = 0; i < p_.inputs.size(); ++i)
      inputs[p_.inputs[i].input.get()] = {vshape(p_.inputs[i].shape), p_.inputs[i].input->dtype, {-1, in_[i], Affine(0)}, 0};
    std::map<const dsl::FuncImpl*, VValue> funcs;
    // A stage's value lives until the last stage (or the output) that reads it.
    size_t n_stages = p_.stages.size();
    std::vector<size_t> last(n_stages, n_stages);
    for (size_t i = 0; i < n_stages; ++i) {
      last[i] = i;
      for (size_t j = i + 1; j < n_stages; ++j)
        if (calls(p_.stages[j].func->value, p_.stages[i].func.get())) last[i] = j;
      if (calls(p_.output->value, p_.stages[i].func.get())) last[i] = n_stages;
    }
    for (size_t i = 0; i < n_stages; ++i) {
      const auto& st = p_.stages[i];
      // A stage read for the last time, and once, here: its scratch may take this stage's value.
      Evaluator stage(ops, inputs, funcs);
      std::vector<VValue> dying;
      for (size_t j = 0; j < i; ++j) {
        if (last[j] != i) continue;
        dying.push_back(funcs.at(p_.stages[j].func.get()));
        if (reads(st.func->value, p_.stages[j].func.get()) == 1) stage.adopt(dying.back());
      }
      VValue value = stage.materialize(st.func->value, vshape(st.shape));
      for (size_t j = 0; j < i; ++j)
        if (last[j] == i) funcs.erase(p_.stages[j].func.get());
      for (const VValue& v : dying)
        if (v.at.buffer != value.at.buffer) ops.done(v);
      funcs[st.func.get()] = value;
    }
    std::vector<Node> out_nodes;
    VectorOps out_ops(*k_, *pool_, out_nodes, geom);
    Evaluator out_eval(out_ops, inputs, funcs);
    for (const auto& st : p_.stages)  // every stage is read for the last time by the output
      if (funcs.count(st.func.get()) && reads(p_.output->value, st.func.get()) == 1) out_eval.adopt(funcs.at(st.func.get()));
    VValue out{out_shape_, out_type_, {-1, out_, Affine(0)}, 0};
    out_eval.eval(p_.output->value, &out);
    out_nodes.push_back(store(t, n));
    use.push_back(scope({out_}, std::move(out_nodes)));
    for (auto& [f, v] : funcs) ops.done(v);
    if (in_full_.empty()) body += std::move(use);
    else body.push_back(scope(in_full_, std::move(use), Node::Phase::Use));
    return body;
  }

  Node store(const Affine& t, int64_t n) {
    int64_t s = dtype_size(out_type_);
    int out_tensor = int(p_.inputs.size());
    std::vector<Arg> args = mems(2);
    Affine first = p_.flat || p_.row_output ? t * tile_ : t * (tile_ * p_.cols);
    if (p_.flat || p_.row_output) {  // contiguous: elements, or one value per row
      args.push_back(kw("len", imm(n * s)));
    } else {
      int64_t len = p_.cols * s, gap = pitch_ * s / 32 - cdiv(len, 32);
      args.push_back(kw("nburst", imm(n)));
      args.push_back(kw("len", imm(len)));
      if (gap) args.push_back(kw("src_gap", imm(gap)));
    }
    return instr("copy_ub_gm_pad", Pipe::MTE3, {{out_tensor, -1, first * s}, {-1, out_, Affine(0)}}, std::move(args));
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
    if (p_.flat) return with_barrier(std::move(out));
    for (size_t i = 0; i < p_.inputs.size(); ++i) {
      const auto& o = p_.inputs[i];
      int64_t s = dtype_size(o.input->dtype), written = cdiv(p_.cols * s, 32), blocks = pitch_ * s / 32;
      if (o.shape == VecShape::Row || blocks == written) continue;
      int copy = k_->new_var("copy");
      int64_t rows = o.shape == VecShape::Full ? tile_ : 1;  // a per-column input is one row
      auto zero = [&](const Affine& at, int64_t repeats) {
        std::vector<Arg> args = {mems(1)[0], num(0), kw("repeat", imm(repeats)), kw("mask", mask_count((blocks - written) * 8))};
        if (repeats > 1) args.push_back(kw("dst_rep", imm(blocks)));
        return instr("vdup.f32", Pipe::V, {{-1, in_[i], at, copy}}, std::move(args));
      };
      for (int c = 0; c < k_->buffers[size_t(in_[i])].copies; ++c) {
        out.push_back(let(copy, Affine(c), LetOp::Add, 0));
        if (rows > 1 && blocks > kMaxRepeatStride) {  // rows too far apart for a repeat stride: a row at a time
          int row = k_->new_var("row");
          out.push_back(loop(row, Affine(0), Affine(rows), Affine(1),
                             {zero(Affine::var(row, blocks * 32) + Affine(written * 32), 1)}));
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

  const VectorPlan& p_;
  const ChipConfig& chip_;
  int64_t align_ = 16, ahead_ = 0;
  Kernel* k_ = nullptr;
  std::unique_ptr<ScratchPool> pool_;
  int64_t tile_ = 1, pitch_ = 16, ntiles_ = 1, last_ = 1;
  std::vector<int> in_, in_full_;
  int out_ = -1;
  DType out_type_ = DType::f32;
  VShape out_shape_ = VShape::Full;
};

}  // namespace

Kernel build_vector_nest(const VectorPlan& plan, const ChipConfig& chip) { return Builder(plan, chip).build(); }

}  // namespace cubekit::codegen
