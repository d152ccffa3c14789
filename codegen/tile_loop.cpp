#include "codegen/tile_loop.h"

#include "codegen/core_tiles.h"

namespace cubekit::codegen {

std::vector<Node> tile_loop(Kernel& k, const TileLoop& loop) {
  CoreTiles tiles = core_tiles(k, k.block_dim > 1, loop.tiles, 1);
  // Tile number g's fills, when this core has a tile g (nothing when the tiles have no inputs).
  auto fill_ahead = [&](const Affine& g) {
    std::vector<Node> fills = loop.fill(tiles.tile(g, k.block_dim));
    if (fills.empty()) return fills;
    return std::vector<Node>{tiles.if_exists(g, std::move(fills))};
  };
  std::vector<Node> out = std::move(tiles.setup);
  for (int64_t a = 0; a < loop.ahead; ++a) out += fill_ahead(Affine(a));
  const Affine w = Affine::var(tiles.w), t = tiles.tile(w, k.block_dim);
  std::vector<Node> each = loop.ahead ? fill_ahead(w + Affine(loop.ahead)) : std::vector<Node>{};
  each += loop.use(t, loop.ahead == 0);
  out.push_back(tiles.loop(std::move(each)));
  return out;
}

}  // namespace cubekit::codegen
