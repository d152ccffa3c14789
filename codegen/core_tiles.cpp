#include "codegen/core_tiles.h"

namespace cubekit::codegen {

CoreTiles core_tiles(Kernel& k, bool spread, int64_t fused, int64_t serial, const std::string& suffix) {
  CoreTiles c;
  c.count = Affine(fused * serial);
  if (spread) {
    int rounds = k.new_var("rounds" + suffix);
    c.setup.push_back(let(rounds, Affine(fused - 1) - Affine::var(kBlockIdx), LetOp::Div, k.block_dim));
    c.count = Affine::var(rounds, serial) + Affine(serial);
  }
  c.w = k.new_var("w" + suffix);
  return c;
}

}  // namespace cubekit::codegen
