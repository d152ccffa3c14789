// The nest of flash attention (schedules/attention.h) on a coupled core, per core:
//
//   for w = 0; w < my items; w += 1                 item = (batch x head, query tile), over the cores
//     scope [Q.l1] Q tile -> L1 (nd2nz)
//       S_0 = Q K_0ᵀ (mmad into S, L0C)
//       for j = 0; j < key tiles; j += 1            causal: j <= the query tile (the diagonal's masked)
//         S_j: L0C -> UB (mov_l0c_ub); the online softmax on V (schedules/attention.h); P_j cast
//         P_j: UB -> GM workspace -> L1 (the 910 has no UB -> L1 path), under full / free flags
//         S_{j+1} = Q K_{j+1}ᵀ (when there is one)  the cube works while V makes P_j
//         P_j V_j (mmad into PV, L0C, two copies)
//         j > 0: O = a_{j-1} O + P_{j-1} V_{j-1}    behind softmax j: V waits less for the cube
//       O = a O + P V of the last tile; O / l, cast -> GM
//
// The sync pass orders every buffer's pipes; the workspace's flags are this nest's own.
#pragma once

#include "codegen/core_tiles.h"
#include "codegen/ir.h"
#include "codegen/vector_ops.h"
#include "schedules/stages.h"

namespace cubekit::codegen {

// The graph's plan's nest (graph.attention, a coupled chip's), its buffers the graph's stages.
Kernel lower_attention(const sched::StageGraph& graph, const ChipConfig& chip);

// The buffer of the flash graph's stage `name` (schedules/attention_stages.cpp), named after it
// and sized by its form: its copies the buffer's, or with `slots` one buffer of them all that the
// nest addresses slot by slot itself (hand-off slots taken in the order of a counter).
int flash_buffer(Kernel& k, const sched::StageGraph& graph, const std::string& name, bool slots = false);
// The flash graph's stage `name` (an internal error when it has none).
const sched::GraphStage& flash_stage(const sched::StageGraph& graph, const std::string& name);

// A flash nest's kernel before its buffers: named, its block_idx and block_num, and the tensors
// Q, K, V (inputs) and O (the output), then `workspaces` (name suffix, type), then the mask input
// and the logsumexp output when the plan has them (the logsumexp last).
Kernel attention_kernel(const sched::AttentionPlan& plan, const std::vector<std::pair<std::string, DType>>& workspaces);

// The logsumexp of `rows` rows of f32 statistics (max, sum: Row values in UB) into GM from row
// `first` (an element index into the LSE tensor, its last): ln(sum) + max into the nest's `lse`
// buffer, then a byte-granular copy (a tile's rows need not fill 32 B blocks). Nothing when the
// plan has no LSE output.
class ScratchPool;
std::vector<Node> store_lse(Kernel& k, ScratchPool& pool, const sched::AttentionPlan& plan, int lse, int max, int sum,
                            int64_t tile_rows, const Affine& first, int64_t rows);

// The additive mask's tile of a query tile and a key tile into UB (`mask` its tensor): `rows`
// rows from query `row0` of the tile (its first row when the mask broadcasts over queries), `nt`
// keys from key `key0`, f32. `plane` is the element offset of the item's (batch, head) plane
// (mask_plane). As the nest holds S: rows of `pitch` f32 (a split chip's vector cores), or with
// `nz_rows` > 0 fractal columns of nz_rows rows x 16 (the 910's L0C drain).
struct MaskTile {
  int tensor = -1, buffer = -1;
  Affine plane, row0, key0;
  int64_t rows = 0, nt = 0, pitch = 0, nz_rows = 0;
};
std::vector<Node> load_mask(const sched::AttentionPlan& plan, const MaskTile& m);
// The element offset of the mask plane of item `bh` (batch x head): Lets into `out` for its batch
// and head where the mask has them.
Affine mask_plane(Kernel& k, const sched::AttentionPlan& plan, const Affine& bh, std::vector<Node>& out, const std::string& sfx);
int tensor_named(const Kernel& k, const std::string& name);
// The first key tile query tile `qi` reads: 0; with a sliding window max(0, qi - window_tiles()),
// a variable Lets into `out` compute.
Affine first_key_tile(Kernel& k, const sched::AttentionPlan& plan, const Affine& qi, std::vector<Node>& out, const std::string& sfx);
// A buffer zeroed once at the start, before any load into it (the mask's: a partial tile reads rows
// and keys past the ones it loads); the barrier orders the zeroing (V) before the loads (MTE2),
// which the sync pass, ordering the buffer's scopes, does not see.
std::vector<Node> zero_before_loads(Kernel& k, ScratchPool& pool, int buffer);

// The items of a flash nest, (batch x head, query tile), both loops over the cores. Under a causal
// mask a query tile's work grows with its index, and the cores take the items in turn, a round of
// block_dim at a time: so the query tiles go outermost, the last (the longest) first, and each
// round's items (of one query tile, or two, where there are as many batch x heads as cores) cost
// about the same, the cheapest last. Handed out (batch x head)-major, a core took the same query
// tile in every round when the tiles divided the cores, and one core every longest tile (a 950
// probe: causal at S = 2048 as slow as unmasked). Where the cores start together (no
// core_start_cycles), the rounds go in snake order (TileSpace::snake), which evens the cores'
// work: the 910's causal kernels ran 2-43% faster so. Where they start one after another, the
// same order every round gives the late cores the short tiles, which suits them: the snake there
// lost up to 20% at S <= 2K (and won up to 27% at 4K and 8K).
TileSpace attention_items(const sched::AttentionPlan& plan, const ChipConfig& chip);
struct AttentionItem {
  Affine bh, qi;  // batch x head, and query tile
};
// The item of decode_tiles' `index` over attention_items; a reversed query tile is a Let into
// `out`, (tiles - 1) (i + 1) % tiles: an expression of non-negative terms, which the sync pass
// proves in [0, tiles) as it does the decoded indices (tiles - 1 - i would leave it unproven, and
// a barrier after the key loop it might not have run).
AttentionItem attention_item(Kernel& k, const sched::AttentionPlan& plan, const std::vector<int>& index,
                             std::vector<Node>& out, const std::string& sfx);

// What both flash nests (this and lower_attention_split) feed the cube with: a product's left
// operand (rows x k of an L1 NZ tile) into L0A, its right one (k x cols) into L0B, and the
// product c = a b of `in` operands.
struct CubeBuffers {
  int l0a = -1, l0b = -1;
  DType in = DType::f16;
  Node to_l0a(const View& l1, int64_t rows, int64_t k) const;
  Node to_l0b(const View& l1, int64_t k, int64_t cols) const;
  Node mmad(int l0c, int64_t m, int64_t n, int64_t k) const;
};

}  // namespace cubekit::codegen
