// The nest of flash attention (schedules/attention.h) on a coupled core, per core:
//
//   for w = 0; w < my items; w += 1                 item = (batch x head, query tile), over the cores
//     scope [L1Q]  Q tile -> L1 (nd2nz)
//       S_0 = Q K_0ᵀ (mmad into L0S)
//       for j = 0; j < key tiles; j += 1            causal: j <= the query tile (the diagonal's masked)
//         S_j: L0C -> UB (mov_l0c_ub); the online softmax on V (schedules/attention.h); P_j cast
//         P_j: UB -> GM workspace -> L1 (the 910 has no UB -> L1 path), under full / free flags
//         S_{j+1} = Q K_{j+1}ᵀ (when there is one)  the cube works while V makes P_j
//         P_j V_j (mmad into L0O, two copies)
//         j > 0: O = a_{j-1} O + P_{j-1} V_{j-1}    behind softmax j: V waits less for the cube
//       O = a O + P V of the last tile; O / l, cast -> GM
//
// The sync pass orders every buffer's pipes; the workspace's flags are this nest's own.
#pragma once

#include "codegen/ir.h"
#include "schedules/attention.h"

namespace cubekit::codegen {

Kernel lower_attention(const sched::AttentionPlan& plan, const ChipConfig& chip);

}  // namespace cubekit::codegen
