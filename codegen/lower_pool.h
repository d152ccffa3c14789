// The staged lowering of a pooling's graph (lower_stages.h, schedules/pool.h): its loop nest,
// with the GM <-> UB copies and the V instructions of every window tap.
//
//   fill tiles 0 .. ahead - 1 of this core
//   for w = 0; w < my tiles; w += 1                       (tile t = block_idx + w * block_num)
//     fill tile w + ahead:  planes p = t / bands .., band b = t % bands: its input rows -> UB
//     use tile w:           the taps (V), each over the output positions whose window reads the
//                           input through it (the output starts as the padding's value when
//                           some do not); scale, convert; the output -> GM (MTE3)
//
// Bands differ at the map's edges (the padding above them and the input rows they copy): each
// kind of band is a branch of its own, as the conv path's row classes.
#pragma once

#include "codegen/ir.h"
#include "schedules/stages.h"

namespace cubekit::codegen {

// Not for use outside codegen: lower_stages is the entry.
Kernel lower_pool(const sched::StageGraph& graph, const ChipConfig& chip);

}  // namespace cubekit::codegen
