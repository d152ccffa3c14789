// The nest of flash attention (schedules/attention.h) on a coupled core, per core:
//
//   for w = 0; w < my items; w += 1                 item = (batch x head, query tile), over the cores
//     scope [L1Q]  Q tile -> L1 (nd2nz)
//       m = -big, l = 0, O = 0                      UB rows and the f32 output tile (NZ, as L0C's)
//       for j = 0; j < key tiles; j += 1            causal: j <= the query tile (the diagonal's masked)
//         K_j -> L1; Q, K_j -> L0A / L0B; S = Q K_jᵀ (mmad) -> UB (mov_l0c_ub)
//         online softmax on V (see the header of schedules/attention.h); P cast to the input type
//         P: UB -> GM workspace -> L1 (the 910 has no UB -> L1 path)
//         V_j -> L1; P, V_j -> L0A / L0B; P V_j (mmad) -> UB; O = a O + P V_j
//       O / l, cast -> GM
//
// The sync pass orders the pipes; a key tile's cube work then overlaps the previous one's vector work
// through the copies of the key and value buffers.
#pragma once

#include "codegen/ir.h"
#include "schedules/attention.h"

namespace cubekit::codegen {

Kernel lower_attention(const sched::AttentionPlan& plan, const ChipConfig& chip);

}  // namespace cubekit::codegen
