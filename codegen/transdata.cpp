#include "codegen/transdata.h"

#include "codegen/launch_width.h"

#include "codegen/tile_loop.h"
#include "codegen/lower.h"
#include "codegen/vector_ops.h"
#include "emulator/error.h"

#include <algorithm>

namespace cubekit::codegen {

bool transdata_on_device(const TensorLayout& l) {
  return l.kind == TensorLayout::Kind::NC1HWC0 && l.c0 == 16 && dtype_size(l.dtype) == 2;
}

std::string transdata_source(const TensorLayout& l, bool to_device) { return to_device ? l.tensor : l.tensor + "_nc1hwc0"; }
std::string transdata_result(const TensorLayout& l, bool to_device) { return to_device ? l.tensor + "_nc1hwc0" : l.tensor; }

namespace {

constexpr int kIn = 0, kOut = 1;
constexpr int64_t kMatrix = 512;  // bytes of one 16 x 16 matrix of 16-bit elements

Ref ub(int buffer, const Affine& offset, int counter = -1) { return {-1, buffer, offset, counter}; }

class TransDataBuilder {
 public:
  TransDataBuilder(const TensorLayout& l, bool to_device, const ChipConfig& chip, int core_limit)
      : l_(l), to_device_(to_device), chip_(chip), core_limit_(core_limit) {
    n_ = l.dims[0] * l.groups, c_ = l.dims[1] / l.groups, hw_ = l.dims[2] * l.dims[3];
    c1_ = (c_ + 15) / 16;
    // Positions per tile: as many as two copies of the tile in and out hold, at most a plane's.
    const int64_t fit = chip.buffer_size(Space::UB) / (4 * 32) / 16 * 16;
    p_ = std::min<int64_t>(std::min<int64_t>(fit, 2048), (hw_ + 15) / 16 * 16);
    groups_ = (hw_ + p_ - 1) / p_;
  }

  Kernel build() {
    k_.name = "transdata_" + l_.tensor;
    k_.new_var("block_idx");
    k_.new_var("block_num");
    std::vector<int64_t> nchw = {n_, c_, l_.dims[2], l_.dims[3]}, five = {n_, c1_, l_.dims[2], l_.dims[3], 16};
    k_.tensors.push_back({transdata_source(l_, to_device_), l_.dtype, to_device_ ? nchw : five, TensorRole::In});
    k_.tensors.push_back({transdata_result(l_, to_device_), l_.dtype, to_device_ ? five : nchw, TensorRole::Out});
    in_ = k_.new_buffer("in", Space::UB, p_ * 32, 2);
    out_ = k_.new_buffer("out", Space::UB, p_ * 32, 2);
    pool_ = std::make_unique<ScratchPool>(k_);
    const int64_t tiles = n_ * c1_ * groups_;
    k_.block_dim = int(std::min<int64_t>({chip_.vector_cores(), tiles, core_limit_}));
    std::vector<Node> body = zeroed();
    body += tile_loop(k_, {{{"image", n_}, {"c1", c1_}, {"group", groups_}}, 1,
                           [&](const TileLoop::Index& at) { return dispatch(at, &TransDataBuilder::fill); },
                           [&](const TileLoop::Index& at, bool with_fill) {
                             CUBEKIT_ASSERT(!with_fill, "TransData fills one tile ahead");
                             return dispatch(at, &TransDataBuilder::use);
                           }});
    k_.body = std::move(body);
    return std::move(k_);
  }

 private:
  struct Tile {
    Affine nchw, five;  // byte offsets of the tile's first channel row / first position
  };
  // fill or use: the nodes of tile (valid channels, positions, offsets).
  using TileFn = std::vector<Node> (TransDataBuilder::*)(int64_t, int64_t, const Tile&);

  // f(valid channels, positions, offsets) for the tile at (image, channel block, group of
  // positions): a branch for the last channel block (fewer channels) and for the last positions
  // of a plane (fewer positions).
  std::vector<Node> dispatch(const TileLoop::Index& index, const TileFn& f) {
    const Affine &n = index[0], &c1 = index[1], &g = index[2];
    std::vector<Node> out;
    Tile at{(n * (c_ * hw_) + c1 * (16 * hw_) + g * p_) * 2, ((n * c1_ + c1) * hw_ + g * p_) * 32};
    const int64_t last_c = c_ - (c1_ - 1) * 16, last_p = hw_ - (groups_ - 1) * p_;
    auto by_positions = [&](int64_t cv) {
      return with_tail(g, groups_, p_, last_p, [&](int64_t np) { return (this->*f)(cv, np, at); });
    };
    return out += with_tail(c1, c1_, 16, last_c, by_positions);
  }

  // Each channel's positions into row c of the 16 x 16 matrices (NCHW -> NC1HWC0), or the
  // positions' blocks as they lie (back).
  std::vector<Node> fill(int64_t cv, int64_t np, const Tile& t) {
    std::vector<Node> copies;
    if (!to_device_) {
      copies.push_back(instr("copy_gm_ub", Pipe::MTE2, {ub(in_, Affine(0)), {kIn, -1, t.five}},
                             {mem_arg(0), mem_arg(1), kw("len", imm(np))}));
      return {scope({in_}, std::move(copies), Node::Phase::Fill)};
    }
    const int64_t full = np / 16, tail = np % 16;
    for (int64_t c = 0; c < cv; ++c) {
      const Affine src = t.nchw + Affine(c * hw_ * 2);
      if (full)
        copies.push_back(instr("copy_gm_ub_pad", Pipe::MTE2, {ub(in_, Affine(c * 32)), {kIn, -1, src}},
                               {mem_arg(0), mem_arg(1), kw("nburst", imm(full)), kw("len", imm(32)), kw("dst_gap", imm(15))}));
      if (tail)
        copies.push_back(instr("copy_gm_ub_pad", Pipe::MTE2, {ub(in_, Affine(full * kMatrix + c * 32)), {kIn, -1, src + Affine(full * 32)}},
                               {mem_arg(0), mem_arg(1), kw("len", imm(tail * 2))}));
    }
    return {scope({in_}, std::move(copies), Node::Phase::Fill)};
  }

  // V: each matrix transposed (and the channels past C zeroed); MTE3: the result out.
  std::vector<Node> use(int64_t cv, int64_t np, const Tile& t) {
    std::vector<Node> v;
    const std::string m = vtyped("vtranspose", l_.dtype == DType::bf16 ? DType::s16 : DType::f16);
    for (int64_t j = 0; j < (np + 15) / 16; ++j)
      v.push_back(instr(m, Pipe::V, {ub(out_, Affine(j * kMatrix)), ub(in_, Affine(j * kMatrix))}, {mem_arg(0), mem_arg(1)}));
    if (to_device_ && cv < 16) {  // lanes c >= cv of every position: 8 positions a repeat
      uint64_t half = 0;
      for (int64_t i = 0; i < 64; ++i)
        if (i % 16 >= cv) half |= uint64_t(1) << i;
      const int64_t repeats = (np + 7) / 8;
      for (int64_t r0 = 0; r0 < repeats; r0 += 255)
        v.push_back(instr("vdup.f16", Pipe::V, {ub(out_, Affine(r0 * 256))},
                          {mem_arg(0), num(0), kw("repeat", imm(std::min<int64_t>(255, repeats - r0))), kw("mask", mask_bits(half, half))}));
    }
    v.push_back(store(cv, np, t));
    return {scope({in_}, {scope({out_}, std::move(v))}, Node::Phase::Use)};
  }

  std::vector<Node> store_rows(int64_t cv, int64_t np, const Tile& t) {
    std::vector<Node> out;
    const int64_t full = np / 16, tail = np % 16;
    for (int64_t c = 0; c < cv; ++c) {
      const Affine dst = t.nchw + Affine(c * hw_ * 2);
      if (full)
        out.push_back(instr("copy_ub_gm_pad", Pipe::MTE3, {{kOut, -1, dst}, ub(out_, Affine(c * 32))},
                            {mem_arg(0), mem_arg(1), kw("nburst", imm(full)), kw("len", imm(32)), kw("src_gap", imm(15))}));
      if (tail)
        out.push_back(instr("copy_ub_gm_pad", Pipe::MTE3, {{kOut, -1, dst + Affine(full * 32)}, ub(out_, Affine(full * kMatrix + c * 32))},
                            {mem_arg(0), mem_arg(1), kw("len", imm(tail * 2))}));
    }
    return out;
  }

  Node store(int64_t cv, int64_t np, const Tile& t) {
    if (to_device_)
      return instr("copy_ub_gm", Pipe::MTE3, {{kOut, -1, t.five}, ub(out_, Affine(0))}, {mem_arg(0), mem_arg(1), kw("len", imm(np))});
    return scope({}, store_rows(cv, np, t));
  }

  // Both copies of the input tile zeroed once: a channel or position a tile does not fill is
  // transposed too.
  std::vector<Node> zeroed() {
    std::vector<Node> out;
    int copy = k_.new_var("copy");
    for (int c = 0; c < 2; ++c) {
      out.push_back(let(copy, Affine(c), LetOp::Add, 0));
      const int64_t e = p_ * 16;
      VectorOps ops(k_, *pool_, out, {1, e, e});
      ops.fill({VShape::Col, DType::f16, ub(in_, Affine(0), copy), 0}, 0);
    }
    out.push_back(barrier(Pipe::All));  // outside every scope: MTE2 then writes these copies
    return out;
  }

  const TensorLayout& l_;
  const bool to_device_;
  const ChipConfig& chip_;
  const int64_t core_limit_;
  int64_t n_ = 0, c_ = 0, hw_ = 0, c1_ = 0, p_ = 16, groups_ = 1;
  Kernel k_;
  std::unique_ptr<ScratchPool> pool_;
  int in_ = -1, out_ = -1;
};

}  // namespace

Program compile_transdata(const TensorLayout& l, bool to_device, const ChipConfig& chip) {
  CUBEKIT_ASSERT(transdata_on_device(l), "TransData of {} is not a 16-bit NC1HWC0 map", l.str());
  auto at = [&](int cores) { return TransDataBuilder(l, to_device, chip, cores).build(); };
  return fit_width(at(chip.vector_cores()), chip, at).program;  // the cores worth starting (launch_width.h)
}

}  // namespace cubekit::codegen
