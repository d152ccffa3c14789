// The loop over one core's tiles that the vector unit's nests share (the vector Funcs, pooling,
// TransData): each tile's inputs are filled `ahead` tiles before their use, into the next copy
// of their buffers (ahead = copies - 1), so that MTE2 fills tiles w + 1 .. w + ahead while the
// vector unit computes tile w.
//
//   <this core's tiles>                                 (core_tiles.h)
//   fill tiles 0 .. ahead - 1                           (those this core has)
//   for w = 0; w < my tiles; w += 1                     (tile t = block_idx + w * block_num)
//     fill tile w + ahead                               (when this core has it)
//     use tile w            (ahead 0: fill tile w, then use it)
//
// `fill(t)` and `use(t, with_fill)` make the nodes of tile t, each with its branches per kind of
// tile (the edge specialisation of the nest: a partial last tile, a band at the map's edge);
// `with_fill` puts the tile's fills inside the use's branches, so that they are told apart once.
#pragma once

#include "codegen/ir.h"

#include <functional>
#include <vector>

namespace cubekit::codegen {

struct TileLoop {
  int64_t tiles = 1;  // over k.block_dim cores (one: every tile on one core)
  int64_t ahead = 0;  // the filled buffers' copies - 1
  std::function<std::vector<Node>(const Affine& t)> fill;  // may make no nodes
  std::function<std::vector<Node>(const Affine& t, bool with_fill)> use;
};

std::vector<Node> tile_loop(Kernel& k, const TileLoop& loop);

}  // namespace cubekit::codegen
