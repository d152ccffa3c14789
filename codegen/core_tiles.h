// One core's share of a kernel's tiles, written once for every nest. `fused` tile iterations go
// to the cores in turn (core c takes c, c + block_num, ...), each followed by `serial` more:
//
//   rounds = (fused - 1 - block_idx) / block_num          (when the tiles are spread)
//   for w = 0; w < (rounds + 1) * serial; w += 1         this core's tile number w
//
// A nest that fills ahead does it through FillAhead (tile_loop.h), which guards the fills past
// this core's last tile by `count`.
#pragma once

#include "codegen/ir.h"

#include <string>
#include <vector>

namespace cubekit::codegen {

struct CoreTiles {
  std::vector<Node> setup;  // what computes `count`
  Affine count;             // this core's tiles
  int w = -1;               // the loop variable: this core's tile number

  // The tile index of this core's tile number g when every iteration is a fused one (serial 1).
  Affine tile(const Affine& g, int block_dim) const { return Affine::var(kBlockIdx) + g * block_dim; }
  Node loop(std::vector<Node> body) const { return codegen::loop(w, Affine(0), count, Affine(1), std::move(body)); }
};

// `spread`: the fused iterations go to k.block_dim cores (else one core runs fused * serial).
// The variables are named rounds<suffix> and w<suffix>.
CoreTiles core_tiles(Kernel& k, bool spread, int64_t fused, int64_t serial, const std::string& suffix = "");

}  // namespace cubekit::codegen
