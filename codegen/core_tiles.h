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

  Node loop(std::vector<Node> body) const { return codegen::loop(w, Affine(0), count, Affine(1), std::move(body)); }
};

// `spread`: the fused iterations go to k.block_dim cores (else one core runs fused * serial).
// The variables are named rounds<suffix> and w<suffix>. `snake`: see TileSpace::snake.
CoreTiles core_tiles(Kernel& k, bool spread, int64_t fused, int64_t serial, const std::string& suffix = "",
                     bool snake = false);

// A kernel's tile loops, outermost first: the first `on_cores` fused and spread over the cores
// (their iterations `fused`), the others run in turn on the core (`serial`); the last two core
// loops rasterised in groups of `group` (see decode_tiles).
struct TileDim {
  std::string name;
  int64_t extent = 1;
};
struct TileSpace {
  std::vector<TileDim> loops;
  int on_cores = 0;
  int64_t group = 1;
  // The cores take the fused iterations in the opposite order every other round (core c takes
  // c, 2 block_num - 1 - c, 2 block_num + c, ...): items whose cost falls along the order (a
  // causal mask's query tiles, longest first) then even out over the cores, where in the same
  // order every round core 0 took the longest of each.
  bool snake = false;
  int64_t fused() const;
  int64_t serial() const;
};

// The index of each tile loop (a variable, in `index`) of this core's tile number w, written once
// for every nest:
//   u = block_idx + (w / serial) * block_num              the fused core iteration
//       (snake, in odd rounds: block_num - 1 - block_idx + (w / serial) * block_num)
//   the core loops from u, the last varying fastest       (grouped: the last two by decode_grouped)
//   the serial loops from w % serial, the same way
// Each part's outermost loop takes what the inner ones leave, which is below its extent: no
// remainder. A part of one loop is its source itself (u, or w when nothing is on the cores).
std::vector<Node> decode_tiles(Kernel& k, const TileSpace& space, const Affine& w, const std::string& suffix,
                               std::vector<int>& index);

}  // namespace cubekit::codegen
