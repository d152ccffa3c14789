// Fill-ahead, written once for every nest: fills run `ahead` units ahead of their use over this
// core's sequence of fill units, across its tiles, into the next copy of their buffers (ahead =
// copies - 1). A unit is a tile on the vector unit's nests, an L1 chunk of k on the contraction's
// (`units` per tile: this core's unit g is the (g % units)-th of its tile g / units):
//
//   fill units 0 .. ahead - 1                           (prologue: those this core has)
//   for w = 0; w < my tiles; w += 1
//     for each unit i of tile w:
//       fill unit w * units + i + ahead                 (before: when this core has it)
//       use unit i
//
// `tile_loop` is the whole loop of the vector unit's nests (the vector Funcs, pooling, TransData),
// one unit a tile:
//
//   <this core's tiles>                                 (core_tiles.h)
//   fill tiles 0 .. ahead - 1
//   for w = 0; w < my tiles; w += 1                     (the tile loops' indices of tile
//     fill tile w + ahead                                block_idx + w * block_num: decode_tiles)
//     use tile w            (ahead 0: fill tile w, then use it)
//
// `fill(index)` and `use(index, with_fill)` make the nodes of the tile at those loop indices, each
// with its branches per kind of tile (the edge specialisation of the nest: a partial last tile, a
// band at the map's edge); `with_fill` puts the tile's fills inside the use's branches, so that
// they are told apart once.
#pragma once

#include "codegen/core_tiles.h"
#include "codegen/ir.h"

#include <functional>
#include <vector>

namespace cubekit::codegen {

struct FillAhead {
  const CoreTiles* tiles = nullptr;
  int64_t units = 1, ahead = 0;
  std::function<std::vector<Node>(const Affine& g)> fill;  // this core's unit g (may make no nodes)

  // Unit g's fills, when this core has a unit g.
  std::vector<Node> unit(const Affine& g) const;
  // Before the tile loop: units 0 .. ahead - 1.
  std::vector<Node> prologue() const;
  // In tile w (the tile loop's variable), before its unit i is used: unit w * units + i + ahead.
  std::vector<Node> before(const Affine& i) const;
};

// f(n) for a tile of `full` rows, positions, channels ..., specialised to `tail` when it is the
// last of `count` (index == count - 1) and the extent does not divide: a partial last tile's
// edge specialisation, written once for every nest.
template <class F>
std::vector<Node> with_tail(const Affine& index, int64_t count, int64_t full, int64_t tail, F f) {
  if (tail == full) return f(full);
  if (count == 1) return f(tail);  // the only tile: no full one to make (it could not even be addressed)
  return {when(index, count - 1, f(tail), f(full))};
}

struct TileLoop {
  std::vector<TileDim> loops;  // the tiles, outermost first, over k.block_dim cores (one: every tile on one core)
  int64_t ahead = 0;           // the filled buffers' copies - 1
  using Index = std::vector<Affine>;  // a tile's index in each loop
  std::function<std::vector<Node>(const Index& at)> fill;  // may make no nodes
  std::function<std::vector<Node>(const Index& at, bool with_fill)> use;
};

std::vector<Node> tile_loop(Kernel& k, const TileLoop& loop);

}  // namespace cubekit::codegen
