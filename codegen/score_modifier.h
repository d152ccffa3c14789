// The score modifier of flash attention (sched::AttentionPlan::score_mod) on the vector unit: the
// values of the indices it reads, and its evaluation on a tile of scaled scores.
//
//   once per core    ramp = 0, 1, 2, ... (8 masked vdup, then doubling vadds)
//   per item         q = ramp + first query row;  b, h = 0 + the item's batch, head
//   per key tile     kv = ramp + first key
//   per key tile     S = g(S, b, h, q, kv)          q a Row; kv, b, h Cols: g's Full values
//
// b and h are the same for the whole tile; as Cols, a function of them and the key (ALiBi's
// slope_h kv) stays a Col, added to S without a tile of scratch.
//
// The vector unit takes no register as a float operand, so a tile's first index is added from
// its register bit by bit: for each bit of the tile number, `if (bit) v += 2^k * tile`, a vadds
// of an immediate, exact in f32 below 2^24 (plan_attention bounds the arithmetic by it).
#pragma once

#include "codegen/ir.h"
#include "codegen/vector_ops.h"
#include "schedules/attention.h"

#include <map>

namespace cubekit::dsl {
struct VarImpl;
}

namespace cubekit::codegen {

// A sum of terms value * weight, each value an Affine in [0, extent): a tile's first index.
struct IndexTerm {
  Affine value;
  int64_t extent = 1, weight = 1;
};

class ScoreIndices {
 public:
  // For tiles of `rows` rows (the S tile this core holds) and `cols` keys; buffers only for the
  // indices the plan's modifier reads.
  ScoreIndices(Kernel& k, const sched::AttentionPlan& plan, int64_t rows, int64_t cols);

  bool any() const { return ramp_ >= 0; }
  // The ramp, once, before the first item.
  std::vector<Node> ramp();
  // An item's: its query rows from `first_row`, and its batch and head from `bh` (b * heads + h).
  void item(std::vector<Node>& out, const std::vector<IndexTerm>& first_row, const Affine& bh);
  // A key tile's keys from key tile `tile`.
  void key_tile(std::vector<Node>& out, const Affine& tile);
  // The modifier's index variables and their values.
  const std::map<const dsl::VarImpl*, VValue>& values() const { return values_; }

 private:
  // dst = base + sum of the terms, bit by bit (base: the ramp, or 0 when null).
  void add_terms(std::vector<Node>& out, const VValue& dst, const VValue* base, const std::vector<IndexTerm>& terms);
  VValue value(VShape shape, int buffer) const;

  Kernel& k_;
  const sched::AttentionPlan& p_;
  int64_t rows_, cols_, n_;
  int ramp_ = -1, q_ = -1, kv_ = -1, b_ = -1, h_ = -1;
  std::map<const dsl::VarImpl*, VValue> values_;
};

// The plan's score modifier applied to the scaled scores `s` of a tile in UB, in place, on the
// vector unit, `index` the values of the indices it reads; nothing when the plan has none. A
// modifier that reads the score once is computed step by step in S itself; one that reads it more
// is evaluated into scratch first (a step in place would clobber a later read). One that makes Full
// values besides S (that, or a query index with a key's) runs over a row-major tile in strips of
// 32 rows, so that its scratch is a strip's: 128 x 128 tiles then fit the 910B2's UB.
void modify_scores(Kernel& k, ScratchPool& pool, const sched::AttentionPlan& plan, std::vector<Node>& out, VTile tile,
                   const VValue& s, const ScoreIndices& index);

}  // namespace cubekit::codegen
