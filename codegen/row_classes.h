// Edge specialisation of tiles of output rows, written once for the conv path's row tiles and the
// pooling's bands. A tile of `rows` output rows reads the input rows of its windows:
//
//   oh0 * sh - pad_top  ..  oh1 * sh - pad_top + (kh - 1) * dh        clamped to the map
//
// Tiles at the map's top and bottom read fewer rows and more padding. `row_classes` groups the
// consecutive tiles that read the same number of rows with the same padding (each group is one
// branch of the nest, its tiles told apart by their first input row only).
#pragma once

#include "schedules/conv.h"

#include <vector>

namespace cubekit::codegen {

// Row tiles first..last (of `rows` output rows each; the last may have fewer) with the same input
// rows and padding. Tile t's first input row is in_row0 + t * row_step; in_rows is what L1 holds
// (one row per output row where the kernel skips rows, ConvGeometry::skips_rows).
struct RowClass {
  int64_t first = 0, last = 0;
  int64_t pad_top = 0, pad_bottom = 0, in_rows = 0, positions = 0;
  int64_t in_row0 = 0, row_step = 0;
  int64_t images = 1;  // stacked images (g.images per tile, fewer in the last): in_rows is theirs

  int64_t out_rows(const sched::ConvGeometry& g) const { return positions / (g.ow * images); }
};

std::vector<RowClass> row_classes(const sched::ConvGeometry& g, int64_t rows, int64_t tiles);
// Tiles of g.images whole images stacked (g.stackable()): the full tiles' class, and the last
// tile's when it has fewer images.
std::vector<RowClass> stacked_classes(const sched::ConvGeometry& g);

}  // namespace cubekit::codegen
