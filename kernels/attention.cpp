#include "kernels/attention.h"
#include "kernels/tuned.h"

#include "codegen/fit.h"

#include "emulator/arith.h"
#include "emulator/error.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace cubekit::kernels {

namespace {

void check(const AttentionOptions& o) {
  // Named as the CLI's flag and the Python argument that set them: the same check serves both.
  auto positive = [](const char* what, const char* where, int64_t v) {
    if (v <= 0) user_error("attention: {} is {}; it must be positive ({})", what, v, where);
  };
  positive("the batch", "--batch; Python: q's first dim", o.batch);
  positive("the number of query heads", "--heads; Python: q's heads dim", o.heads);
  positive("the query length", "--seq-q; Python: q's L dim", o.seq_q);
  positive("the head dim", "--dim; Python: q's last dim", o.dim);
  if (o.kv_heads < 0)
    user_error("attention: the number of K/V heads is {}; it must be positive, or 0 for as many as the query heads (--kv-heads)",
               o.kv_heads);
  if (o.seq_kv < 0)
    user_error("attention: the key length is {}; it must be positive, or 0 for as long as the queries (--seq-kv)", o.seq_kv);
  // The scores are f32: a scale or cap past its range makes every score inf or NaN.
  constexpr double kF32Max = largest_finite(DType::f32);
  // The largest cap whose f32 tanh keeps each score to about 1e-3 (6e-8 c; see below).
  constexpr double kMaxSoftcap = 1e4;
  // Any finite scale, as torch's: a negative one turns the softmax's preference around (the flash
  // nest takes the maximum of the scaled scores, so it stays stable).
  if (!std::isfinite(o.scale)) user_error("attention: scale {} must be a finite number (left out: 1 / sqrt(dim))", o.scale);
  if (std::abs(o.scale) > kF32Max) user_error("attention: scale {} is past f32's range (the scores are f32); give at most {}", o.scale, kF32Max);
  if (o.softcap < 0 || !std::isfinite(o.softcap))
    user_error("attention: softcap {} must be a finite positive number (the cap of the scaled scores)", o.softcap);
  if (o.softcap > 0 && o.softcap < 2 / kF32Max)
    user_error("attention: softcap {} makes c tanh(s / c) overflow f32 (the kernel computes 2 / c); give one from {} to {}",
               o.softcap, 2 / kF32Max, kMaxSoftcap);
  if (o.softcap > kMaxSoftcap)
    user_error("attention: softcap {} is past {}: c tanh(s / c) is computed in f32 as c - 2c / (exp(2s / c) + 1), which "
               "loses about 6e-8 c of each score (at 1e6 the output was off by 0.07, at 1e8 it was V's mean); caps in use "
               "are 30 to 50 (Gemma 2's), and a cap far past the scores changes nothing: leave it out",
               o.softcap, kMaxSoftcap);
  if (o.softcap > 0 && o.score_mod)
    user_error("attention: both softcap {} and a score_mod are given; give one (write the cap into the score_mod: "
               "c tanh(s / c) = c - 2c / (exp(2s / c) + 1))", o.softcap);
  if (o.window < 0)
    user_error("attention: a sliding window of {} keys; it must be positive (the keys a query sees), or 0 for none (--window)",
               o.window);
  if (o.window > 0 && !o.causal)
    user_error("attention: a sliding window of {} key{} covers the keys up to each query (i - window < j <= i), so it needs "
               "causal attention: add --causal (Python: causal=True)", o.window, o.window == 1 ? "" : "s");
  if (o.tile_q < 0 || o.tile_kv < 0)
    user_error("attention: tiles {} x {}; each must be positive, or 0 for the default (--tile-q, --tile-kv)", o.tile_q, o.tile_kv);
  if (o.mask.size() > 4)
    user_error("attention: --mask has {} dims; it is at most (batch, heads, seq-q, seq-kv), its leading dims of 1 left out",
               o.mask.size());
  for (int64_t e : o.mask)
    if (e <= 0) user_error("attention: --mask {} has an extent {}; each must be positive", fmt::join(o.mask, ","), e);
}

// c tanh(s / c) = c - 2c / (exp(2 s / c) + 1) (the DSL has exp, not tanh), written so that each
// step is one vector instruction over the tile: the reciprocal of exp(..) + 1 >= 1 (a vrec, its
// result normal), times -2c, plus c. Finite for every s, exp's overflow to inf giving the cap
// itself. Not (-2c) / (..): a constant over a tile is an exact vdiv by it, whose tile of the
// constant took the UB that 128 x 128 tiles at head dim 128 need on the 910B2.
dsl::Expr softcap(const dsl::Expr& s, double c) { return (1.0 / (dsl::exp(s * (2.0 / c)) + 1.0)) * (-2.0 * c) + c; }

// ALiBi's bias of the score at `at` among `heads` heads: slope_h key (the paper's slope_h (key -
// query) without the row's constant, a Col: no tile of scratch).
dsl::Expr alibi_bias(const sched::ScoreIndex& at, int64_t heads) {
  const dsl::Expr slope = dsl::exp(dsl::cast(DType::f32, at.h + 1) * (-8.0 * std::log(2.0) / double(heads)));
  return slope * dsl::cast(DType::f32, at.kv);
}

// The options' Funcs, O scheduled flash(tq, tkv, preload) (and LSE stored with it when asked for).
Attention define(const AttentionOptions& o, int64_t tq, int64_t tkv) {
  const int64_t kv_heads = o.kv_heads ? o.kv_heads : o.heads, seq_kv = o.seq_kv ? o.seq_kv : o.seq_q;
  dsl::Input q("q", o.dtype, {o.batch, o.heads, o.seq_q, o.dim}), k("k", o.dtype, {o.batch, kv_heads, seq_kv, o.dim}),
      v("v", o.dtype, {o.batch, kv_heads, seq_kv, o.dim});
  const double scale = o.scale ? o.scale : 1.0 / std::sqrt(double(o.dim));
  sched::AttentionForm form{q, k, v, scale, o.causal, o.dtype};
  // A window of seq_q keys or more hides nothing (i - j <= i < seq_q): cut to seq_q. Near 2^31
  // the reference, which may compare i < j + window in 32 bits, overflowed and hid keys the
  // kernel showed (a correct kernel reported FAIL).
  form.window = std::min(o.window, o.seq_q);
  if (o.softcap > 0) form.score_mod = [c = o.softcap](const dsl::Expr& s) { return softcap(s, c); };
  // A modifier's constants below kMaskedScore are kMaskedScore, as Python clamps float masks: a
  // -inf (FlexAttention's way to mask a key) fell below the causal mask's hidden keys
  // (kHiddenScore), so that a query whose visible keys it all masked attended to keys past it.
  // (Constants, not the result: a clamp of every score took UB a 128 x 128 tile needs.)
  if (o.score_mod)
    form.score_mod = [g = o.score_mod](const dsl::Expr& s, const sched::ScoreIndex& at) {
      return dsl::raise_float_constants(g(s, at), sched::kMaskedScore);
    };
  if (o.alibi)
    form.score_mod = [g = form.score_mod, heads = o.heads](const dsl::Expr& s, const sched::ScoreIndex& at) {
      return (g ? g(s, at) : s) + alibi_bias(at, heads);
    };
  if (!o.mask.empty()) {
    std::vector<int64_t> shape(4 - o.mask.size(), 1);
    shape.insert(shape.end(), o.mask.begin(), o.mask.end());
    form.mask = dsl::Input("mask", DType::f32, shape);
  }
  Attention a{q, k, v, form.mask, sched::attention_form(form)};
  a.funcs.o.flash(tq, tkv, o.preload);
  if (o.lse) a.funcs.lse.store_with(a.funcs.o);
  a.lse = o.lse;
  a.tile_q = tq, a.tile_kv = tkv;
  return a;
}

// Whether the chip's buffers hold the flash nest at these tiles: the lowering's own measure.
bool fits(const AttentionOptions& o, int64_t tq, int64_t tkv, const ChipConfig& chip) {
  Attention a = define(o, tq, tkv);
  sched::AttentionPlan plan = sched::plan_attention(a.funcs.o, chip);
  if (o.lse) sched::attach_lse(plan, a.funcs.lse);
  return codegen::attention_overflow(plan, chip) == Space::GM;
}

// What the busiest core of a flash nest costs, in units of a row and a key: the cores take the
// items in rounds (under a causal mask the longest query tiles first, in snake order where the
// cores start together, as the nests do: codegen::attention_items), and an item of tq query rows visiting n key tiles of tkv costs
// (tq + 16) n (tkv + 512). A tile pays for more than its rows and keys: the K/V stream and the
// hand-offs of each key tile, about 11 rows' worth on the 910B2 at S = 4K (rounds of 64 rows
// 22.3 us, of 128 rows 41.3 us), taken as 16; and, on many cores, a key tile of 64 costs nearly
// what one of 128 does: 512 keys' worth is fitted to the timing model's runs of causal attention
// (batch x heads 1, 2, 3, 8; S 512 to 8K; every chip; tiles 32, 64, 128), where it picks tiles
// within 1% of the best on average and 17.5% at worst (S = 512, 1 head, on the 910B2), against 7%
// and 55% for the rounds alone. Unmasked, the key tiles are the same whatever the query tile.
double max_core_cost(const AttentionOptions& o, int64_t heads, int64_t tq, int64_t tkv, int64_t seq_kv,
                     const ChipConfig& chip) {
  constexpr double kTileRows = 16, kTileKeys = 512;
  const int64_t q_tiles = cdiv(o.seq_q, tq), kv_tiles = cdiv(seq_kv, tkv), items = heads * q_tiles;
  const int64_t bn = std::min<int64_t>(items, chip.cores);
  const bool snake = chip.timing.core_start_cycles == 0;
  const double per_key_tile = (double(tq) + kTileRows) * (double(tkv) + kTileKeys);
  if (!o.causal) return double(cdiv(items, bn) * kv_tiles) * per_key_tile;
  std::vector<double> core(size_t(bn), 0.0);
  for (int64_t u = 0; u < items; ++u) {
    const int64_t round = u / bn, at = u % bn, c = snake && round % 2 ? bn - 1 - at : at;
    const int64_t qi = q_tiles - 1 - u / heads;  // query rows i see keys j <= i
    core[size_t(c)] += double(std::min(qi + 1, kv_tiles)) * per_key_tile;
  }
  return *std::max_element(core.begin(), core.end());
}

}  // namespace

double attention_flops(const AttentionOptions& o) {
  const double q = double(o.seq_q), kv = double(o.seq_kv ? o.seq_kv : o.seq_q);
  double pairs = q * kv;
  if (o.causal) {  // query i sees keys max(0, i - window + 1) .. min(i, seq_kv - 1)
    const int64_t keys = o.seq_kv ? o.seq_kv : o.seq_q;
    pairs = 0;
    for (int64_t i = 0; i < o.seq_q; ++i) {
      const int64_t first = o.window ? std::max<int64_t>(0, i - o.window + 1) : 0, last = std::min(i, keys - 1);
      pairs += double(std::max<int64_t>(0, last - first + 1));
    }
  }
  return 4.0 * double(o.batch) * double(o.heads) * double(o.dim) * pairs;
}

namespace {
// The options' form planned at tiles of 16 and the default preload: what the form itself decides
// (causal, the score modifier), before the tiles are chosen (their errors are the run's).
sched::AttentionPlan form_plan(const AttentionOptions& o, const ChipConfig& chip) {
  AttentionOptions probe = o;
  probe.preload = 0;
  return sched::plan_attention(define(probe, 16, 16).funcs.o, chip);
}
}  // namespace

std::pair<int64_t, int64_t> default_attention_tiles(const AttentionOptions& o, const ChipConfig& chip) {
  check(o);
  const int64_t seq_kv = o.seq_kv ? o.seq_kv : o.seq_q;
  // Tensors too big for the host are the user's error here, before any arithmetic on their sizes.
  // Causal as the plan finds it: a score_mod may write the causal mask (FlexAttention's
  // select(kv <= q, s, -inf)), whose tiles must be square as causal=True's.
  AttentionOptions as = o;
  if (o.score_mod && !o.causal) as.causal = form_plan(o, chip).causal;
  else define(o, 16, 16);
  // Tiles given are kept as given (compile checks them); a causal mask's open one follows the other.
  auto tiles = [&](int64_t q) {
    // (min before round_up: a length near INT64_MAX is the plan's error to report, not an overflow here)
    int64_t tq = o.tile_q ? o.tile_q : round_up(std::min(q, o.seq_q), 16);
    int64_t tkv = o.tile_kv ? o.tile_kv : as.causal ? tq : round_up(std::min<int64_t>(128, seq_kv), 16);
    if (as.causal && !o.tile_q && o.tile_kv) tq = tkv;
    return std::pair{tq, tkv};
  };
  if (o.tile_q) return tiles(o.tile_q);
  // Of the query tiles that fit, the one whose busiest core costs least (max_core_cost). 4K
  // queries on 24 cores then run as 3 rounds of 64 rows (2 of 128 leave 16 cores idle in the
  // second), 8K as 3 rounds of 128 rather than 11 of 32, 2K as one round of 128; causal, where a
  // key tile is as big as a query tile, 4K as 128 rows (on the 910B2 51.9 us, against 63.8 at 64).
  // The largest wins a tie.
  const int64_t heads = o.batch * o.heads;
  std::pair<int64_t, int64_t> best = tiles(16);
  double best_cost = INFINITY;
  for (int64_t q : {128, 64, 32}) {
    auto [tq, tkv] = tiles(q);
    if (!fits(o, tq, tkv, chip)) continue;
    const double cost = max_core_cost(as, heads, tq, tkv, seq_kv, chip);
    if (cost < best_cost) best = {tq, tkv}, best_cost = cost;
  }
  return best;
}

double attention_score_reach(const AttentionOptions& o, const ChipConfig& chip, double bound) {
  check(o);
  return sched::score_reach(form_plan(o, chip), bound);
}

Attention attention(const AttentionOptions& options, const ChipConfig& chip) {
  check_chip(chip);  // a config changed in C++: its figures divide the schedule's sizes
  check(options);
  AttentionOptions o = options;
  std::optional<tune::Tuned> tuned = take_tuned(o, chip);
  auto [tq, tkv] = default_attention_tiles(o, chip);
  Attention a = define(o, tq, tkv);
  a.preload = sched::plan_attention(a.funcs.o, chip).preload;
  a.tuned = tuned;
  return a;
}

std::vector<dsl::Func> Attention::outputs() const {
  if (lse) return {funcs.o, funcs.lse};
  return {funcs.o};
}

}  // namespace cubekit::kernels
