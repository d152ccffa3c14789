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
  const bool spread = k.block_dim > 1;
  const TileSpace space{loop.loops, spread ? int(loop.loops.size()) : 0, 1};
  CoreTiles tiles = core_tiles(k, spread, space.fused(), space.serial());
  // The tile this core numbers w: its decode, then f(its indices).
  auto at = [&](const Affine& w, const std::string& suffix, auto f) {
    std::vector<int> index;
    std::vector<Node> decode = decode_tiles(k, space, w, suffix, index);
    TileLoop::Index indices;
    for (int v : index) indices.push_back(Affine::var(v));
    std::vector<Node> body = f(indices);
    if (body.empty()) return body;
    return decode += std::move(body);
  };
  FillAhead fills{&tiles, 1, loop.ahead, [&](const Affine& g) { return at(g, "_ahead", loop.fill); }};
  std::vector<Node> out = std::move(tiles.setup);
  out += fills.prologue();
  std::vector<Node> each = loop.ahead ? fills.before(Affine(0)) : std::vector<Node>{};
  each += at(Affine::var(tiles.w), "", [&](const TileLoop::Index& i) { return loop.use(i, loop.ahead == 0); });
  out.push_back(tiles.loop(std::move(each)));
  return out;
}

}  // namespace cubekit::codegen
