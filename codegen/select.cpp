#include "codegen/select.h"

#include "emulator/arith.h"
#include "emulator/error.h"

#include <fmt/format.h>

namespace cubekit::codegen {

namespace {


Ref at(const Ref& base, const Affine& extra) { return {base.tensor, base.buffer, base.offset + extra}; }

std::string typed(std::string_view mnemonic, DType a) { return fmt::format("{}.{}", mnemonic, dtype_name(a)); }

Arg mem0() { return mem_arg(0); }
Arg mem1() { return mem_arg(1); }
Arg mem2() { return mem_arg(2); }

class Selector {
 public:
  explicit Selector(Kernel& k) : k_(k) {}

  std::vector<Node> rewrite(std::vector<Node>& body) {
    std::vector<Node> out;
    for (Node& n : body) {
      switch (n.kind) {
        case Node::Kind::Move:
          for (Node& x : move(n)) out.push_back(std::move(x));
          break;
        case Node::Kind::Mmad: out.push_back(mmad(n)); break;
        default:
          n.body = rewrite(n.body);
          n.orelse = rewrite(n.orelse);
          out.push_back(std::move(n));
      }
    }
    return out;
  }

 private:
  std::vector<Node> move(const Node& n) {
    const View &s = n.src, &d = n.dst;
    if (s.layout == Layout::ND && d.layout == Layout::NZ) return {nd2nz(s, d)};
    if (s.layout == Layout::NZ && d.layout == Layout::ZZ) return to_l0a(s, d);
    if (s.layout == Layout::NZ && d.layout == Layout::ZN) return to_l0b(s, d);
    if (s.layout == Layout::NZ16 && d.layout == Layout::ND && k_.buffers[size_t(s.at.buffer)].space == Space::L0C)
      return {fixpipe(s, d, n.relu)};
    if (s.layout == Layout::NZ16 && d.layout == Layout::NZ16 && d.at.tensor >= 0) return store_blocks(s, d, n.relu);
    if (s.layout == Layout::NZ16 && d.layout == Layout::NZ16 && d.at.buffer >= 0) return {drain(s, d, n.relu)};
    if (s.layout == Layout::NZ16 && d.layout == Layout::ND && d.at.tensor >= 0) return store(s, d);
    CUBEKIT_ASSERT(false, "no instruction moves layout {} to {}", int(s.layout), int(d.layout));
  }

  // GM (row-major) -> L1 (NZ), zero-padding the tails.
  Node nd2nz(const View& s, const View& d) {
    return instr(typed("copy_gm_l1_nd2nz", s.dtype), Pipe::MTE2, {d.at, s.at},
                 {mem0(), mem1(), kw("rows", imm(s.rows)), kw("cols", imm(s.cols)), kw("src_stride", imm(s.ld)),
                  kw("dst_rows", imm(d.ld))});
  }

  // A loop over `count` instructions `make(index)` (no loop for one).
  template <class F>
  std::vector<Node> repeat(int64_t count, const char* name, F make) {
    if (count == 0) return {};
    if (count == 1) return {make(Affine(0))};
    int v = k_.new_var(name);
    return {loop(v, Affine(0), Affine(count), Affine(1), {make(Affine::var(v))})};
  }

  // L1 -> L0 fractal by fractal: the destination holds `outer` x `inner` fractals row-major, and
  // src(o, i) is the byte offset of fractal (o, i) in L1 (affine in o and i). One load2d walks one
  // row (`inner` fractals) or, when there are fewer of them, one column (`outer` fractals, with a
  // gap in the destination): the fewer instructions, the less the scalar unit stalls on a full
  // MTE1 queue.
  template <class Src>
  std::vector<Node> load2d(const View& s, const View& d, int64_t outer, int64_t inner, bool transpose, Src src) {
    auto make = [&](const Ref& to, const Ref& from, int64_t repeat, int64_t stride, int64_t gap) {
      std::vector<Arg> args = {mem0(), mem1(), kw("repeat", imm(repeat)), kw("src_stride", imm(stride))};
      if (gap) args.push_back(kw("dst_gap", imm(gap)));
      if (transpose) args.push_back(flag("transpose"));
      return instr(typed("load2d", s.dtype), Pipe::MTE1, {to, from}, std::move(args));
    };
    Affine origin = src(Affine(0), Affine(0));
    int64_t along_inner = (src(Affine(0), Affine(1)) - origin).c / 512, along_outer = (src(Affine(1), Affine(0)) - origin).c / 512;
    if (outer <= inner)
      return repeat(outer, "row", [&](const Affine& o) {
        return make(at(d.at, o * (inner * 512)), at(s.at, src(o, Affine(0))), inner, along_inner, 0);
      });
    return repeat(inner, "col", [&](const Affine& i) {
      return make(at(d.at, i * 512), at(s.at, src(Affine(0), i)), outer, along_outer, inner - 1);
    });
  }

  // L1 (NZ, `ld` stored rows per column block) -> L0A (zZ: mf x kf fractals).
  std::vector<Node> to_l0a(const View& s, const View& d) {
    int64_t c0 = 32 / dtype_size(s.dtype), kf = cdiv(s.cols, c0), mf = cdiv(s.rows, 16), R = s.ld;
    if (!s.transposed)  // stored (m, k): fractal (mb, kb) at (kb*R + mb*16) rows of 32 B
      return load2d(s, d, mf, kf, false, [&](const Affine& mb, const Affine& kb) {
        return s.col0 * (R * 32 / c0) + kb * (R * 32) + mb * 512;
      });
    // stored (k, m): fractal (kb, mb) at (mb*R + kb*16) rows; transpose each
    return load2d(s, d, mf, kf, true, [&](const Affine& mb, const Affine& kb) { return mb * (R * 32) + s.col0 * 32 + kb * 512; });
  }

  // L1 (NZ) -> L0B (zN: kf x nf fractals).
  std::vector<Node> to_l0b(const View& s, const View& d) {
    int64_t c0 = 32 / dtype_size(s.dtype), kf = cdiv(s.rows, c0), nf = cdiv(s.cols, 16), R = s.ld;
    if (!s.transposed)  // stored (k, n): fractal (kb, nb) at (nb*R + kb*16) rows; transpose each
      return load2d(s, d, kf, nf, true, [&](const Affine& kb, const Affine& nb) { return s.row0 * 32 + kb * 512 + nb * (R * 32); });
    // stored (n, k): fractal (nb, kb) at (kb*R + nb*16) rows: already zN
    return load2d(s, d, kf, nf, false, [&](const Affine& kb, const Affine& nb) {
      return s.row0 * (R * 32 / c0) + kb * (R * 32) + nb * 512;
    });
  }

  Node mmad(const Node& n) {
    std::vector<Arg> args = {mem0(), mem1(), mem2(), kw("m", imm(n.m)), kw("n", imm(n.n)), kw("k", imm(n.k))};
    if (n.init) args.push_back(flag("init"));
    return instr(typed("mmad", n.in_type), Pipe::M, {n.c, n.lhs, n.rhs}, std::move(args));
  }

  // Whole fractal columns of L0C (NZ16: each column's fractals contiguous) -> UB, cast on the way.
  Node drain(const View& s, const View& d, bool relu) {
    int64_t mf = s.ld / 16;
    std::vector<Arg> args = {mem0(), mem1(), kw("len", imm(mf * cdiv(s.cols, 16)))};
    if (relu) args.push_back(flag("relu"));
    return instr(fmt::format("mov_l0c_ub.{}.{}", dtype_name(d.dtype), dtype_name(s.dtype)), Pipe::V,
                 {d.at, at(s.at, s.col0 * (mf * 64))}, std::move(args));
  }

  // L0C (NZ16, `ld` rows per fractal column) -> GM rows `ld` elements apart, on the split cube
  // cores' FixPipe: cast (and ReLU) on the way.
  Node fixpipe(const View& s, const View& d, bool relu) {
    std::vector<Arg> args = {mem0(), mem1(), kw("m", imm(s.rows)), kw("n", imm(s.cols)), kw("src_stride", imm(s.ld)),
                             kw("dst_stride", imm(d.ld))};
    if (relu) args.push_back(flag("relu"));
    return instr(fmt::format("fixpipe.{}.{}", dtype_name(s.dtype), dtype_name(d.dtype)), Pipe::FIX,
                 {d.at, at(s.at, s.col0 * (s.ld / 16 * 64))}, std::move(args));
  }

  // UB (NZ16: `ld` rows of 16 elements per fractal column) -> GM rows, one copy per fractal
  // column, byte-granular on the GM side.
  std::vector<Node> store(const View& s, const View& d) {
    int64_t size = dtype_size(d.dtype), column = s.ld * 16 * size;
    auto copy = [&](const Affine& cb, int64_t cols) {
      int64_t len = cols * size, src_gap = 16 * size / 32 - cdiv(len, 32), dst_gap = (d.ld - cols) * size;
      return instr("copy_ub_gm_pad", Pipe::MTE3, {at(d.at, cb * (16 * size)), at(s.at, cb * column)},
                   {mem0(), mem1(), kw("nburst", imm(s.rows)), kw("len", imm(len)), kw("src_gap", imm(src_gap)),
                    kw("dst_gap", imm(dst_gap))});
    };
    std::vector<Node> out = repeat(s.cols / 16, "column", [&](const Affine& cb) { return copy(cb, 16); });
    if (s.cols % 16) out.push_back(copy(Affine(s.cols / 16), s.cols % 16));
    return out;
  }

  // NZ16 (L0C on the FixPipe, or UB) -> GM NZ16 (`ld` rows per 16-column block: a conv's
  // NC1HWC0 output): each block's rows are contiguous, so one burst per block from UB, one
  // FixPipe move per block from L0C.
  std::vector<Node> store_blocks(const View& s, const View& d, bool relu) {
    int64_t size = dtype_size(d.dtype), blocks = cdiv(s.cols, 16);
    CUBEKIT_ASSERT(s.rows * 16 * size % 32 == 0, "{} rows of 16 {} are not whole 32-byte blocks", s.rows, dtype_name(d.dtype));
    auto blocks32 = [&](int64_t rows) { return rows * 16 * size / 32; };
    const int64_t images = d.images, rows = s.rows / images;  // stacked images: a run of rows each
    if (k_.buffers[size_t(s.at.buffer)].space == Space::L0C)
      return repeat(blocks, "block", [&](const Affine& cb) {
        std::vector<Node> moves;
        for (int64_t i = 0; i < images; ++i) {
          View from = s, to = d;
          from.cols = 16, from.col0 = s.col0 + cb * 16, from.rows = rows;
          from.at = at(s.at, Affine(i * rows * 16 * dtype_size(s.dtype)));
          to.at = at(d.at, cb * (d.ld * 16 * size) + Affine(i * d.image_ld * size)), to.cols = 16, to.ld = 16, to.rows = rows;
          moves.push_back(fixpipe(from, to, relu));
        }
        return images == 1 ? std::move(moves[0]) : scope({}, std::move(moves));
      });
    if (images > 1)  // per block: a burst per image
      return repeat(blocks, "block", [&](const Affine& cb) {
        return instr("copy_ub_gm", Pipe::MTE3, {at(d.at, cb * (d.ld * 16 * size)), at(s.at, cb * (s.ld * 16 * size))},
                     {mem0(), mem1(), kw("nburst", imm(images)), kw("len", imm(blocks32(rows))),
                      kw("dst_gap", imm(blocks32(d.image_ld / 16 - rows)))});
      });
    return {instr("copy_ub_gm", Pipe::MTE3, {d.at, s.at},
                  {mem0(), mem1(), kw("nburst", imm(blocks)), kw("len", imm(blocks32(s.rows))),
                   kw("src_gap", imm(blocks32(s.ld - s.rows))), kw("dst_gap", imm(blocks32(d.ld - s.rows)))})};
  }

  Kernel& k_;
};

}  // namespace

void select_instructions(Kernel& kernel, const ChipConfig&) {
  kernel.body = Selector(kernel).rewrite(kernel.body);
  kernel.vector_body = Selector(kernel).rewrite(kernel.vector_body);
}

}  // namespace cubekit::codegen
