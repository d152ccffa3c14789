#include "codegen/select.h"

#include "emulator/error.h"

#include <fmt/format.h>

namespace cubekit::codegen {

namespace {

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

Ref at(const Ref& base, const Affine& extra) { return {base.tensor, base.buffer, base.offset + extra}; }

std::string typed(std::string_view mnemonic, DType a) { return fmt::format("{}.{}", mnemonic, dtype_name(a)); }

Arg mem0() { return {.kind = Arg::Kind::Mem, .name = "#0"}; }
Arg mem1() { return {.kind = Arg::Kind::Mem, .name = "#1"}; }
Arg mem2() { return {.kind = Arg::Kind::Mem, .name = "#2"}; }

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
    if (s.layout == Layout::NZ16 && d.layout == Layout::ND) return {drain(s, d, n.relu)};
    if (s.layout == Layout::ND && d.layout == Layout::ND && d.at.tensor >= 0) return {store(s, d)};
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
    if (count == 1) return {make(Affine(0))};
    int v = k_.new_var(name);
    return {loop(v, Affine(0), Affine(count), Affine(1), {make(Affine::var(v))})};
  }

  // L1 (NZ, `ld` stored rows per column block) -> L0A (zZ): one load2d per row of fractals.
  std::vector<Node> to_l0a(const View& s, const View& d) {
    int64_t c0 = 32 / dtype_size(s.dtype), kf = cdiv(s.cols, c0), mf = cdiv(s.rows, 16), R = s.ld;
    return repeat(mf, "mf", [&](const Affine& mb) {
      if (!s.transposed)  // stored (m, k): fractal (mb, kb) at (kb*R + mb*16) rows of 32 B
        return instr(typed("load2d", s.dtype), Pipe::MTE1,
                     {at(d.at, mb * (kf * 512)), at(s.at, s.col0 * (R * 32 / c0) + mb * 512)},
                     {mem0(), mem1(), kw("repeat", imm(kf)), kw("src_stride", imm(R / 16))});
      // stored (k, m): fractal (kb, mb) at (mb*R + kb*16) rows; transpose each
      return instr(typed("load2d", s.dtype), Pipe::MTE1, {at(d.at, mb * (kf * 512)), at(s.at, mb * (R * 32) + s.col0 * 32)},
                   {mem0(), mem1(), kw("repeat", imm(kf)), kw("src_stride", imm(1)), flag("transpose")});
    });
  }

  // L1 (NZ) -> L0B (zN): one load2d per row of fractals (a k-step of the tile).
  std::vector<Node> to_l0b(const View& s, const View& d) {
    int64_t c0 = 32 / dtype_size(s.dtype), kf = cdiv(s.rows, c0), nf = cdiv(s.cols, 16), R = s.ld;
    return repeat(kf, "kf", [&](const Affine& kb) {
      if (!s.transposed)  // stored (k, n): fractal (kb, nb) at (nb*R + kb*16) rows; transpose each
        return instr(typed("load2d", s.dtype), Pipe::MTE1, {at(d.at, kb * (nf * 512)), at(s.at, s.row0 * 32 + kb * 512)},
                     {mem0(), mem1(), kw("repeat", imm(nf)), kw("src_stride", imm(R / 16)), flag("transpose")});
      // stored (n, k): fractal (nb, kb) at (kb*R + nb*16) rows: already zN
      return instr(typed("load2d", s.dtype), Pipe::MTE1,
                   {at(d.at, kb * (nf * 512)), at(s.at, s.row0 * (R * 32 / c0) + kb * (R * 32))},
                   {mem0(), mem1(), kw("repeat", imm(nf)), kw("src_stride", imm(1))});
    });
  }

  Node mmad(const Node& n) {
    std::vector<Arg> args = {mem0(), mem1(), mem2(), kw("m", imm(n.m)), kw("n", imm(n.n)), kw("k", imm(n.k))};
    if (n.init) args.push_back(flag("init"));
    return instr(typed("mmad", n.in_type), Pipe::M, {n.c, n.lhs, n.rhs}, std::move(args));
  }

  // One 16-column strip of L0C (NZ: its fractals are contiguous) -> UB, cast on the way.
  Node drain(const View& s, const View& d, bool relu) {
    int64_t mf = s.ld / 16;
    std::vector<Arg> args = {mem0(), mem1(), kw("len", imm(mf))};
    if (relu) args.push_back(flag("relu"));
    return instr(fmt::format("mov_l0c_ub.{}.{}", dtype_name(d.dtype), dtype_name(s.dtype)), Pipe::V,
                 {d.at, at(s.at, s.col0 * (mf * 64))}, std::move(args));
  }

  // UB rows -> GM rows, byte-granular on the GM side.
  Node store(const View& s, const View& d) {
    int64_t size = dtype_size(d.dtype), len = s.cols * size;
    int64_t src_gap = s.ld * size / 32 - cdiv(len, 32), dst_gap = (d.ld - s.cols) * size;
    return instr("copy_ub_gm_pad", Pipe::MTE3, {d.at, s.at},
                 {mem0(), mem1(), kw("nburst", imm(s.rows)), kw("len", imm(len)), kw("src_gap", imm(src_gap)),
                  kw("dst_gap", imm(dst_gap))});
  }

  Kernel& k_;
};

}  // namespace

void select_instructions(Kernel& kernel, const ChipConfig&) { kernel.body = Selector(kernel).rewrite(kernel.body); }

}  // namespace cubekit::codegen
