#include "codegen/tile_loop.h"

namespace cubekit::codegen {

std::vector<Node> FillAhead::unit(const Affine& g) const {
  std::vector<Node> fills = fill(g);
  if (fills.empty()) return fills;
  return {when_less(g - tiles->count * units, 0, std::move(fills), {})};
}

std::vector<Node> FillAhead::prologue() const {
  std::vector<Node> out;
  for (int64_t a = 0; a < ahead; ++a) out += unit(Affine(a));
  return out;
}

std::vector<Node> FillAhead::before(const Affine& i) const {
  return unit(Affine::var(tiles->w) * units + i + Affine(ahead));
}

std::vector<Node> tile_loop(Kernel& k, const TileLoop& loop) {
  CoreTiles tiles = core_tiles(k, k.block_dim > 1, loop.tiles, 1);
  FillAhead fills{&tiles, 1, loop.ahead, [&](const Affine& g) { return loop.fill(tiles.tile(g, k.block_dim)); }};
  std::vector<Node> out = std::move(tiles.setup);
  out += fills.prologue();
  const Affine t = tiles.tile(Affine::var(tiles.w), k.block_dim);
  std::vector<Node> each = loop.ahead ? fills.before(Affine(0)) : std::vector<Node>{};
  each += loop.use(t, loop.ahead == 0);
  out.push_back(tiles.loop(std::move(each)));
  return out;
}

}  // namespace cubekit::codegen
