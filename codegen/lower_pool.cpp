#include "codegen/lower_pool.h"

#include "codegen/tile_loop.h"
#include "codegen/row_classes.h"
#include "codegen/vector_ops.h"
#include "emulator/error.h"

#include <fmt/format.h>

#include <algorithm>

namespace cubekit::codegen {

namespace {

using sched::PoolPlan;

constexpr int kIn = 0, kOut = 1;  // the kernel's tensors

// The outputs [first, last] of [0, outputs) whose tap reads the input, [0, extent), where output
// 0's reads `at` and each next one `stride` further (the others read padding, which the taps
// skip: the output starts as the padding's value). Empty (last < first) when none does.
std::pair<int64_t, int64_t> outputs_reading(int64_t at, int64_t stride, int64_t extent, int64_t outputs) {
  if (at > extent - 1) return {0, -1};  // past the input's end from output 0 on
  const int64_t first = at >= 0 ? 0 : (-at + stride - 1) / stride;
  return {first, std::min(outputs - 1, (extent - 1 - at) / stride)};
}

// The output rows of a band of class b whose window tap row i reads an input row.
std::pair<int64_t, int64_t> tap_rows(const sched::ConvGeometry& g, const RowClass& b, int64_t i) {
  return outputs_reading(i * g.dh - b.pad_top, g.sh, b.in_rows, b.out_rows(g));  // the rows as copied
}

Ref ub(int buffer, const Affine& offset, int counter = -1) { return {-1, buffer, offset, counter}; }

class PoolStages {
 public:
  PoolStages(const PoolPlan& p, const ChipConfig& chip) : p_(p), chip_(chip), bands_(row_classes(p.g, p.rows, p.bands())) {}

  Kernel build() {
    const sched::ConvGeometry& g = p_.g;
    k_.name = p_.name;
    k_.new_var("block_idx");
    k_.new_var("block_num");
    k_.tensors.push_back({p_.input->name, p_.in, {g.n, g.c1(), g.h, g.w, g.c0}, TensorRole::In});
    k_.tensors.push_back({p_.name, p_.out, {g.n, g.c1(), g.oh, g.ow, g.c0}, TensorRole::Out});
    k_.layouts.push_back({p_.input->name, TensorLayout::Kind::NC1HWC0, p_.in, {g.n, g.c, g.h, g.w}, g.c0, 1});
    k_.layouts.push_back({p_.name, TensorLayout::Kind::NC1HWC0, p_.out, {g.n, g.c, g.oh, g.ow}, g.c0, 1});
    const int64_t tp = p_.tile_planes, copies = p_.copies;
    const int64_t in_tile = tp * std::min(g.h, p_.in_rows(p_.rows)) * g.w * 32, out_pos = tp * p_.rows * g.ow * 32;
    in_ = k_.new_buffer("in_" + p_.input->name, Space::UB, in_tile, int(copies));
    if (p_.acc != p_.in) wide_ = k_.new_buffer("wide", Space::UB, in_tile * p_.blocks(p_.acc), 1);
    if (p_.acc != p_.out) acc_ = k_.new_buffer("acc", Space::UB, out_pos * p_.blocks(p_.acc), 1);
    out_ = k_.new_buffer("out", Space::UB, out_pos * p_.blocks(p_.out), int(copies));
    pool_ = std::make_unique<ScratchPool>(k_);

    const int64_t cores = p_.core_limit ? p_.core_limit : chip_.vector_cores();
    k_.block_dim = p_.cores ? int(std::min<int64_t>(cores, p_.tiles())) : 1;
    const int64_t ntp = (p_.planes + p_.tile_planes - 1) / p_.tile_planes;
    k_.body = tile_loop(k_, {{{"ptile", ntp}, {"band", p_.bands()}}, p_.copies - 1,
                             [&](const TileLoop::Index& at) { return dispatch(at, &PoolStages::fill); },
                             [&](const TileLoop::Index& at, bool with_fill) {
                               return dispatch(at, with_fill ? &PoolStages::fill_use : &PoolStages::use);
                             }});
    return std::move(k_);
  }

 private:
  // fill or use: the nodes of tile (band kind, planes, first plane, band).
  using TileFn = std::vector<Node> (PoolStages::*)(const RowClass&, int64_t, const Affine&, const Affine&);

  // f(band kind, planes, first plane, band) for the tile at (plane tile, band): a branch per kind
  // of band, and one for a last tile of fewer planes.
  std::vector<Node> dispatch(const TileLoop::Index& at, const TileFn& f) {
    const int64_t tp = p_.tile_planes, ntp = (p_.planes + tp - 1) / tp, rest = p_.planes - (ntp - 1) * tp;
    const Affine p0 = at[0] * tp, band = at[1];
    std::vector<Node> out;
    auto planes = [&](const RowClass& b) {
      return with_tail(at[0], ntp, tp, rest, [&](int64_t np) { return (this->*f)(b, np, p0, band); });
    };
    std::vector<Node> chain = planes(bands_.back());
    for (size_t i = bands_.size() - 1; i-- > 0;)
      chain = {when_less(band, bands_[i].last + 1, planes(bands_[i]), std::move(chain))};
    out += std::move(chain);
    return out;
  }

  // GM -> UB: the band's input rows of np planes, each row after its left padding.
  std::vector<Node> fill(const RowClass& b, int64_t np, const Affine& p0, const Affine& band) {
    const sched::ConvGeometry& g = p_.g;
    const Affine lo = band * b.row_step + Affine(b.in_row0);
    const Affine src = (p0 * (g.h * g.w) + lo * g.w) * 32;
    std::vector<Node> copies;
    auto copy = [&](const Affine& from, int64_t to, int64_t nburst, int64_t len, int64_t src_gap, int64_t dst_gap) {
      std::vector<Arg> args = {mem_arg(0), mem_arg(1), kw("nburst", imm(nburst)), kw("len", imm(len))};
      if (src_gap) args.push_back(kw("src_gap", imm(src_gap)));
      if (dst_gap) args.push_back(kw("dst_gap", imm(dst_gap)));
      copies.push_back(instr("copy_gm_ub", Pipe::MTE2, {ub(in_, Affine(to)), {kIn, -1, from}}, std::move(args)));
    };
    const int64_t len = b.in_rows * g.w, src_gap = (g.h - b.in_rows) * g.w;
    if (len <= 65535 && src_gap <= 65535 && np <= 4095) {
      copy(src, 0, np, len, src_gap, 0);  // a burst a plane
    } else {
      for (int64_t j = 0; j < np; ++j)
        for (int64_t r = 0; r < b.in_rows; r += 4095)
          copy(src + Affine((j * g.h + r) * g.w * 32), (j * b.in_rows + r) * g.w * 32, std::min<int64_t>(4095, b.in_rows - r), g.w, 0, 0);
    }
    return {scope({in_}, std::move(copies), Node::Phase::Fill)};
  }

  std::vector<Node> fill_use(const RowClass& b, int64_t np, const Affine& p0, const Affine& band) {
    std::vector<Node> out = fill(b, np, p0, band);
    return out += use(b, np, p0, band);
  }

  // V: the tile's window taps, scale and conversion; MTE3: its output rows.
  std::vector<Node> use(const RowClass& b, int64_t np, const Affine& p0, const Affine& band) {
    const sched::ConvGeometry& g = p_.g;
    std::vector<Node> v;
    const int64_t in_elems = np * b.in_rows * g.w * g.c0, out_elems = np * b.positions * g.c0;
    int src = in_;
    if (wide_ >= 0) {
      VectorOps ops(k_, *pool_, v, {1, in_elems, in_elems});
      ops.cast({VShape::Col, p_.acc, ub(wide_, Affine(0)), 0}, {VShape::Col, p_.in, ub(in_, Affine(0)), 0});
      src = wide_;
    }
    // Everything that writes the output buffer is inside its scope (the sync pass orders it after
    // the previous tile's store from the same copy).
    const int dst = acc_ >= 0 ? acc_ : out_;
    std::vector<Node> out_nodes;
    taps(out_nodes, b, np, src, dst);
    VectorOps ops(k_, *pool_, out_nodes, {1, out_elems, out_elems});
    VValue d{VShape::Col, p_.acc, ub(dst, Affine(0)), 0};
    if (p_.kind == PoolPlan::Kind::Sum && p_.scale != 1) ops.binary(VBinary::Mul, d, d, VValue::scalar(p_.acc, p_.scale));
    if (acc_ >= 0) ops.cast({VShape::Col, p_.out, ub(out_, Affine(0)), 0}, d);
    out_nodes.push_back(store(b, np, p0, band));
    v.push_back(scope({out_}, std::move(out_nodes)));
    return {scope({in_}, std::move(v), Node::Phase::Use)};
  }

  Node store(const RowClass& b, int64_t np, const Affine& p0, const Affine& band) {
    const sched::ConvGeometry& g = p_.g;
    const int64_t bo = p_.blocks(p_.out), blocks = np * b.positions * bo;
    const Affine first = (p0 * (g.oh * g.ow) + band * (p_.rows * g.ow)) * (32 * bo);
    std::vector<Arg> args = {mem_arg(0), mem_arg(1)};
    if (blocks <= 65535) {
      args.push_back(kw("len", imm(blocks)));
    } else {
      args.push_back(kw("nburst", imm(np * b.out_rows(g))));
      args.push_back(kw("len", imm(g.ow * bo)));
    }
    return instr("copy_ub_gm", Pipe::MTE3, {{kOut, -1, first}, ub(out_, Affine(0))}, std::move(args));
  }

  // One window tap: its source offset from a line's start (blocks), the lines and the output
  // columns that read the input through it (the others read padding: they are skipped, and the
  // output starts as the padding's value).
  struct Tap {
    int64_t offset = 0, first = 0, last = -1, x0 = 0, x1 = -1;
  };

  // dst = max (or +) over the window's taps of src, for every output position of the tile.
  void taps(std::vector<Node>& v, const RowClass& b, int64_t np, int src, int dst) {
    const sched::ConvGeometry& g = p_.g;
    const int64_t B = p_.blocks(p_.acc), plane_in = b.in_rows * g.w * B, plane_out = b.positions * B;
    // Lines of output positions: the tile's rows (of each plane), or its planes when a plane is one row.
    const bool plane_lines = np > 1 && b.out_rows(g) == 1;
    const int64_t outer = plane_lines ? 1 : np, lines = plane_lines ? np : b.out_rows(g);
    const int64_t src_line = plane_lines ? plane_in : g.sh * g.w * B;
    std::vector<Tap> taps;  // r.y outer, r.x inner (the sum's order)
    bool whole = true;      // every tap reads every output position
    for (int64_t i = 0; i < g.kh; ++i) {
      auto [first, last] = tap_rows(g, b, i);
      if (plane_lines) {  // the one output row: the tap reads every plane, or none
        const bool reads = first == 0 && last >= 0;
        first = 0, last = reads ? lines - 1 : -1;
      }
      for (int64_t j = 0; j < g.kw; ++j) {
        const int64_t at = j * g.dw - g.pad_left;  // the input column of output column 0
        auto [x0, x1] = outputs_reading(at, g.sw, g.w, g.ow);
        taps.push_back({((i * g.dh - b.pad_top) * g.w + at) * B, first, last, x0, x1});
        whole = whole && first == 0 && last == lines - 1 && x0 == 0 && x1 == g.ow - 1;
      }
    }
    std::vector<Node>* out = &v;
    std::vector<Node> inner;
    Affine so, dof;  // the plane's offsets (bytes), when planes are a loop
    int pl = -1;
    if (outer > 1) {
      pl = k_.new_var("plane");
      so = Affine::var(pl, plane_in * 32), dof = Affine::var(pl, plane_out * 32);
      out = &inner;
    }
    const Ref d = ub(dst, dof);
    const std::string m = vtyped(p_.kind == PoolPlan::Kind::Sum ? "vadd" : std::string("v") + p_.short_name(), p_.acc);
    auto at = [&](const Tap& t) { return ub(src, so + Affine(t.offset * 32)); };
    if (whole && taps.size() > 1) {  // dst = tap0 op tap1, then dst op= each
      tap_lines(*out, m, at(taps[0]), true, at(taps[1]), taps[0], src_line, d);
      for (size_t t = 2; t < taps.size(); ++t) tap_lines(*out, m, d, false, at(taps[t]), taps[t], src_line, d);
    } else if (whole && p_.kind != PoolPlan::Kind::Sum) {  // one tap: dst = max(tap, tap) (or min)
      tap_lines(*out, m, at(taps[0]), true, at(taps[0]), taps[0], src_line, d);
    } else {  // dst = the padding's value (0 for a sum), then dst op= each tap where it reads the input
      const int64_t e = plane_out / B * g.c0 * (plane_lines ? np : 1);  // elements of the lines
      VectorOps ops(k_, *pool_, *out, {1, e, e});
      ops.fill({VShape::Col, p_.acc, d, 0}, p_.kind == PoolPlan::Kind::Sum ? 0 : p_.pad_value);
      for (const Tap& t : taps)
        if (t.first <= t.last && t.x0 <= t.x1) tap_lines(*out, m, d, false, at(t), t, src_line, d);
    }
    if (outer > 1) v.push_back(loop(pl, Affine(0), Affine(outer), Affine(1), std::move(inner)));
  }

  // dst = a op c over the tap's lines and columns (`a_is_src`: a reads the input's strides, else
  // dst's): repeats along the lines when their strides fit a repeat stride, else an IR loop over
  // the lines with repeats along each; 8 output positions a repeat.
  void tap_lines(std::vector<Node>& v, const std::string& m, const Ref& a, bool a_is_src, const Ref& c, const Tap& t,
                 int64_t src_line, const Ref& dst) {
    const sched::ConvGeometry& g = p_.g;
    const int64_t B = p_.blocks(p_.acc), E = 32 / dtype_size(p_.acc), dst_line = g.ow * B;
    const bool by_lines = src_line <= kMaxRepeatStride && dst_line <= kMaxRepeatStride;
    auto plus = [](Ref r, const Affine& off) {
      r.offset = r.offset + off;
      return r;
    };
    // One instruction: n repeats from (s_off, d_off) bytes, `pos` positions a repeat.
    auto op = [&](std::vector<Node>& out, const Affine& s_off, const Affine& d_off, int64_t n, int64_t pos, int64_t src_rep,
                  int64_t dst_rep) {
      std::vector<Arg> args = {mem_arg(0), mem_arg(1), mem_arg(2), kw("repeat", imm(n)), kw("dst_blk", imm(B)),
                               kw("src0_blk", imm(a_is_src ? g.sw * B : B)), kw("src1_blk", imm(g.sw * B)),
                               kw("dst_rep", imm(dst_rep)), kw("src0_rep", imm(a_is_src ? src_rep : dst_rep)),
                               kw("src1_rep", imm(src_rep))};
      if (pos < 8) args.push_back(kw("mask", mask_count(pos * E)));
      out.push_back(instr(m, Pipe::V, {plus(dst, d_off), plus(a, a_is_src ? s_off : d_off), plus(c, s_off)}, std::move(args)));
    };
    const int64_t cols = t.x1 - t.x0 + 1;
    for (int64_t half = 0; half < B; ++half) {
      const int64_t s0 = t.x0 * g.sw * B + half, d0 = t.x0 * B + half;  // blocks
      if (by_lines) {
        for (int64_t g0 = 0; g0 < cols; g0 += 8)
          for (int64_t l0 = t.first; l0 <= t.last; l0 += 255)
            op(v, Affine((l0 * src_line + s0 + g0 * g.sw * B) * 32), Affine((l0 * dst_line + d0 + g0 * B) * 32),
               std::min<int64_t>(255, t.last - l0 + 1), std::min<int64_t>(8, cols - g0), src_line, dst_line);
        continue;
      }
      int line = k_.new_var("line");
      std::vector<Node> each;
      const Affine sl = Affine::var(line, src_line * 32), dl = Affine::var(line, dst_line * 32);
      const int64_t full = cols / 8, tail = cols % 8;
      for (int64_t g0 = 0; g0 < full; g0 += 255)
        op(each, sl + Affine((s0 + g0 * 8 * g.sw * B) * 32), dl + Affine((d0 + g0 * 8 * B) * 32),
           std::min<int64_t>(255, full - g0), 8, 8 * g.sw * B, 8 * B);
      if (tail)
        op(each, sl + Affine((s0 + full * 8 * g.sw * B) * 32), dl + Affine((d0 + full * 8 * B) * 32), 1, tail, 8 * g.sw * B,
           8 * B);
      v.push_back(loop(line, Affine(t.first), Affine(t.last + 1), Affine(1), std::move(each)));
    }
  }

  const PoolPlan& p_;
  const ChipConfig& chip_;
  std::vector<RowClass> bands_;
  Kernel k_;
  std::unique_ptr<ScratchPool> pool_;
  int in_ = -1, wide_ = -1, acc_ = -1, out_ = -1;
};

}  // namespace

Kernel lower_pool(const sched::StageGraph& graph, const ChipConfig& chip) { return PoolStages(*graph.pool, chip).build(); }

}  // namespace cubekit::codegen
