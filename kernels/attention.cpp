#include "kernels/attention.h"

#include "emulator/arith.h"
#include "emulator/error.h"

#include <cmath>

namespace cubekit::kernels {

namespace {

void check(const AttentionOptions& o) {
  auto positive = [](const char* what, int64_t v) {
    if (v <= 0) user_error("attention: --{} {} must be positive", what, v);
  };
  positive("batch", o.batch);
  positive("heads", o.heads);
  positive("seq-q", o.seq_q);
  positive("dim", o.dim);
  if (o.kv_heads < 0) user_error("attention: --kv-heads {} must be positive (0: as many as --heads)", o.kv_heads);
  if (o.seq_kv < 0) user_error("attention: --seq-kv {} must be positive (0: as long as --seq-q)", o.seq_kv);
  if (o.scale < 0 || !std::isfinite(o.scale)) user_error("attention: scale {} must be a positive number (0: 1 / sqrt(dim))", o.scale);
  if (o.tile_q < 0 || o.tile_kv < 0) user_error("attention: tiles {} x {} must be positive (0: the default)", o.tile_q, o.tile_kv);
}

}  // namespace

std::pair<int64_t, int64_t> default_attention_tiles(const AttentionOptions& o, const ChipConfig& chip) {
  const int64_t seq_kv = o.seq_kv ? o.seq_kv : o.seq_q;
  // Tiles given are kept as given (plan_attention checks them); a causal mask's open one follows the other.
  auto tiles = [&](int64_t q) {
    int64_t tq = o.tile_q ? o.tile_q : std::min(q, round_up(o.seq_q, 16));
    int64_t tkv = o.tile_kv ? o.tile_kv : o.causal ? tq : std::min<int64_t>(128, round_up(seq_kv, 16));
    if (o.causal && !o.tile_q && o.tile_kv) tq = tkv;
    return std::pair{tq, tkv};
  };
  for (int64_t q : {128, 64, 32})
    if (auto [tq, tkv] = tiles(q); sched::attention_overflow(tq, tkv, o.dim, chip) == Space::GM) return {tq, tkv};
  return tiles(16);
}

Attention attention(const AttentionOptions& o, const ChipConfig& chip) {
  check(o);
  const int64_t kv_heads = o.kv_heads ? o.kv_heads : o.heads, seq_kv = o.seq_kv ? o.seq_kv : o.seq_q;
  dsl::Input q("q", o.dtype, {o.batch, o.heads, o.seq_q, o.dim}), k("k", o.dtype, {o.batch, kv_heads, seq_kv, o.dim}),
      v("v", o.dtype, {o.batch, kv_heads, seq_kv, o.dim});
  const double scale = o.scale ? o.scale : 1.0 / std::sqrt(double(o.dim));
  Attention a{q, k, v, sched::attention_form({q, k, v, scale, o.causal, o.dtype})};
  auto [tq, tkv] = default_attention_tiles(o, chip);
  a.funcs.o.flash(tq, tkv);
  return a;
}

}  // namespace cubekit::kernels
