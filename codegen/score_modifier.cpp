#include "codegen/score_modifier.h"

#include "codegen/vector_eval.h"
#include "dsl/expr.h"
#include "emulator/arith.h"

namespace cubekit::codegen {

namespace {
// The bits of values in [0, extent).
int bits_of(int64_t extent) {
  int n = 0;
  while ((int64_t(1) << n) < extent) ++n;
  return n;
}
}  // namespace

ScoreIndices::ScoreIndices(Kernel& k, const sched::AttentionPlan& plan, int64_t rows, int64_t cols)
    : k_(k), p_(plan), rows_(rows), cols_(cols), n_(round_up(std::max(rows, cols), 8)) {
  if (!plan.score_mod.defined() || !(plan.reads[0] || plan.reads[1] || plan.reads[2] || plan.reads[3])) return;
  const int64_t bytes = round_up(n_ * 4, 32);
  ramp_ = k_.new_buffer("index_ramp", Space::UB, bytes, 1);
  int* buffer[] = {&b_, &h_, &q_, &kv_};
  const char* names[] = {"index_b", "index_h", "index_q", "index_kv"};
  const sched::ScoreIndex& ix = plan.index;
  const dsl::Expr* vars[] = {&ix.b, &ix.h, &ix.q, &ix.kv};
  for (int d = 0; d < 4; ++d) {
    if (!plan.reads[d]) continue;
    *buffer[d] = k_.new_buffer(names[d], Space::UB, bytes, 1);
    values_[vars[d]->node().var.get()] = value(d == 2 ? VShape::Row : VShape::Col, *buffer[d]);
  }
}

VValue ScoreIndices::value(VShape shape, int buffer) const { return {shape, DType::f32, {-1, buffer, Affine(0)}, 0}; }

std::vector<Node> ScoreIndices::ramp() {
  std::vector<Node> out;
  if (!any()) return out;
  for (int lane = 0; lane < 8; ++lane)
    out.push_back(instr("vdup.f32", Pipe::V, {{-1, ramp_, Affine(0)}},
                        {mem_arg(0), num(lane), kw("repeat", imm(1)), kw("mask", mask_bits(0, uint64_t(1) << lane))}));
  ScratchPool unused(k_);
  for (int64_t w = 8; w < n_; w *= 2) {  // [w, 2w) = [0, w) + w
    const int64_t count = std::min(w, n_ - w);
    VectorOps ops(k_, unused, out, {1, count, count, false});
    ops.binary(VBinary::Add, {VShape::Col, DType::f32, {-1, ramp_, Affine(w * 4)}, 0}, value(VShape::Col, ramp_),
               VValue::scalar(DType::f32, double(w)));
  }
  return out;
}

void ScoreIndices::add_terms(std::vector<Node>& out, const VValue& dst, const VValue* base, const std::vector<IndexTerm>& terms) {
  ScratchPool unused(k_);
  const VTile tile{rows_, cols_, round_up(cols_, 16), false};
  {
    VectorOps ops(k_, unused, out, tile);
    if (base) ops.binary(VBinary::Add, dst, *base, VValue::scalar(DType::f32, 0));
    else ops.fill(dst, 0);
  }
  for (const IndexTerm& t : terms) {
    const int quotient = k_.new_var("index_t"), bit = k_.new_var("index_bit");
    for (int b = 0; b < bits_of(t.extent); ++b) {
      out.push_back(let(quotient, t.value, LetOp::Div, int64_t(1) << b));
      out.push_back(let(bit, Affine::var(quotient), LetOp::Rem, 2));
      std::vector<Node> add;
      VectorOps(k_, unused, add, tile).binary(VBinary::Add, dst, dst, VValue::scalar(DType::f32, double(t.weight << b)));
      out.push_back(when(Affine::var(bit), 1, std::move(add), {}));
    }
  }
}

void ScoreIndices::item(std::vector<Node>& out, const std::vector<IndexTerm>& first_row, const Affine& bh) {
  if (q_ >= 0) {
    const VValue ramp = value(VShape::Row, ramp_);
    add_terms(out, value(VShape::Row, q_), &ramp, first_row);
  }
  if (b_ < 0 && h_ < 0) return;
  const int b = k_.new_var("index_b"), h = k_.new_var("index_h");
  out.push_back(let(b, bh, LetOp::Div, p_.heads));
  out.push_back(let(h, bh, LetOp::Rem, p_.heads));
  if (b_ >= 0) add_terms(out, value(VShape::Col, b_), nullptr, {{Affine::var(b), p_.batch, 1}});
  if (h_ >= 0) add_terms(out, value(VShape::Col, h_), nullptr, {{Affine::var(h), p_.heads, 1}});
}

void ScoreIndices::key_tile(std::vector<Node>& out, const Affine& tile) {
  if (kv_ < 0) return;
  const VValue ramp = value(VShape::Col, ramp_);
  add_terms(out, value(VShape::Col, kv_), &ramp, {{tile, p_.kv_tiles(), p_.tile_kv}});
}

namespace {

// Rows of a strip. A Full value of scratch for the 64 rows a vector core of the 910B2 holds of a
// 128 x 128 tile is 32 KB, more than its UB has left; for 32 rows of 128 keys it is 16 KB, the
// size of a buffer the online softmax takes anyway (the pool hands the one to the other), and the
// tile fits. Measured on the 910B2 (S = 2K, 8 heads, causal, a bias by i - j): whole 64 x 64 tiles
// 246.8 K cycles; 128 x 128 in strips of 32 rows 232.9 K; of 16 rows UB is 256 B short; of 8, 251.7 K
// (more instructions than the bigger tile saves).
constexpr int64_t kStripRows = 32;

// Whether g makes a Full value besides S: it reads the score more than once (evaluated into
// scratch), or a query's index (a Row) with a key's, a batch's or a head's (Cols).
bool makes_full_values(const sched::AttentionPlan& plan) {
  return dsl::occurrences(plan.score_mod, plan.score.get()) > 1 ||
         (plan.reads[2] && (plan.reads[0] || plan.reads[1] || plan.reads[3]));
}

void modify_tile(Kernel& k, ScratchPool& pool, const sched::AttentionPlan& plan, std::vector<Node>& out, VTile tile,
                 const VValue& s, const std::map<const dsl::VarImpl*, VValue>& index) {
  VectorOps ops(k, pool, out, tile);
  const std::map<const dsl::InputImpl*, VValue> inputs;
  const std::map<const dsl::FuncImpl*, VValue> funcs = {{plan.score.node().func.get(), s}};
  Evaluator ev(ops, inputs, funcs, index);
  if (dsl::occurrences(plan.score_mod, plan.score.get()) == 1) {  // in place, step by step, in S
    ev.scribble(s);
    ev.eval(plan.score_mod, &s);
    return;
  }
  VValue v = ev.materialize(plan.score_mod, VShape::Full);
  ops.binary(VBinary::Add, s, v, VValue::scalar(DType::f32, 0));
  ops.done(v);
}

}  // namespace

void modify_scores(Kernel& k, ScratchPool& pool, const sched::AttentionPlan& plan, std::vector<Node>& out, VTile tile,
                   const VValue& s, const ScoreIndices& index) {
  if (!plan.score_mod.defined()) return;
  if (tile.nz || tile.rows <= kStripRows || !makes_full_values(plan)) return modify_tile(k, pool, plan, out, tile, s, index.values());
  // Row-major (the split chips): strip by strip, each strip's rows of S and of the query index.
  for (int64_t r0 = 0; r0 < tile.rows; r0 += kStripRows) {
    VValue strip = s;
    strip.at.offset = s.at.offset + Affine(r0 * tile.pitch * 4);
    std::map<const dsl::VarImpl*, VValue> values = index.values();
    for (auto& [var, v] : values)
      if (v.shape == VShape::Row) v.at.offset = v.at.offset + Affine(r0 * 4);
    modify_tile(k, pool, plan, out, {std::min(kStripRows, tile.rows - r0), tile.cols, tile.pitch, false}, strip, values);
  }
}

}  // namespace cubekit::codegen
