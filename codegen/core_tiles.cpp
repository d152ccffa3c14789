#include "codegen/core_tiles.h"

namespace cubekit::codegen {

CoreTiles core_tiles(Kernel& k, bool spread, int64_t fused, int64_t serial, const std::string& suffix, bool snake) {
  CoreTiles c;
  c.count = Affine(fused * serial);
  if (spread) {
    const int64_t bn = k.block_dim, full = fused / bn, left = fused % bn;
    int rounds = k.new_var("rounds" + suffix);
    if (snake && left && full % 2 == 1) {
      // The last round, part of one, runs backwards: its items go to the last `left` cores,
      // those with block_idx + left >= bn.
      c.setup.push_back(let(rounds, Affine::var(kBlockIdx) + Affine(left), LetOp::Div, bn));
      c.count = Affine::var(rounds, serial) + Affine(full * serial);
    } else {
      c.setup.push_back(let(rounds, Affine(fused - 1) - Affine::var(kBlockIdx), LetOp::Div, bn));
      c.count = Affine::var(rounds, serial) + Affine(serial);
    }
  }
  c.w = k.new_var("w" + suffix);
  return c;
}

int64_t TileSpace::fused() const {
  int64_t n = 1;
  for (int i = 0; i < on_cores; ++i) n *= loops[size_t(i)].extent;
  return n;
}

int64_t TileSpace::serial() const {
  int64_t n = 1;
  for (size_t i = size_t(on_cores); i < loops.size(); ++i) n *= loops[i].extent;
  return n;
}

namespace {

// A variable holding a: a's own when a is one variable (and may stay as it is), else a new one.
int held(Kernel& k, const Affine& a, bool modified, const std::string& name, std::vector<Node>& out) {
  if (!modified && a.c == 0 && a.terms.size() == 1 && a.terms[0].second == 1) return a.terms[0].first;
  int v = k.new_var(name);
  out.push_back(let(v, a, LetOp::Add, 0));
  return v;
}

// Loops [lo, hi) from `rest` (consumed), the last varying fastest; the outermost is what is left.
// A loop of one iteration is 0 (a constant the simplifier folds into every address).
void row_major(Kernel& k, const TileSpace& s, int rest, int lo, int hi, const std::string& suffix, std::vector<int>& index,
               std::vector<Node>& out) {
  for (int i = hi - 1; i >= lo; --i) {
    const TileDim& l = s.loops[size_t(i)];
    if (l.extent == 1) {
      index[size_t(i)] = k.new_var(l.name + suffix);
      out.push_back(let(index[size_t(i)], Affine(0), LetOp::Add, 0));
    } else if (i == lo) {
      index[size_t(i)] = rest;
    } else {
      index[size_t(i)] = k.new_var(l.name + suffix);
      out.push_back(let(index[size_t(i)], Affine::var(rest), LetOp::Rem, l.extent));
      out.push_back(let(rest, Affine::var(rest), LetOp::Div, l.extent));
    }
  }
}

// The last two core loops x, y (extents X, Y) from the fused index u, x varying fastest within
// groups of G of its iterations, y walking backwards in every other group (so that the cores
// at a turn keep the panels of y they have just used); returns the index of the outer core
// loops:
//   rest = u / (X*Y);  v = u % (X*Y)
//   g = v / (G*Y);  r = v % (G*Y);  x = g*G + r % G;  y = r / G;  if g % 2 == 1: y = Y-1 - y
// When G does not divide X, the last group (g = X / G) has L = X % G iterations of x:
//   x = g*G + r % L;  y = r / L
int decode_grouped(Kernel& k, const TileSpace& s, int u, const std::string& suffix, std::vector<int>& index,
                   std::vector<Node>& out) {
  size_t xi = size_t(s.on_cores - 2), yi = xi + 1;
  int64_t X = s.loops[xi].extent, Y = s.loops[yi].extent, G = s.group;
  int rest = k.new_var("rest" + suffix);
  int v = k.new_var("in_block" + suffix), g = k.new_var("group" + suffix), r = k.new_var("in_group" + suffix);
  index[xi] = k.new_var(s.loops[xi].name + suffix);
  index[yi] = k.new_var(s.loops[yi].name + suffix);
  out.push_back(let(rest, Affine::var(u), LetOp::Div, X * Y));
  out.push_back(let(v, Affine::var(u), LetOp::Rem, X * Y));
  out.push_back(let(g, Affine::var(v), LetOp::Div, G * Y));
  out.push_back(let(r, Affine::var(v), LetOp::Rem, G * Y));
  out.push_back(let(index[xi], Affine::var(r), LetOp::Rem, G));
  out.push_back(let(index[yi], Affine::var(r), LetOp::Div, G));
  if (X % G) {
    int64_t L = X % G;
    out.push_back(when(Affine::var(g), X / G, {let(index[xi], Affine::var(r), LetOp::Rem, L), let(index[yi], Affine::var(r), LetOp::Div, L)}, {}));
  }
  out.push_back(let(index[xi], Affine::var(index[xi]) + Affine::var(g, G), LetOp::Add, 0));
  out.push_back(let(g, Affine::var(g), LetOp::Rem, 2));
  out.push_back(when(Affine::var(g), 1, {let(index[yi], Affine(Y - 1) - Affine::var(index[yi]), LetOp::Add, 0)}, {}));
  return rest;
}

}  // namespace

std::vector<Node> decode_tiles(Kernel& k, const TileSpace& s, const Affine& w, const std::string& suffix,
                               std::vector<int>& index) {
  std::vector<Node> out;
  const int n = int(s.loops.size()), serial = int(s.serial());
  index.assign(size_t(n), -1);
  if (s.on_cores) {
    Affine round = w;
    if (serial > 1) {
      int r = k.new_var("round" + suffix);
      out.push_back(let(r, w, LetOp::Div, serial));
      round = Affine::var(r);
    }
    int u = k.new_var("tile" + suffix);
    out.push_back(let(u, Affine::var(kBlockIdx) + round * k.block_dim, LetOp::Add, 0));
    if (s.snake && k.block_dim > 1) {  // odd rounds: block_num - 1 - block_idx, as (bn - 1)(block_idx + 1) % bn
      const int64_t bn = k.block_dim;
      int parity = k.new_var("parity" + suffix), back = k.new_var("back" + suffix);
      out.push_back(let(parity, round, LetOp::Rem, 2));
      out.push_back(when(Affine::var(parity), 1,
                         {let(back, Affine::var(kBlockIdx, bn - 1) + Affine(bn - 1), LetOp::Rem, bn),
                          let(u, Affine::var(back) + round * bn, LetOp::Add, 0)},
                         {}));
    }
    int inner = s.on_cores;
    if (s.group > 1) {
      int rest = decode_grouped(k, s, u, suffix, index, out);
      inner -= 2;
      if (inner > 0) row_major(k, s, rest, 0, inner, suffix, index, out);
    } else {
      row_major(k, s, u, 0, inner, suffix, index, out);
    }
  }
  if (s.on_cores < n) {
    int rest;
    if (s.on_cores == 0) {  // w runs over the serial tiles alone
      rest = held(k, w, n > 1, "rest" + suffix, out);
    } else {
      rest = k.new_var("rest" + suffix);
      out.push_back(serial > 1 ? let(rest, w, LetOp::Rem, serial) : let(rest, Affine(0), LetOp::Add, 0));
    }
    row_major(k, s, rest, s.on_cores, n, suffix, index, out);
  }
  return out;
}

}  // namespace cubekit::codegen
