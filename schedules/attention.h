// Attention, softmax(scale * Q Kᵀ) V per batch and head, and how a flash() schedule maps it.
//
// The algorithm is written as Funcs (`attention_form`), the way a user reads it:
//   S(b, h, i, j) = g(scale * sum_r f32(Q(b, h, i, r)) * f32(K(b, h / g, j, r)))   [+ f32(A(b', h', i', j))]
//                                                                                  [causal: -big where j > i]
//   M(b, h, i)    = maximum_t S(b, h, i, t)
//   E(b, h, i, j) = exp(S(b, h, i, j) - M(b, h, i))
//   L(b, h, i)    = sum_t E(b, h, i, t)
//   O(b, h, i, d) = cast(out, sum_t E(b, h, i, t) * f32(V(b, h / g, t, d)) / L(b, h, i))
//   LSE(b, h, i)  = M(b, h, i) + log(L(b, h, i))     the logsumexp of the scaled scores (optional:
//                                                    LSE.store_with(O) makes it O's kernel's too)
// g, the score modifier, is any elementwise function of the scaled score alone, made of constants
// and the DSL's arithmetic, math, comparisons and select (the identity when there is none):
// softcapping's c tanh(s / c), a clamp, a temperature. It is written in S's definition; flash()
// evaluates it on each score tile on the vector unit, before the mask.
// g = heads / kv_heads (grouped-query attention: g query heads share a K/V head). A, the optional
// additive mask (torch's attn_mask as a float), is (B or 1, H or 1, L or 1, S): b', h', i' are 0
// where its extent is 1 (broadcast), else b, h, i.
//
// O.flash(tile_q, tile_kv) is the schedule: per core, for each (b, h, query tile) in its share,
//
//   Q tile [tile_q x D] -> L1, resident
//   m = -big, l = 0, O = 0                         (UB, f32)
//   for each key tile j (causal: up to the diagonal):
//     S_j = Q K_jᵀ on the cube -> UB               (f32)
//     S_j *= scale; mask; m' = max(m, rowmax S_j); a = exp(m - m'); P = exp(S_j - m')
//     l = a l + rowsum P; m = m'
//     O = a O + P V_j on the cube                  (P cast to the input type)
//   O / l -> GM
#pragma once

#include "dsl/func.h"
#include "emulator/chip_config.h"
#include "emulator/cross_core.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

namespace cubekit::sched {

// What masked scores hold: exp of it less any real score is 0 in f32.
inline constexpr double kMaskedScore = -1e30;
// What a key the causal mask or a sliding window hides holds in the kernels' form: less than any
// masked score, so a query whose every visible key is masked (an additive mask of -1e30 on them)
// spreads over those keys, as torch's -inf causal mask does -- and as a flash kernel, which reads
// only the key tiles a query sees, computes. (Written -1e30, as a Func of one's own may, a hidden
// key ties with a masked one and such a row would spread over every key, hidden ones too.)
inline constexpr double kHiddenScore = -2e38;
// The largest |scale q.k| the masks stay apart from where a mask, the causal mask, a window or a
// score_mod can hide keys: a masked key scores its score + kMaskedScore, and only while every score
// is within 1e29 of 0 does that stay below each visible key's (at scale 1e37 a causal query
// attended to the keys after it). kernels::attention's callers keep to it: Python from its arrays'
// norms, the CLI from its inputs' range ([-1, 1)).
inline constexpr double kLargestScore = 1e29;
// kHiddenScore or kMaskedScore, or either rounded to f32 (a C++ Func's -1e30f).
inline bool is_hidden_score(double v) {
  for (double h : {kHiddenScore, kMaskedScore})
    if (v == h || v == double(float(h))) return true;
  return false;
}
// The keys past the sequence in a kernel's last key tile hold less still: a row whose every key is
// masked then spreads over its keys, as the unfused softmax does, not over the padding too.
inline constexpr double kPaddedScore = -3e38;
// Where the flash kernels' running max starts, below both (f32's lowest is -3.40282e38): the first
// key tile's rescale exp(start - max) is 0 even when every score of the row is masked, so nothing
// the previous query tile left in the row's sum and output stays.
inline constexpr double kRunningMaxStart = -3.4e38;

// Where a score is: its batch, head, query and key (FlexAttention's b, h, q_idx and kv_idx), s32
// expressions a score modifier may read.
struct ScoreIndex {
  dsl::Expr b, h, q, kv;
};

// A score modifier g: what the scaled score becomes, elementwise, given the score and where it is.
// Made from a function of the score alone or of the score and its ScoreIndex.
class ScoreMod {
 public:
  ScoreMod() = default;
  ScoreMod(std::nullptr_t) {}
  template <class F, class = std::enable_if_t<std::is_invocable_v<const F&, const dsl::Expr&, const ScoreIndex&> ||
                                              std::is_invocable_v<const F&, const dsl::Expr&>>>
  ScoreMod(F f) {
    if constexpr (std::is_invocable_v<const F&, const dsl::Expr&, const ScoreIndex&>)
      f_ = std::move(f);
    else
      f_ = [f = std::move(f)](const dsl::Expr& s, const ScoreIndex&) { return dsl::Expr(f(s)); };
  }
  explicit operator bool() const { return bool(f_); }
  dsl::Expr operator()(const dsl::Expr& score, const ScoreIndex& at) const { return f_(score, at); }

 private:
  std::function<dsl::Expr(const dsl::Expr&, const ScoreIndex&)> f_;
};

struct AttentionForm {
  dsl::Input q, k, v;
  double scale = 1;
  bool causal = false;
  DType out = DType::f16;
  // Additive, f32, (B or 1, H or 1, L or 1, S). Keep its values at kMaskedScore or above: one below
  // kHiddenScore outweighs the keys the causal mask hides (Python clamps its float masks so).
  std::optional<dsl::Input> mask;
  ScoreMod score_mod;              // g of the scaled score and its indices (null: none)
  // Causal only: a sliding window of this many keys, query i seeing keys i - window + 1 .. i
  // (Mistral's); 0: none. S = select(j <= i, select(i - j < window, .., hidden), hidden).
  int64_t window = 0;
  double hidden = kHiddenScore;  // what the causal mask and the window write: kHiddenScore or kMaskedScore
  // P V multiplies E rounded to the inputs' type, sum_t f32(in(E)) V: what the cube multiplies
  // (a kernel written so rounds P as it hands it to the cube; the reference then does too).
  bool rounded_p = false;
};
// The Funcs of the form above, named <name>_scores, _max, _exp, _sum, <name> (the output) and
// <name>_lse.
struct AttentionFuncs {
  dsl::Func s, m, e, l, o, lse;
};
AttentionFuncs attention_form(const AttentionForm& form, const std::string& name = "attention");

// On a split chip the cube core computes S `preload` key tiles ahead of its vector cores
// (flash()'s third argument; by default 4, the published 910B kernels' qkPreloadNum), through as
// many hand-off slots plus one, whose credits a cross-core flag counts (kCrossMaxOutstanding at
// most). On the 950 S and P V each have two slots in the vector cores' UB. A coupled core's one
// nest computes S one key tile ahead.
inline constexpr int64_t kAttentionPreload = 4;
inline constexpr int64_t kAttentionMaxPreload = kCrossMaxOutstanding - 1;
inline constexpr int kAttentionUbSlots = 2;
// P V's hand-off slots on a split chip: the cube core makes the next tile's P V in one while the
// vector cores take this one's from the other.
inline constexpr int kAttentionPvSlots = 2;

struct AttentionPlan {
  std::string func_name;
  std::shared_ptr<dsl::InputImpl> q, k, v;
  DType in = DType::f16, out = DType::f16;
  int64_t batch = 1, heads = 1, kv_heads = 1, seq_q = 0, seq_kv = 0, dim = 0;
  double scale = 1;
  bool causal = false;
  int64_t window = 0;  // the causal mask's sliding window (AttentionForm::window); 0: none
  double hidden = kHiddenScore;  // what the causal mask and the window write (AttentionForm::hidden)
  bool rounded_p = false;        // the user's O rounds P to the inputs' type (AttentionForm::rounded_p)
  int64_t tile_q = 0, tile_kv = 0;
  int64_t preload = 1;  // key tiles the cube computes S ahead of the softmax (kAttentionPreload)
  std::string schedule;  // "flash(128, 128)", as written, for messages
  std::string lse;  // the logsumexp output's name (f32, batch x heads x seq_q), or empty
  std::shared_ptr<dsl::InputImpl> mask;  // the additive mask (f32), or null
  // The score modifier g as an expression of `score`, a call of a Func that stands for the scaled
  // score a tile holds, and of the Vars in `index` (the score's b, h, q and kv), integer index
  // arithmetic done in f32 (exact: plan_attention bounds it by 2^24); undefined when there is none.
  dsl::Expr score_mod, score;
  ScoreIndex index;
  dsl::Expr written_mod;  // score_mod with its integer arithmetic as written (the form's)
  bool reads[4] = {};  // which of index's b, h, q, kv score_mod reads
  // Which of the mask's batch, head and query dims it has (the others broadcast: extent 1).
  bool mask_b = false, mask_h = false, mask_i = false;
  // The chip's nest: the split chips' cube and vector cores (`split`), the 950's on-chip hand-offs
  // (`direct`: attention_direct).
  bool split = false, direct = false;
  int64_t group() const { return heads / kv_heads; }
  int64_t q_tiles() const { return (seq_q + tile_q - 1) / tile_q; }
  int64_t kv_tiles() const { return (seq_kv + tile_kv - 1) / tile_kv; }
  // With a sliding window: the key tiles before the diagonal tile it reaches, ceil((window - 1) /
  // tile_kv) (tile_q == tile_kv under the causal mask); query tile qi reads key tiles from
  // max(0, qi - window_tiles()). Its first such tile masks keys c < r + window_shift() of row r, the
  // next c < r + window_shift() - tile_kv.
  int64_t window_tiles() const { return (window - 1 + tile_kv - 1) / tile_kv; }
  int64_t window_shift() const { return window_tiles() * tile_kv - window + 1; }
  std::string str() const;
};

// The largest |score| the plan's score modifier can make of scaled scores within [-bound, bound]
// (interval arithmetic; a select's masking constant left out; infinity where it cannot tell):
// what must stay below kLargestScore wherever keys are masked or hidden. `bound` without one.
double score_reach(const AttentionPlan& p, double bound);

// Whether the Func carries a flash() schedule.
bool is_attention(const dsl::Func& f);

// Checks that the Func is attention in the form above (a user error naming what differs) and plans
// it. Whether its flash() tiles fit the chip's buffers is the lowering's measure
// (codegen::fit_attention).
AttentionPlan plan_attention(const dsl::Func& f, const ChipConfig& chip);

// Makes `lse` (LSE.store_with(O)) the plan's second output, after checking it is the logsumexp of
// the plan's attention in the form above (a user error naming the form otherwise).
void attach_lse(AttentionPlan& plan, const dsl::Func& lse);

// Whether the split nest hands S and P V to the vector cores by the cube core's FixPipe into their
// UB and P back by UB -> L1 (the 950's paths), rather than through GM.
bool attention_direct(const ChipConfig& chip);

}  // namespace cubekit::sched
