#include "codegen/vector_ops.h"

#include "emulator/arith.h"
#include "emulator/error.h"
#include "emulator/program.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace cubekit::codegen {

namespace {

Ref plus(const Ref& r, const Affine& bytes) { return {r.tensor, r.buffer, r.offset + bytes, r.counter}; }
Arg repeat(int64_t n) { return kw("repeat", imm(n)); }
void with_mask(std::vector<Arg>& args, int64_t mask) {
  if (mask) args.push_back(kw("mask", mask_count(mask)));
}

const char* binary_mnemonic(VBinary op) {
  static constexpr const char* m[] = {"vadd", "vsub", "vmul", "vdiv", "vmin", "vmax"};
  return m[int(op)];
}
const char* reduce_mnemonic(VReduce op) {
  static constexpr const char* m[] = {"vcadd", "vcmax", "vcmin"};
  return m[int(op)];
}
const char* compare_name(VCompare c) {
  static constexpr const char* m[] = {"lt", "le", "gt", "ge", "eq", "ne"};
  return m[int(c)];
}

}  // namespace

std::string vtyped(std::string_view mnemonic, DType t) { return fmt::format("{}.{}", mnemonic, dtype_name(t)); }

int ScratchPool::take(int64_t bytes, bool held) {
  auto best = free_.end();
  for (auto it = free_.begin(); it != free_.end(); ++it)
    if (k_.buffers[size_t(*it)].bytes >= bytes && (best == free_.end() || k_.buffers[size_t(*it)].bytes < k_.buffers[size_t(*best)].bytes))
      best = it;
  if (best != free_.end() && !(held && k_.buffers[size_t(*best)].bytes > 2 * round_up(bytes, 32))) {
    int b = *best;
    free_.erase(best);
    spread_only_.erase(b);
    return b;
  }
  int b = k_.new_buffer(fmt::format("V{}", all_.size()), Space::UB, round_up(bytes, 32), 1);
  all_.push_back(b);
  if (held) spread_only_.insert(b);
  return b;
}

void ScratchPool::give(int buffer) {
  if (std::count(all_.begin(), all_.end(), buffer) && !std::count(free_.begin(), free_.end(), buffer)) free_.push_back(buffer);
}

int64_t VectorOps::count(VShape s) const {
  switch (s) {
    case VShape::Full: return t_.rows * t_.pitch;
    case VShape::Row: return t_.rows;
    // On an L0C strip the per-column values are loaded `cols` wide (the strip's last fractal is
    // padded), and broadcasts read only those: computing the padding would read unwritten UB.
    case VShape::Col: return t_.nz ? t_.cols : t_.pitch;
    case VShape::Scalar: return 0;
  }
  return 0;
}

int64_t vbytes(VShape s, DType t, const VTile& tile) {
  int64_t size = dtype_size(t);
  switch (s) {
    case VShape::Full: return round_up(tile.rows * tile.pitch * size, 32);
    case VShape::Row: return round_up(round_up(tile.rows, 8) * size, 32);  // vbrcb reads 8 at a time
    case VShape::Col: return round_up(tile.pitch * size, 32);
    case VShape::Scalar: return 0;
  }
  return 0;
}

VectorOps::~VectorOps() {
  for (const auto& [from, to] : spread_) pool_.give(to);
}

VValue VectorOps::temp(VShape s, DType t) { return {s, t, {-1, pool_.take(bytes(s, t)), Affine(0)}, 0}; }

void VectorOps::done(const VValue& v) {
  if (v.shape == VShape::Scalar || v.at.buffer < 0) return;
  std::erase_if(spread_, [&](const auto& e) { return e.first == v.at.buffer || e.second == v.at.buffer; });
  pool_.give(v.at.buffer);
}

void VectorOps::emit(const std::string& mnemonic, std::vector<Ref> mems, std::vector<Arg> args) {
  // A Row value overwritten (an op in place: G + P into G's buffer) is no longer what its cached
  // spread holds: the next spread of the buffer is made afresh.
  if (!mems.empty() && mems[0].buffer >= 0)
    std::erase_if(spread_, [&](const auto& e) {
      if (e.first != mems[0].buffer) return false;
      pool_.give(e.second);
      return true;
    });
  std::vector<Arg> all;
  for (size_t i = 0; i < mems.size(); ++i) all.push_back(mem_arg(int(i)));
  for (Arg& a : args) all.push_back(std::move(a));
  out_->push_back(instr(mnemonic, Pipe::V, std::move(mems), std::move(all)));
}

void VectorOps::pieces(int64_t n, DType t, const std::function<void(int64_t, int64_t, int64_t)>& make) {
  int64_t epr = per_repeat(t), full = n / epr, tail = n % epr;
  for (int64_t done = 0; done < full; done += 255) make(done * 256, std::min<int64_t>(255, full - done), 0);
  if (tail) make(full * 256, 1, tail);
}

void VectorOps::each_row(const std::function<void(const Affine&)>& f) {
  if (t_.rows == 1) return f(Affine(0));
  std::vector<Node>* outer = out_;
  std::vector<Node> body;
  out_ = &body;
  int v = k_.new_var("row");
  f(Affine::var(v));
  out_ = outer;
  out_->push_back(loop(v, Affine(0), Affine(t_.rows), Affine(1), std::move(body)));
}

bool VectorOps::by_columns(DType t, int64_t stride, const std::function<void(int64_t, int64_t, int64_t, int64_t)>& make) {
  const int64_t epr = per_repeat(t), chunks = (t_.pitch + epr - 1) / epr;
  if (stride % 32 || stride / 32 > kMaxRepeatStride || (chunks > 1 && chunks >= t_.rows)) return false;
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t valid = std::min(epr, t_.pitch - c * epr);
    for (int64_t r0 = 0; r0 < t_.rows; r0 += 255) make(c * 256, r0, std::min<int64_t>(255, t_.rows - r0), valid < epr ? valid : 0);
  }
  return true;
}

void VectorOps::unary(const char* mnemonic, const VValue& dst, const VValue& a) {
  CUBEKIT_ASSERT(dst.shape == a.shape && dst.dtype == a.dtype, "vector unary on different shapes or types");
  std::string m = vtyped(mnemonic, a.dtype);
  pieces(count(a.shape), a.dtype, [&](int64_t off, int64_t rep, int64_t mask) {
    std::vector<Arg> args = {repeat(rep)};
    with_mask(args, mask);
    emit(m, {plus(dst.at, off), plus(a.at, off)}, std::move(args));
  });
}

void VectorOps::fill(const VValue& dst, double value) {
  std::string m = vtyped("vdup", dst.dtype);
  pieces(count(dst.shape), dst.dtype, [&](int64_t off, int64_t rep, int64_t mask) {
    std::vector<Arg> args = {num(value), repeat(rep)};
    with_mask(args, mask);
    emit(m, {plus(dst.at, off)}, std::move(args));
  });
}

void VectorOps::cast(const VValue& dst, const VValue& a) {
  CUBEKIT_ASSERT(dst.shape == a.shape, "vector cast between shapes");
  // A copy (flash attention's f32 output of its f32 statistics): x * 1 is x, -0 included.
  if (dst.dtype == a.dtype) {
    const bool f = is_float(a.dtype);
    return binary_scalar(f ? VBinary::Mul : VBinary::Add, dst, a, f ? 1.0 : 0.0, false);
  }
  int64_t sd = size(dst.dtype), ss = size(a.dtype), epr = 256 / std::max(sd, ss), n = count(a.shape);
  std::string m = fmt::format("vconv.{}.{}", dtype_name(dst.dtype), dtype_name(a.dtype));
  // Halide's float -> integer cast truncates; float -> float rounds to nearest even.
  bool truncate = is_float(a.dtype) && !is_float(dst.dtype);
  int64_t full = n / epr, tail = n % epr;
  auto piece = [&](int64_t first, int64_t rep, int64_t mask) {
    std::vector<Arg> args = {repeat(rep), kw("dst_rep", imm(epr * sd / 32)), kw("src_rep", imm(epr * ss / 32))};
    with_mask(args, mask);
    if (truncate) args.push_back(kw("round", name("trunc")));
    emit(m, {plus(dst.at, first * sd), plus(a.at, first * ss)}, std::move(args));
  };
  for (int64_t done = 0; done < full; done += 255) piece(done * epr, std::min<int64_t>(255, full - done), 0);
  if (tail) piece(full * epr, 1, tail);
}

void VectorOps::binary_same(const std::string& m, const VValue& dst, const VValue& a, const VValue& b, int64_t n) {
  pieces(n, a.dtype, [&](int64_t off, int64_t rep, int64_t mask) {
    std::vector<Arg> args = {repeat(rep)};
    with_mask(args, mask);
    emit(m, {plus(dst.at, off), plus(a.at, off), plus(b.at, off)}, std::move(args));
  });
}

void VectorOps::binary_scalar(VBinary op, const VValue& dst, const VValue& a, double c, bool scalar_first) {
  auto vs = [&](const char* m, const VValue& src, double value) {
    pieces(count(src.shape), src.dtype, [&](int64_t off, int64_t rep, int64_t mask) {
      std::vector<Arg> args = {num(value), repeat(rep)};
      with_mask(args, mask);
      emit(vtyped(m, src.dtype), {plus(dst.at, off), plus(src.at, off)}, std::move(args));
    });
  };
  switch (op) {
    case VBinary::Add: return vs("vadds", a, c);
    case VBinary::Mul: return vs("vmuls", a, c);
    case VBinary::Min: return vs("vmins", a, c);
    case VBinary::Max: return vs("vmaxs", a, c);
    case VBinary::Sub:
      if (!scalar_first) return vs("vadds", a, -c);
      vs("vmuls", a, -1.0);  // c - a = -a + c
      return vs("vadds", dst, c);
    case VBinary::Div: {
      // x / c as x * (1 / c) where 1 / c is a normal number of the type (exact for a power of
      // two, else within an ulp); 1 / x as vrec. Otherwise a vdiv by c in a tile of its own:
      // 1 / c rounded into f16's subnormals gave results off by a percent.
      // A Row (one value a row: a mean, a variance) is divided exactly, a fill and a vdiv of a few
      // elements: layernorm's mean of a row of 1000s was 1000.00006 as sum * (1 / 7), and each
      // normalised element -0.019, not 0.
      const double r = std::fabs(1.0 / c);  // normal in the type: neither past its range nor subnormal
      const bool exact = a.shape == VShape::Row;
      if (!scalar_first && !exact && r >= smallest_normal(a.dtype) && r <= largest_finite(a.dtype)) return vs("vmuls", a, 1.0 / c);
      if (scalar_first && c == 1.0) return unary("vrec", dst, a);
      // c / x otherwise a vdiv: c * (1 / x) overflowed where 1 / x does (3e-39 / 1e-39 was inf, not 3).
      const VValue k = temp(a.shape, a.dtype);
      fill(k, c);
      binary_same(vtyped("vdiv", a.dtype), dst, scalar_first ? k : a, scalar_first ? a : k, count(a.shape));
      return done(k);
    }
  }
}

// The Row operand spread to a 32 B block per row (vbrcb), cached until its buffer is released.
int VectorOps::spread(const VValue& row) {
  for (const auto& [from, to] : spread_)
    if (from == row.at.buffer) return to;
  int bc = pool_.take(round_up(t_.rows, 8) * 32, true);  // vbrcb writes all of it: 8 rows a repeat
  emit(vtyped("vbrcb", row.dtype), {{-1, bc, Affine(0)}, row.at}, {repeat((t_.rows + 7) / 8)});
  spread_.push_back({row.at.buffer, bc});
  return bc;
}

void VectorOps::nz_broadcast(const std::string& m, const VValue& dst, const VValue* full, const VValue& x, bool x_first,
                             std::vector<Arg> extra) {
  int64_t sz = size(dst.dtype), frac = t_.rows * 16 * sz, row = 16 * sz;  // bytes of a fractal column, of a row in it
  bool per_row = x.shape == VShape::Row;
  Ref xat = per_row ? Ref{-1, spread(x), Affine(0)} : x.at;
  std::string xs = full ? (x_first ? "src0" : "src1") : "src", fs = x_first ? "src1" : "src0";
  // Rows [from, rows) of a fractal column, a row (16 elements) a repeat.
  auto by_rows = [&](const Affine& fc, int64_t valid, int64_t from) {
    for (int64_t r0 = from; r0 < t_.rows; r0 += 255) {
      std::vector<Arg> args = extra;
      args.push_back(repeat(std::min<int64_t>(255, t_.rows - r0)));
      args.push_back(kw("mask", mask_count(valid)));
      args.push_back(kw("dst_rep", imm(row / 32)));
      if (full) args.push_back(kw(fs + "_rep", imm(row / 32)));
      if (per_row) args.push_back(kw(xs + "_blk", imm(0))), args.push_back(kw(xs + "_rep", imm(1)));
      else args.push_back(kw(xs + "_rep", imm(0)));
      Ref d = plus(dst.at, fc * frac + Affine(r0 * row));
      Ref xr = per_row ? plus(xat, r0 * 32) : plus(xat, fc * row);
      std::vector<Ref> refs = {d};
      if (!full) refs.push_back(xr);
      else if (x_first) refs.push_back(xr), refs.push_back(plus(full->at, fc * frac + Affine(r0 * row)));
      else refs.push_back(plus(full->at, fc * frac + Affine(r0 * row))), refs.push_back(xr);
      emit(m, std::move(refs), std::move(args));
    }
  };
  // A per-column value over rows [0, rows8), rows8 a multiple of 8: each of the fractal row's 32 B
  // blocks (two for f32) in its own instruction, 8 fractal rows a repeat, the column block read
  // with stride 0 (a row a repeat used a quarter of an f32 repeat's lanes: 4x the cycles).
  auto by_blocks = [&](const Affine& fc, int64_t valid, int64_t rows8) {
    const int64_t bpr = row / 32, epb = 32 / sz;  // blocks per fractal row, elements per block
    for (int64_t h = 0; h < bpr; ++h) {
      int64_t in_block = std::clamp<int64_t>(valid - h * epb, 0, epb);
      if (in_block == 0) continue;
      for (int64_t r0 = 0; r0 < rows8; r0 += 8 * 255) {
        std::vector<Arg> args = extra;
        args.push_back(repeat(std::min<int64_t>(255, (rows8 - r0) / 8)));
        if (in_block < epb) {  // the first in_block elements of each of the 8 blocks
          uint64_t lo = 0, hi = 0;
          for (int64_t e = 0; e < 8 * epb; ++e)
            if (e % epb < in_block) (e < 64 ? lo : hi) |= uint64_t(1) << (e % 64);
          args.push_back(kw("mask", mask_bits(hi, lo)));
        }
        args.push_back(kw("dst_blk", imm(bpr))), args.push_back(kw("dst_rep", imm(8 * bpr)));
        if (full) args.push_back(kw(fs + "_blk", imm(bpr))), args.push_back(kw(fs + "_rep", imm(8 * bpr)));
        args.push_back(kw(xs + "_blk", imm(0))), args.push_back(kw(xs + "_rep", imm(0)));
        const Affine at = fc * frac + Affine(r0 * row + h * 32);
        Ref d = plus(dst.at, at);
        Ref xr = plus(xat, fc * row + Affine(h * 32));
        std::vector<Ref> refs = {d};
        if (!full) refs.push_back(xr);
        else if (x_first) refs.push_back(xr), refs.push_back(plus(full->at, at));
        else refs.push_back(plus(full->at, at)), refs.push_back(xr);
        emit(m, std::move(refs), std::move(args));
      }
    }
  };
  // Whole groups of 8 rows by blocks, the rest (and a per-row value's every row) a row a repeat.
  const int64_t rows8 = per_row ? 0 : t_.rows / 8 * 8;
  auto column = [&](const Affine& fc, int64_t valid) {
    if (rows8) by_blocks(fc, valid, rows8);
    if (rows8 < t_.rows) by_rows(fc, valid, rows8);
  };
  int64_t columns = t_.pitch / 16, last = t_.cols - (columns - 1) * 16;
  int64_t whole = last == 16 ? columns : columns - 1;
  if (whole == 1) column(Affine(0), 16);
  else if (whole > 1) {
    std::vector<Node>* outer = out_;
    std::vector<Node> body;
    out_ = &body;
    int v = k_.new_var("fractal_column");
    column(Affine::var(v), 16);
    out_ = outer;
    out_->push_back(loop(v, Affine(0), Affine(whole), Affine(1), std::move(body)));
  }
  if (whole < columns) column(Affine(columns - 1), last);
}

void VectorOps::binary_broadcast(const std::string& m, const VValue& dst, const VValue& a, const VValue& b) {
  bool x_first = a.shape != VShape::Full;
  const VValue &full = x_first ? b : a, &x = x_first ? a : b;
  if (t_.nz) return nz_broadcast(m, dst, &full, x, x_first, {});
  std::string fs = x_first ? "src1" : "src0", xs = x_first ? "src0" : "src1";
  int64_t rb = t_.pitch * size(full.dtype);
  Ref xat = x.at;
  if (x.shape == VShape::Row) xat = {-1, spread(x), Affine(0)};
  auto ordered = [&](const Ref& d, const Ref& f, const Ref& xr) {
    return x_first ? std::vector<Ref>{d, xr, f} : std::vector<Ref>{d, f, xr};
  };
  // A column of repeats at a time, all rows in one instruction (the spread row values one block
  // further a row), or else row by row.
  if (by_columns(full.dtype, rb, [&](int64_t off, int64_t r0, int64_t rows, int64_t mask) {
        std::vector<Arg> args = {repeat(rows), kw("dst_rep", imm(rb / 32)), kw(fs + "_rep", imm(rb / 32))};
        with_mask(args, mask);
        if (x.shape == VShape::Row) args.push_back(kw(xs + "_blk", imm(0))), args.push_back(kw(xs + "_rep", imm(1)));
        else args.push_back(kw(xs + "_rep", imm(0)));
        Ref xr = x.shape == VShape::Row ? plus(xat, r0 * 32) : plus(xat, off);
        emit(m, ordered(plus(dst.at, r0 * rb + off), plus(full.at, r0 * rb + off), xr), std::move(args));
      }))
    return;
  each_row([&](const Affine& r) {
    pieces(t_.pitch, full.dtype, [&](int64_t off, int64_t rep, int64_t mask) {
      std::vector<Arg> args = {repeat(rep)};
      with_mask(args, mask);
      Ref xr = plus(xat, off);
      if (x.shape == VShape::Row) {
        xr = plus(xat, r * 32);
        args.push_back(kw(xs + "_blk", imm(0))), args.push_back(kw(xs + "_rep", imm(0)));
      }
      emit(m, ordered(plus(dst.at, r * rb + Affine(off)), plus(full.at, r * rb + Affine(off)), xr), std::move(args));
    });
  });
}

void VectorOps::binary(VBinary op, const VValue& dst, const VValue& a, const VValue& b) {
  CUBEKIT_ASSERT(a.shape != VShape::Scalar || b.shape != VShape::Scalar, "two constants reach the vector unit");
  if (b.shape == VShape::Scalar) return binary_scalar(op, dst, a, b.constant, false);
  if (a.shape == VShape::Scalar) {
    if (op == VBinary::Sub || op == VBinary::Div) return binary_scalar(op, dst, b, a.constant, true);
    return binary_scalar(op, dst, b, a.constant, false);  // commutative
  }
  std::string m = vtyped(binary_mnemonic(op), a.dtype);
  if (a.shape == b.shape) return binary_same(m, dst, a, b, count(a.shape));
  if (a.shape != VShape::Full && b.shape != VShape::Full) {  // a Row and a Col: a spread over dst, then b
    CUBEKIT_ASSERT(dst.shape == VShape::Full && dst.at.buffer != b.at.buffer, "a Row and a Col meet outside a Full value of their own");
    broadcast(dst, a);
    return binary_broadcast(m, dst, dst, b);
  }
  binary_broadcast(m, dst, a, b);
}

void VectorOps::broadcast(const VValue& dst, const VValue& a) {
  CUBEKIT_ASSERT(dst.shape == VShape::Full && (a.shape == VShape::Row || a.shape == VShape::Col), "broadcast of a {} value",
                 int(a.shape));
  std::string m = vtyped("vadds", a.dtype);
  if (t_.nz) return nz_broadcast(m, dst, nullptr, a, false, {num(0)});
  int64_t rb = t_.pitch * size(a.dtype);
  bool row = a.shape == VShape::Row;
  Ref src = row ? Ref{-1, spread(a), Affine(0)} : a.at;
  if (by_columns(a.dtype, rb, [&](int64_t off, int64_t r0, int64_t rows, int64_t mask) {
        std::vector<Arg> args = {num(0), repeat(rows), kw("dst_rep", imm(rb / 32)), kw("src_rep", imm(row ? 1 : 0))};
        if (row) args.push_back(kw("src_blk", imm(0)));
        with_mask(args, mask);
        emit(m, {plus(dst.at, r0 * rb + off), plus(src, row ? Affine(r0 * 32) : Affine(off))}, std::move(args));
      }))
    return;
  each_row([&](const Affine& r) {
    pieces(t_.pitch, a.dtype, [&](int64_t off, int64_t rep, int64_t mask) {
      std::vector<Arg> args = {num(0), repeat(rep)};
      with_mask(args, mask);
      if (row) args.push_back(kw("src_blk", imm(0))), args.push_back(kw("src_rep", imm(0)));
      emit(m, {plus(dst.at, r * rb + Affine(off)), row ? plus(src, r * 32) : plus(src, off)}, std::move(args));
    });
  });
}

void VectorOps::select(VCompare cmp, const VValue& dst, const VValue& x, const VValue& y, const VValue& if_true,
                       const VValue& if_false) {
  // Every operand a vector of dst's shape.
  std::vector<VValue> owned;
  auto vec = [&](const VValue& v) {
    if (v.shape == dst.shape) return v;
    VValue t = temp(dst.shape, v.dtype);
    owned.push_back(t);
    if (v.shape == VShape::Scalar) fill(t, v.constant);
    else broadcast(t, v);
    return t;
  };
  VValue cx = vec(x), cy = vec(y), ct = vec(if_true), cf = vec(if_false);
  int64_t n = count(dst.shape), epr = per_repeat(x.dtype);
  CUBEKIT_ASSERT(per_repeat(dst.dtype) == epr, "select compares and picks types of different widths");
  // Each instruction's mask starts 32-byte aligned (a piece after 255 repeats or a masked tail
  // would otherwise start mid-block); vcmp and vsel cut the elements into the same pieces.
  std::vector<int64_t> mask_at;
  int64_t mask_bytes = 0;
  pieces(n, x.dtype, [&](int64_t, int64_t rep, int64_t) {
    mask_at.push_back(mask_bytes);
    mask_bytes += round_up(rep * epr / 8, 32);
  });
  int bits = pool_.take(mask_bytes);
  size_t piece = 0;
  pieces(n, x.dtype, [&](int64_t off, int64_t rep, int64_t mask) {
    std::vector<Arg> args = {kw("cmp", name(compare_name(cmp))), repeat(rep)};
    with_mask(args, mask);
    emit(vtyped("vcmp", x.dtype), {{-1, bits, Affine(mask_at[piece++])}, plus(cx.at, off), plus(cy.at, off)}, std::move(args));
  });
  piece = 0;
  pieces(n, dst.dtype, [&](int64_t off, int64_t rep, int64_t mask) {
    std::vector<Arg> args = {repeat(rep)};
    with_mask(args, mask);
    emit(vtyped("vsel", dst.dtype),
         {plus(dst.at, off), plus(ct.at, off), plus(cf.at, off), {-1, bits, Affine(mask_at[piece++])}}, std::move(args));
  });
  pool_.give(bits);
  for (const VValue& v : owned) done(v);
}

void VectorOps::reduce(VReduce op, const VValue& dst, const VValue& full, const VValue* times) {
  CUBEKIT_ASSERT(!t_.nz, "a reduction over an L0C strip");
  DType t = full.dtype;
  if (times && t_.cols / per_repeat(t) >= 2 && t_.cols / per_repeat(t) <= 510) return fold(op, dst, full, times);
  if (times) {  // the products first
    VValue p = temp(VShape::Full, t);
    binary(VBinary::Mul, p, full, *times);
    reduce(op, dst, p);
    return done(p);
  }
  std::string m = vtyped(reduce_mnemonic(op), t);
  int64_t epr = per_repeat(t), rb = t_.pitch * size(t), cols = t_.cols;
  if (cols <= epr && block_rows(op, dst, full)) return;
  if (cols <= epr) {  // each row within one repeat: one instruction for all rows
    for (int64_t r0 = 0; r0 < t_.rows; r0 += 255) {
      std::vector<Arg> args = {repeat(std::min<int64_t>(255, t_.rows - r0)), kw("src_rep", imm(rb / 32)), kw("dst_rep", imm(1))};
      if (cols < epr) with_mask(args, cols);
      emit(m, {plus(dst.at, r0 * size(t)), plus(full.at, r0 * rb)}, std::move(args));
    }
    return;
  }
  if (cols / epr >= 2) return fold(op, dst, full, nullptr);
  // One partial result per 256 B of each row, then the partials reduced the same way.
  int64_t q = (cols + epr - 1) / epr, qp = round_up(q, 32 / size(t));
  VTile sub{t_.rows, q, qp};
  VValue part{VShape::Full, t, {-1, pool_.take(t_.rows * qp * size(t)), Affine(0)}, 0};
  if (qp != q) VectorOps(k_, pool_, *out_, sub).fill(part, 0);  // defined padding for the next level
  each_row([&](const Affine& r) {
    pieces(cols, t, [&](int64_t off, int64_t rep, int64_t mask) {
      std::vector<Arg> args = {repeat(rep), kw("dst_rep", imm(1))};
      with_mask(args, mask);
      emit(m, {plus(part.at, r * (qp * size(t)) + Affine(off / 256 * size(t))), plus(full.at, r * rb + Affine(off))},
           std::move(args));
    });
  });
  VectorOps(k_, pool_, *out_, sub).reduce(op, dst, part);
  pool_.give(part.at.buffer);
}

}  // namespace cubekit::codegen

namespace cubekit::codegen {

// Rows of two or more whole repeats: halve each row with elementwise ops (one cycle a repeat)
// down to one repeat, then one reducing repeat per row (vcadd and the like cost more a repeat):
//   acc[r] = x[r][0:h] op x[r][h:2h]        (h = q / 2 of the q whole repeats; an odd last one and
//                                            the masked tail are folded into acc[r][0])
//   while len > 1: acc[r][0:len/2] op= acc[r][len/2:len]
//   dst[r] = reduce(acc[r][0])
// Each level is one loop over the rows, so the barrier between levels is paid once a level.
void VectorOps::fold(VReduce op, const VValue& dst, const VValue& full, const VValue* times) {
  DType t = full.dtype;
  static constexpr const char* ops[] = {"vadd", "vmax", "vmin"};
  std::string m = vtyped(ops[int(op)], t);
  int64_t epr = per_repeat(t), rb = t_.pitch * size(t), cols = t_.cols, q = cols / epr, tail = cols % epr, h = q / 2;
  int64_t ab = h * 256;  // bytes of one row of the accumulator
  Ref acc{-1, pool_.take(t_.rows * ab), Affine(0)};
  // An operand of row r at `at + r * stride`.
  struct Rows {
    Ref at;
    int64_t stride;
    Ref of(const Affine& r) const { return plus(at, r * stride); }
  };
  const Rows dst_acc{acc, ab};
  // mn(acc[r][0:n], a[r][0:n], b[r][0:n]) for every row r, n = `repeats` repeats (or one masked to
  // `mask`): a column of repeats at a time over all rows where the strides fit and that takes
  // fewer instructions, else row by row.
  auto rows_op = [&](const std::string& mn, int64_t repeats, const Rows& a, const Rows& b, int64_t mask) {
    const int64_t most = std::max({dst_acc.stride, a.stride, b.stride});
    if (most / 32 <= kMaxRepeatStride && (repeats == 1 || repeats < t_.rows)) {
      for (int64_t j = 0; j < repeats; ++j)
        for (int64_t r0 = 0; r0 < t_.rows; r0 += 255) {
          std::vector<Arg> args = {repeat(std::min<int64_t>(255, t_.rows - r0)), kw("dst_rep", imm(dst_acc.stride / 32)),
                                   kw("src0_rep", imm(a.stride / 32)), kw("src1_rep", imm(b.stride / 32))};
          with_mask(args, mask);
          const Affine at(r0);
          emit(mn, {plus(dst_acc.of(at), j * 256), plus(a.of(at), j * 256), plus(b.of(at), j * 256)}, std::move(args));
        }
      return;
    }
    each_row([&](const Affine& r) {
      if (mask) return emit(mn, {dst_acc.of(r), a.of(r), b.of(r)}, {repeat(1), kw("mask", mask_count(mask))});
      pieces(repeats * epr, t, [&](int64_t off, int64_t rep, int64_t) {
        emit(mn, {plus(dst_acc.of(r), off), plus(a.of(r), off), plus(b.of(r), off)}, {repeat(rep)});
      });
    });
  };
  auto x = [&](int64_t byte) { return Rows{plus(full.at, byte), rb}; };
  auto in_acc = [&](int64_t byte) { return Rows{plus(acc, byte), ab}; };
  if (times) {  // a sum of products: acc = x y over the first half, then acc += x y (vmla) for the rest
    std::string mul = vtyped("vmul", t), mla = vtyped("vmla", t);
    auto y = [&](int64_t byte) { return Rows{plus(times->at, byte), rb}; };
    CUBEKIT_ASSERT(h <= 255, "a row of more than 510 repeats");
    rows_op(mul, h, x(0), y(0), 0);
    rows_op(mla, h, x(h * 256), y(h * 256), 0);
    if (q % 2) rows_op(mla, 1, x(2 * h * 256), y(2 * h * 256), 0);
    if (tail) rows_op(mla, 1, x(q * 256), y(q * 256), tail);
  } else {
    rows_op(m, h, x(0), x(h * 256), 0);
    if (q % 2) rows_op(m, 1, in_acc(0), x(2 * h * 256), 0);
    if (tail) rows_op(m, 1, in_acc(0), x(q * 256), tail);
  }
  for (int64_t len = h; len > 1; len /= 2) {
    if (len % 2) rows_op(m, 1, in_acc(0), in_acc((len - 1) * 256), 0);
    rows_op(m, len / 2, in_acc(0), in_acc(len / 2 * 256), 0);
  }
  std::string r = vtyped(reduce_mnemonic(op), t);
  if (ab / 32 <= kMaxRepeatStride) {
    for (int64_t r0 = 0; r0 < t_.rows; r0 += 255)
      emit(r, {plus(dst.at, r0 * size(t)), plus(acc, r0 * ab)},
           {repeat(std::min<int64_t>(255, t_.rows - r0)), kw("src_rep", imm(ab / 32)), kw("dst_rep", imm(1))});
  } else {
    each_row([&](const Affine& row) { emit(r, {plus(dst.at, row * size(t)), plus(acc, row * ab)}, {repeat(1)}); });
  }
  pool_.give(acc.buffer);
}

// Rows of 1, 2, 4 or 8 whole 32 B blocks, 8 rows or more: each row's blocks folded in half with
// elementwise ops (the rows' blocks read with block strides, 8 rows a repeat), then one vcg
// reduction a block, also 8 rows a repeat, where vcadd and the like take a repeat a row at twice a
// simple repeat's cycles: flash attention's rows of 16 f32 scores on the 910, 128 rows in 128
// reducing repeats, take 16 simple and 16 reducing ones.
//   tmp[r][0:h] = x[r][0:h] op x[r][h:2h]         (blocks; h = k / 2, then halved in tmp)
//   dst[r] = vcg(tmp[r][0])
bool VectorOps::block_rows(VReduce op, const VValue& dst, const VValue& full) {
  const DType t = full.dtype;
  const int64_t bytes = t_.cols * size(t), rb = t_.pitch * size(t), k = bytes / 32, rows = t_.rows, epb = 32 / size(t);
  if (bytes % 32 || k > 8 || (k & (k - 1)) || rb % 32 || rb / 32 * 8 > kMaxRepeatStride || rows < 8) return false;
  static constexpr const char* elementwise[] = {"vadd", "vmax", "vmin"};
  static constexpr const char* by_block[] = {"vcgadd", "vcgmax", "vcgmin"};
  // f(first row, repeats, mask) over the rows, 8 a repeat, a last partial repeat masked to its rows' blocks.
  auto by_eight = [&](auto f) {
    for (int64_t r0 = 0; r0 < rows; r0 += 8 * 255) {
      const int64_t n = std::min<int64_t>(rows - r0, 8 * 255), whole = n / 8;
      if (whole) f(r0, whole, int64_t(0));
      if (n % 8) f(r0 + whole * 8, int64_t(1), n % 8 * epb);
    }
  };
  Ref src = full.at;
  int64_t src_blocks = rb / 32;  // the source's row stride, in blocks
  int tmp = -1;
  for (int64_t h = k / 2; h >= 1; h /= 2) {  // a row's blocks halved: [0, h) op= [h, 2h)
    if (tmp < 0) tmp = pool_.take(round_up(rows, 8) * (k / 2) * 32);
    const int64_t stride = k / 2;  // tmp's row stride, in blocks
    for (int64_t j = 0; j < h; ++j)
      by_eight([&](int64_t r0, int64_t reps, int64_t mask) {
        std::vector<Arg> args = {repeat(reps), kw("dst_blk", imm(stride)), kw("src0_blk", imm(src_blocks)),
                                 kw("src1_blk", imm(src_blocks)), kw("dst_rep", imm(8 * stride)),
                                 kw("src0_rep", imm(8 * src_blocks)), kw("src1_rep", imm(8 * src_blocks))};
        with_mask(args, mask);
        const Affine row = Affine(r0 * src_blocks * 32);
        emit(vtyped(elementwise[int(op)], t),
             {{-1, tmp, Affine(r0 * stride * 32 + j * 32)}, plus(src, row + Affine(j * 32)), plus(src, row + Affine((j + h) * 32))},
             std::move(args));
      });
    src = {-1, tmp, Affine(0)}, src_blocks = stride;
  }
  by_eight([&](int64_t r0, int64_t reps, int64_t mask) {
    std::vector<Arg> args = {repeat(reps), kw("src_blk", imm(src_blocks)), kw("dst_rep", imm(1)),
                             kw("src_rep", imm(8 * src_blocks))};
    with_mask(args, mask);
    emit(vtyped(by_block[int(op)], t), {plus(dst.at, r0 * size(t)), plus(src, Affine(r0 * src_blocks * 32))}, std::move(args));
  });
  if (tmp >= 0) pool_.give(tmp);
  return true;
}

}  // namespace cubekit::codegen
