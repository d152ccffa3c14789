// Attention, softmax(scale * Q Kᵀ) V, as DSL Funcs (sched::attention_form) scheduled as flash
// attention (Func::flash): torch's scaled_dot_product_attention, with grouped-query attention
// (fewer K/V heads) and a causal mask (key j seen by query i when j <= i).
//   Q (batch, heads, seq_q, dim), K and V (batch, kv_heads, seq_kv, dim) -> O like Q.
#pragma once

#include "dsl/func.h"
#include "emulator/chip_config.h"
#include "schedules/attention.h"
#include "tune/database.h"

#include <functional>
#include <optional>
#include <vector>

namespace cubekit::kernels {

struct AttentionOptions {
  int64_t batch = 1, heads = 1;
  int64_t kv_heads = 0;  // 0: as many as heads
  int64_t seq_q = 0;
  int64_t seq_kv = 0;    // 0: seq_q
  int64_t dim = 0;
  bool causal = false;
  DType dtype = DType::f16;  // Q, K, V and O (f16 or bf16)
  double scale = 0;          // any finite number; 0: 1 / sqrt(dim). With a mask, causal, a window or a
                             // score_mod, and no softcap (which bounds the scores), keep |scale q.k|
                             // below sched::kLargestScore for your inputs
  // Softcapping of the scaled scores, s -> softcap tanh(s / softcap) (Gemma 2's attention logits,
  // flash-attn's softcap): the form's score modifier. 0: none.
  double softcap = 0;
  // Any other modifier of the scaled scores, elementwise (FlexAttention's score_mod;
  // sched::AttentionForm::score_mod): given the score's expression, and optionally its indices
  // (sched::ScoreIndex: batch, head, query, key, s32), what it becomes. Null: none. Not with
  // softcap (write the cap into it). The tuning database does not tell modifiers apart, so a
  // kernel with one takes no tuned schedule.
  sched::ScoreMod score_mod;
  // ALiBi (Press et al. 2022): each scaled score plus slope_h key, the slopes of H heads
  // 2^(-8 (h + 1) / H) (the paper's for H a power of two), after softcap or score_mod, computed on
  // the vector unit from the score's indices (no mask read from HBM). The paper's slope_h (key -
  // query) less its row's constant, which the softmax cancels, as BLOOM's and MPT's add it; the
  // logsumexp is of these scores.
  bool alibi = false;
  // A sliding window (Mistral's): query i sees keys i - window + 1 .. i; with causal only. The
  // kernel reads only the key tiles the window reaches. 0: none.
  int64_t window = 0;
  int64_t tile_q = 0, tile_kv = 0;  // flash() tiles; 0: the default
  int64_t preload = 0;               // flash()'s preload: key tiles S runs ahead; 0: the chip's own
  bool lse = false;  // also the logsumexp of the scaled scores (funcs.lse, f32 [batch, heads, seq_q])
  // An additive f32 mask (torch's attn_mask as a float), an input named "mask" of this shape: 1 to 4
  // dims, taken as the trailing dims of (batch, heads, seq_q, seq_kv), each 1 (broadcast) or that
  // extent; the last is seq_kv. Empty: none. Give a key left out as -1e30, not -inf, with `causal`
  // or a window: the kernel adds the mask as given, and -inf sorts below the score it gives the keys
  // those hide, so a query whose visible keys are all -inf would spread its softmax over hidden keys
  // (cubekit.attention's Python clamps a float mask to -1e30 for you; this C++ option does not).
  std::vector<int64_t> mask;
  // Use the tuning database's schedule for this problem when it has one and no override is set
  // (kernels/tuned.h); off: the default schedule's heuristics.
  bool use_tuned = true;
};

struct Attention {
  dsl::Input q, k, v;
  std::optional<dsl::Input> mask;
  sched::AttentionFuncs funcs;  // funcs.o is what to compile (with funcs.lse when options.lse)
  bool lse = false;
  int64_t tile_q = 0, tile_kv = 0;   // the flash() tiles scheduled
  int64_t preload = 0;               // the preload, as the plan takes it (sched::AttentionPlan::preload)
  std::optional<tune::Tuned> tuned;  // the tuned schedule the options took, if any
  std::vector<dsl::Func> outputs() const;
};

// Defines the Funcs and schedules the output with flash(tile_q, tile_kv, preload).
Attention attention(const AttentionOptions& options, const ChipConfig& chip);

// How large the scores can get after the options' modifiers (score_mod, ALiBi) where the scaled
// scores are within [-bound, bound] (sched::score_reach): keep it below sched::kLargestScore
// wherever keys are masked or hidden. Python checks it from its arrays.
double attention_score_reach(const AttentionOptions& options, const ChipConfig& chip, double bound);

// The floating-point operations of the attention the options describe: two products of 2 * dim
// per (query, key) pair a query sees (the published kernels' 4 S0 S1 D without a mask), counting
// only the pairs the causal mask (top-left: query i sees keys 0..i) and the window leave.
double attention_flops(const AttentionOptions& options);

// The flash() tiles the kernels use where the options leave them open: key tiles of 128 (a causal
// mask: as big as the query tiles), and of the query tiles of 128, 64 and 32 rows the chip's
// buffers hold the one whose rounds over the cores cost least (16 when none fits), neither beyond
// the sequence.
std::pair<int64_t, int64_t> default_attention_tiles(const AttentionOptions& options, const ChipConfig& chip);

}  // namespace cubekit::kernels
