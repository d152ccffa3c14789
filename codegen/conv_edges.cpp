#include "codegen/conv_edges.h"

#include "emulator/error.h"

#include <fmt/format.h>

#include <algorithm>

namespace cubekit::codegen {

using sched::round_up;

Affine rescale(const Affine& a, int64_t den, int64_t num) {
  CUBEKIT_ASSERT(a.c % den == 0, "rescale: {} is not a multiple of {}", a.c, den);
  Affine out(a.c / den * num);
  for (auto [v, c] : a.terms) {
    CUBEKIT_ASSERT(c % den == 0, "rescale: coefficient {} is not a multiple of {}", c, den);
    out = out + Affine::var(v, c / den * num);
  }
  return out;
}

void conv_tensors(const sched::ContractionPlan& p, std::vector<int64_t>& a, std::vector<int64_t>& b,
                  std::vector<int64_t>& out, std::vector<TensorLayout>& layouts) {
  const sched::ConvGeometry& g = p.c.g;
  int64_t G = g.groups;
  a = {g.n, G * g.c1(), g.h, g.w, g.c0};
  b = {G * g.c1() * g.kh * g.kw, g.k16() / 16, 16, g.c0};
  out = {g.n, G * g.k16() / 16, g.oh, g.ow, 16};
  layouts.push_back({p.c.a->name, TensorLayout::Kind::NC1HWC0, p.c.in, {g.n, G * g.c, g.h, g.w}, g.c0, G});
  layouts.push_back({p.c.b->name, TensorLayout::Kind::FractalZ, p.c.in, {G * g.k, g.c, g.kh, g.kw}, g.c0, G});
  layouts.push_back({p.func_name, TensorLayout::Kind::NC1HWC0, p.c.out, {g.n, G * g.k, g.oh, g.ow}, 16, G});
}

std::vector<int64_t> conv_input_tensor(const sched::ContractionPlan& p, const sched::ContractionPlan::EpilogueInput& e,
                                       std::vector<TensorLayout>& layouts) {
  const sched::ConvGeometry& g = p.c.g;
  int64_t G = g.groups;
  if (e.tile) {
    layouts.push_back({e.input->name, TensorLayout::Kind::NC1HWC0, e.input->dtype, {g.n, G * g.k, g.oh, g.ow}, 16, G});
    return {g.n, G * g.k16() / 16, g.oh, g.ow, 16};
  }
  layouts.push_back({e.input->name, TensorLayout::Kind::Padded, e.input->dtype, {G * g.k, 1, 1, 1}, 16, G});
  return {G * g.k16()};
}

namespace {

std::string typed(std::string_view mnemonic, DType t) { return fmt::format("{}.{}", mnemonic, dtype_name(t)); }

Ref at(int tensor, int buffer, const Affine& offset) { return {tensor, buffer, offset}; }

}  // namespace

std::vector<Node> ConvEdges::fill_a(const RowClass& r, const Affine& ba, const Affine& in_row0, const Affine& k1, int64_t kt1) const {
  const sched::ConvGeometry& g = p.c.g;
  int64_t c1n = kt1 / g.window(), plane = g.h * g.w * 32, row = g.w * 32;
  Affine src = ba * dtype_size(p.c.in) + rescale(k1, g.window(), plane) + in_row0 * row;
  int64_t gap = (g.h - r.in_rows) * g.w;
  auto copy = [&](const Affine& from, const Affine& to, int64_t bursts) {
    return instr("copy_gm_l1", Pipe::MTE2, {at(-1, l1a, to), at(a_tensor, -1, from)},
                 {mem_arg(0), mem_arg(1), kw("nburst", imm(bursts)), kw("len", imm(r.in_rows * g.w)),
                  kw("src_gap", imm(gap))});
  };
  if (g.skips_rows()) return fill_skipping_rows(r, src, c1n);
  if (r.images > 1) {  // each image's rows of every channel block, below the previous image's
    std::vector<Node> each;
    const int64_t image = g.groups * g.c1() * plane, rows = r.in_rows / r.images;
    for (int64_t i = 0; i < r.images; ++i)
      each.push_back(instr("copy_gm_l1", Pipe::MTE2, {at(-1, l1a, Affine(i * rows * row)), at(a_tensor, -1, src + Affine(i * image))},
                           {mem_arg(0), mem_arg(1), kw("nburst", imm(c1n)), kw("len", imm(rows * g.w)),
                            kw("dst_gap", imm((r.in_rows - rows) * g.w))}));
    return each;
  }
  if (gap <= 65535 && c1n <= 4095) return {copy(src, Affine(0), c1n)};
  // A gap past the copy's reach: one copy per channel block.
  std::vector<Node> each;
  for (int64_t c = 0; c < c1n; ++c) each.push_back(copy(src + Affine(c * plane), Affine(c * r.in_rows * row), 1));
  return each;
}

// Every sh-th input row (ConvGeometry::skips_rows) of a tile of one image's rows, h = rows * sh:
// the blocks continue the rows' pattern, burst b (row b % rows of block b / rows) is GM row b * sh.
std::vector<Node> ConvEdges::fill_skipping_rows(const RowClass& r, const Affine& src, int64_t c1n) const {
  const sched::ConvGeometry& g = p.c.g;
  CUBEKIT_ASSERT(r.images == 1 && g.h == r.in_rows * g.sh, "row skipping needs a tile of one image's every row");
  const int64_t bursts = c1n * r.in_rows, gap = (g.sh - 1) * g.w, row = g.w * 32;
  const int64_t step = gap <= 65535 ? 4095 : 1;  // a gap past the copy's reach: a copy per row
  std::vector<Node> out;
  for (int64_t b = 0; b < bursts; b += step)
    out.push_back(instr("copy_gm_l1", Pipe::MTE2, {at(-1, l1a, Affine(b * row)), at(a_tensor, -1, src + Affine(b * g.sh * row))},
                        {mem_arg(0), mem_arg(1), kw("nburst", imm(std::min(step, bursts - b))), kw("len", imm(g.w)),
                         kw("src_gap", imm(step > 1 ? gap : 0))}));
  return out;
}

Node ConvEdges::fill_b(const Affine& bb, const Affine& n0, int64_t nt, const Affine& k1, int64_t kt1) const {
  const sched::ConvGeometry& g = p.c.g;
  int64_t n1 = g.k16() / 16, nf = round_up(nt, 16) / 16;
  Affine src = bb * dtype_size(p.c.in) + rescale(k1, g.c0, n1 * 512) + n0 * 32;
  return instr("copy_gm_l1", Pipe::MTE2, {at(-1, l1b, Affine(0)), at(b_tensor, -1, src)},
               {mem_arg(0), mem_arg(1), kw("nburst", imm(kt1 / g.c0)), kw("len", imm(nf * 16)),
                kw("src_gap", imm((n1 - nf) * 16))});
}

std::vector<Node> ConvEdges::use(const RowClass& r, int64_t mt, int64_t nt, int64_t kt1, bool first, int l0c) const {
  const sched::ConvGeometry& g = p.c.g;
  std::vector<Node> out = {instr("set_fmatrix", Pipe::S, {},
                                 {kw("h", imm(r.in_rows)), kw("w", imm(g.w)), kw("pad_top", imm(r.pad_top)),
                                  kw("pad_bottom", imm(r.pad_bottom)), kw("pad_left", imm(g.pad_left)),
                                  kw("pad_right", imm(g.pad_right))})};
  int64_t nf = round_up(nt, 16) / 16;
  for (int64_t k0 = 0; k0 < kt1; k0 += tk_l0) {
    int64_t kt0 = std::min(tk_l0, kt1 - k0);
    std::vector<Node> body = {instr(typed("load3d", p.c.in), Pipe::MTE1, {at(-1, l0a, Affine(0)), at(-1, l1a, Affine(0))},
                                    {mem_arg(0), mem_arg(1), kw("c1", imm(kt1 / g.window())), kw("kh", imm(g.kh)),
                                     kw("kw", imm(g.kw)), kw("sh", imm(g.l1_sh())), kw("sw", imm(g.sw)), kw("dh", imm(g.dh)),
                                     kw("dw", imm(g.dw)), kw("m_len", imm(round_up(mt, 16))), kw("k_start", imm(k0)),
                                     kw("k_len", imm(kt0))})};
    int64_t from = k0 / g.c0 * nf, count = kt0 / g.c0 * nf;
    for (int64_t i = 0; i < count; i += 255)
      body.push_back(instr(typed("load2d", p.c.in), Pipe::MTE1, {at(-1, l0b, Affine(i * 512)), at(-1, l1b, Affine((from + i) * 512))},
                           {mem_arg(0), mem_arg(1), kw("repeat", imm(std::min<int64_t>(255, count - i)))}));
    Node mmad{Node::Kind::Mmad};
    mmad.c = {-1, l0c, 0}, mmad.lhs = {-1, l0a, 0}, mmad.rhs = {-1, l0b, 0};
    mmad.m = mt, mmad.n = nt, mmad.k = kt0, mmad.init = first && k0 == 0, mmad.in_type = p.c.in;
    body.push_back(mmad);
    out.push_back(scope({l0a, l0b}, std::move(body)));
  }
  return out;
}

}  // namespace cubekit::codegen
