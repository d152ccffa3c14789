#include "codegen/lower_attention.h"

#include "codegen/core_tiles.h"
#include "codegen/score_modifier.h"
#include "codegen/tile_loop.h"
#include "codegen/vector_eval.h"
#include "codegen/vector_ops.h"
#include "emulator/arith.h"
#include "emulator/error.h"

#include <memory>

namespace cubekit::codegen {

namespace {

class FlashNest {
 public:
  FlashNest(const sched::StageGraph& g, const ChipConfig& chip)
      : g_(g), p_(*g.attention), chip_(chip), m16_(round_up(g.attention->tile_q, 16)), kv16_(round_up(g.attention->tile_kv, 16)),
        in_size_(dtype_size(g.attention->in)) {}

  Kernel lower() {
    k_ = attention_kernel(p_, {{"_p", p_.in}});
    auto buffer = [&](const char* stage, bool slots = false) { return flash_buffer(k_, g_, stage, slots); };
    l1q_ = buffer("Q.l1");
    l1k_ = buffer("K.l1");
    l1v_ = buffer("V.l1");
    l1p_ = buffer("P.l1");
    l0a_ = buffer("QP.l0a");
    l0b_ = buffer("KV.l0b");
    l0s_ = buffer("S");
    l0o_ = buffer("PV");
    ub_s_ = buffer("S.ub");
    ub_p_ = buffer("P");
    ub_pv_ = buffer("PV.ub");
    ub_o_ = buffer("O.acc");
    ub_r_ = buffer("O.ub");
    max_ = buffer("M");
    sum_ = buffer("L");
    tile_max_ = buffer("MT");
    alpha_ = buffer("A", true);  // a key tile's, and the previous one's
    row_bytes_ = k_.buffers[size_t(alpha_)].bytes / 2;
    tile_sum_ = buffer("LT");
    if (!p_.lse.empty()) lse_ = buffer("LSE");
    if (p_.mask) {  // the mask's tile as S holds it (NZ), or its row of keys
      mk_ = buffer("mask.ub");
      mask_t_ = tensor_named(k_, p_.mask->name);
    }
    spread_ = buffer("SP");
    pool_ = std::make_unique<ScratchPool>(k_);
    index_ = std::make_unique<ScoreIndices>(k_, p_, m16_, kv16_);

    const TileSpace space = attention_items(p_, chip_);
    const int64_t items = space.fused();
    k_.block_dim = int(std::min<int64_t>(items, chip_.cores));
    k_.tensors[4].shape = {k_.block_dim, m16_ * kv16_};
    CoreTiles tiles = core_tiles(k_, true, items, 1, "", space.snake);
    std::vector<int> index;
    std::vector<Node> item = decode_tiles(k_, space, Affine::var(tiles.w), "", index);
    const auto [bh, qi] = attention_item(k_, p_, index, item, "");
    const int kvh = k_.new_var("kvh");
    item.push_back(let(kvh, bh, LetOp::Div, p_.group()));
    plane_ = mask_plane(k_, p_, bh, item, "");
    const int64_t q_tail = p_.seq_q - (p_.q_tiles() - 1) * p_.tile_q;
    item += with_tail(qi, p_.q_tiles(), p_.tile_q, q_tail, [&](int64_t mt) {
      return one_item(bh, qi, Affine::var(kvh), mt);
    });
    std::vector<Node> body = index_->ramp();
    body += std::move(tiles.setup);
    body.push_back(flag(SyncKind::Set, false));
    body.push_back(tiles.loop(std::move(item)));
    body.push_back(flag(SyncKind::Wait, false));
    k_.body = zero_scratch(std::move(body));
    return std::move(k_);
  }

 private:
  VValue full(int buffer, DType t = DType::f32) const { return {VShape::Full, t, {-1, buffer, Affine(0)}, 0}; }
  VValue row(int buffer, Affine at = Affine(0)) const { return {VShape::Row, DType::f32, {-1, buffer, std::move(at)}, 0}; }
  // Key tile j's a = exp(m_old - m_new): of the two copies, j % 2 (`parity` a variable).
  VValue alpha(int parity) const { return row(alpha_, Affine::var(parity, row_bytes_)); }
  VTile nz(int64_t cols) const { return {m16_, cols, round_up(cols, 16), true}; }

  // One query tile of mt rows: its key tiles, then the output.
  std::vector<Node> one_item(const Affine& bh, const Affine& qi, const Affine& kvh, int64_t mt) {
    const int64_t d = p_.dim;
    mt_ = mt;
    const Affine q_off = (bh * p_.seq_q + qi * p_.tile_q) * d;  // elements into Q and O
    std::vector<Node> body;
    index_->item(body, {{qi, p_.q_tiles(), p_.tile_q}}, bh);
    first_ = first_key_tile(k_, p_, qi, body, "");
    Node q{Node::Kind::Move};
    q.src = {{0, -1, q_off * in_size_}, Layout::ND, p_.in, mt, d, d};
    q.dst = {{-1, l1q_, 0}, Layout::NZ, p_.in, mt, d, m16_};
    body.push_back(q);
    const int64_t n = p_.kv_tiles(), kv_tail = p_.seq_kv - (n - 1) * p_.tile_kv;
    const int j = k_.new_var("kt");
    const Affine jv = Affine::var(j);
    auto scores_of = [&](const Affine& at) {
      return with_tail(at, n, p_.tile_kv, kv_tail, [&](int64_t nt) { return scores(q.dst, at, kvh, nt); });
    };
    // The loop over key tiles [0, end): each tile's S computed one tile ahead (S_{j+1} on the cube
    // while the vector unit makes P_j; `has_next` is j + 1 < end as `next_from` < 0).
    auto keys = [&](const Affine& end, const Affine& next_from) {
      const int par = k_.new_var("par"), prev = k_.new_var("prev"), last = k_.new_var("last");
      std::vector<Node> each = {let(par, jv, LetOp::Rem, 2), let(prev, jv + Affine(1), LetOp::Rem, 2)};
      each += with_tail(jv, n, p_.tile_kv, kv_tail, [&](int64_t nt) {
        return key_tile(jv, qi, kvh, nt, when_less(next_from, 0, scores_of(jv + Affine(1)), {}), par, prev);
      });
      std::vector<Node> out = scores_of(first_);
      out.push_back(loop(j, first_, end, Affine(1), std::move(each)));
      out.push_back(let(last, end + Affine(1), LetOp::Rem, 2));  // (end - 1) % 2
      return out += update(last);
    };
    // Causal: the key tiles up to the diagonal, tile qi (tile_q == tile_kv); past the keys, all of them.
    if (p_.causal && p_.q_tiles() <= n) body += keys(qi + Affine(1), jv - qi);
    else if (p_.causal) body.push_back(when_less(qi, n, keys(qi + Affine(1), jv - qi), keys(Affine(n), jv - Affine(n - 1))));
    else body += keys(Affine(n), jv - Affine(n - 1));
    std::vector<Node> result;
    row_op(body, VBinary::Div, ub_o_, row(sum_).at, d);
    VectorOps(k_, *pool_, result, nz(d)).cast(full(ub_r_, p_.out), full(ub_o_));
    Node store{Node::Kind::Move};
    store.src = {{-1, ub_r_, 0}, Layout::NZ16, p_.out, mt, d, m16_};
    store.dst = {{3, -1, q_off * dtype_size(p_.out)}, Layout::ND, p_.out, mt, d, d};
    result.push_back(store);
    result += store_lse(k_, *pool_, p_, lse_, max_, sum_, m16_, bh * p_.seq_q + qi * p_.tile_q, mt);
    body.push_back(scope({ub_r_}, std::move(result)));
    return {scope({l1q_}, std::move(body))};
  }

  // S_j = Q K_jᵀ into S (L0C) (the fill of its one copy; the drain is its use): K_j stored (keys, d)
  // is the transposed right operand; all m16_ rows of the query tile, those past a partial tile's
  // zeros.
  std::vector<Node> scores(const View& q, const Affine& j, const Affine& kvh, int64_t nt) {
    const int64_t d = p_.dim;
    Node k{Node::Kind::Move};
    k.src = {{1, -1, (kvh * p_.seq_kv + j * p_.tile_kv) * (d * in_size_)}, Layout::ND, p_.in, nt, d, d};
    k.dst = {{-1, l1k_, 0}, Layout::NZ, p_.in, nt, d, round_up(nt, 16)};
    k.src.transposed = k.dst.transposed = true;
    return {scope({l0s_}, {scope({l1k_}, {k, scope({l0a_, l0b_}, {cube().to_l0a(q, m16_, d), cube().to_l0b(k.dst, d, nt), cube().mmad(l0s_, m16_, nt, d)})})},
                  Node::Phase::Fill)};
  }

  // Key tile j of nt keys, its S in S (L0C): the softmax, `next` (the next tile's S, on the cube
  // meanwhile), then P V_j.
  std::vector<Node> key_tile(const Affine& j, const Affine& qi, const Affine& kvh, int64_t nt, Node next, int par, int prev) {
    const int64_t d = p_.dim, n16 = round_up(nt, 16);
    const Affine kv_off = (kvh * p_.seq_kv + j * p_.tile_kv) * (d * in_size_);
    Node drain{Node::Kind::Move};
    drain.src = {{-1, l0s_, 0}, Layout::NZ16, DType::f32, m16_, nt, m16_};
    drain.dst = {{-1, ub_s_, 0}, Layout::NZ16, DType::f32, m16_, nt, m16_};
    std::vector<Node> out = {scope({l0s_}, {drain}, Node::Phase::Use)};
    softmax(out, j, qi, nt, par);
    // P: UB -> this core's workspace -> L1.
    const Affine ws = Affine::var(kBlockIdx, m16_ * kv16_ * in_size_);
    const int64_t blocks = m16_ * n16 * in_size_ / 32;
    Node to_gm = instr("copy_ub_gm", Pipe::MTE3, {{4, -1, ws}, {-1, ub_p_, Affine(0)}},
                       {mem_arg(0), mem_arg(1), kw("nburst", imm(1)), kw("len", imm(blocks))});
    Node to_l1 = instr("copy_gm_l1", Pipe::MTE2, {{-1, l1p_, Affine(0)}, {4, -1, ws}},
                       {mem_arg(0), mem_arg(1), kw("nburst", imm(1)), kw("len", imm(blocks))});
    // GM is no stage the sync pass orders: the workspace is handed over by flags of its own, full
    // (MTE3 -> MTE2) and free (MTE2 -> MTE3), pairs no stage of this nest uses; free is set once
    // before the first tile and waited for once after the last.
    std::vector<Node> hand_off = std::move(p_cast_);
    hand_off.push_back(flag(SyncKind::Wait, false));
    hand_off.push_back(to_gm);
    hand_off.push_back(flag(SyncKind::Set, true));
    out.push_back(scope({ub_p_}, std::move(hand_off)));
    out.push_back(std::move(next));
    // P V_j into PV (L0C) (two copies: the previous tile's waits there for the vector unit), then the
    // previous tile's O update: the vector unit makes P_j before it waits for P V_{j-1}.
    Node v{Node::Kind::Move};
    v.src = {{2, -1, kv_off}, Layout::ND, p_.in, nt, d, d};
    v.dst = {{-1, l1v_, 0}, Layout::NZ, p_.in, nt, d, n16};
    View p{{-1, l1p_, 0}, Layout::NZ, p_.in, m16_, nt, m16_};
    out.push_back(scope({l0o_}, {scope({l1p_, l1v_}, {flag(SyncKind::Wait, true), to_l1, flag(SyncKind::Set, false), v, scope({l0a_, l0b_}, {cube().to_l0a(p, m16_, nt), cube().to_l0b(v.dst, nt, d),
                                                                                     cube().mmad(l0o_, m16_, d, nt)})})},
                        Node::Phase::Fill));
    out.push_back(when(j - first_, 0, {}, update(prev)));
    return out;
  }

  // O = a O + P V of the key tile whose a is copy `parity` and whose P V is PV's next use.
  std::vector<Node> update(int parity) {
    const int64_t d = p_.dim;
    Node pv{Node::Kind::Move};
    pv.src = {{-1, l0o_, 0}, Layout::NZ16, DType::f32, m16_, d, m16_};
    pv.dst = {{-1, ub_pv_, 0}, Layout::NZ16, DType::f32, m16_, d, m16_};
    std::vector<Node> out = {scope({l0o_}, {pv}, Node::Phase::Use)};
    row_op(out, VBinary::Mul, ub_o_, alpha(parity).at, d);
    VectorOps(k_, *pool_, out, nz(d)).binary(VBinary::Add, full(ub_o_), full(ub_o_), full(ub_pv_));
    return out;
  }

  // The online softmax of S (UB, nt keys): scaled, masked, the rows' running max and sum updated,
  // a = exp(m_old - m_new) for the output, P = exp(S - m_new) cast (kept in p_cast_ for P's scope).
  void softmax(std::vector<Node>& out, const Affine& j, const Affine& qi, int64_t nt, int par) {
    {
      VectorOps ops(k_, *pool_, out, nz(nt));
      ops.binary(VBinary::Mul, full(ub_s_), full(ub_s_), VValue::scalar(DType::f32, p_.scale));
    }
    index_->key_tile(out, j);
    modify_scores(k_, *pool_, p_, out, nz(nt), full(ub_s_), *index_);
    if (p_.mask) {  // S += the mask's tile
      std::vector<Node> add = load_mask(p_, {mask_t_, mk_, plane_, qi * p_.tile_q, j * p_.tile_kv, mt_, nt, 0, m16_});
      VValue m = p_.mask_i ? full(mk_) : VValue{VShape::Col, DType::f32, {-1, mk_, Affine(0)}, 0};
      VectorOps(k_, *pool_, add, nz(nt)).binary(VBinary::Add, full(ub_s_), full(ub_s_), m);
      out.push_back(scope({mk_}, std::move(add)));
    }
    if (nt % 16) mask_columns(out, nt);
    if (p_.causal) {
      std::vector<Node> diag;
      mask_diagonal(diag, nt);
      out.push_back(when(j - qi, 0, std::move(diag), {}));
    }
    if (p_.window) {  // the keys before the window in its first two tiles
      const int64_t tiles = p_.window_tiles(), shift = p_.window_shift();
      for (int64_t back : {tiles, tiles - 1}) {
        std::vector<Node> edge;
        mask_window(edge, nt, shift - (tiles - back) * p_.tile_kv);
        if (back >= 0 && !edge.empty()) out.push_back(when(qi - j, back, std::move(edge), {}));
      }
    }
    nz_reduce(out, VReduce::Max, tile_max_, nt);
    // At the first key tile the running max starts below every score; the sum and O need no
    // start: the first a = exp(-big - m') is 0, which clears what the previous query tile left
    // (finite values, zeroed once at the start of the kernel). Set here rather than before the
    // loop, where the sync pass would order it by a barrier of its own.
    std::vector<Node> start;
    VectorOps(k_, *pool_, start, nz(nt)).fill(row(max_), sched::kRunningMaxStart);
    out.push_back(when(j - first_, 0, std::move(start), {}));
    {
      VectorOps ops(k_, *pool_, out, nz(nt));
      ops.binary(VBinary::Max, row(tile_max_), row(tile_max_), row(max_));    // m_new
      ops.binary(VBinary::Sub, alpha(par), row(max_), row(tile_max_));       // m_old - m_new
      ops.unary("vexp", alpha(par), alpha(par));
      ops.binary(VBinary::Add, row(max_), row(tile_max_), VValue::scalar(DType::f32, 0));  // m = m_new
    }
    row_op(out, VBinary::Sub, ub_s_, row(tile_max_).at, nt);
    VectorOps(k_, *pool_, out, nz(nt)).unary("vexp", full(ub_s_), full(ub_s_));
    nz_reduce(out, VReduce::Sum, tile_sum_, nt);
    {
      VectorOps ops(k_, *pool_, out, nz(nt));
      ops.binary(VBinary::Mul, row(sum_), row(sum_), alpha(par));
      ops.binary(VBinary::Add, row(sum_), row(sum_), row(tile_sum_));
    }
    p_cast_.clear();
    VectorOps(k_, *pool_, p_cast_, nz(nt)).cast(full(ub_p_, p_.in), full(ub_s_));
  }

  // full op= row over an NZ tile of f32 (`cols` columns in 16-column blocks): each row's value
  // spread over the 16 lanes its fractal rows have (two vbrcb, a 32 B block each, interleaved),
  // then per 16-column block one instruction of whole repeats (4 fractal rows each), the spread
  // read along. VectorOps's NZ broadcast takes a repeat per fractal row, 16 of its 64 lanes.
  void row_op(std::vector<Node>& out, VBinary op, int full_buffer, const Ref& row_at, int64_t cols) {
    static constexpr const char* names[] = {"vadd.f32", "vsub.f32", "vmul.f32", "vdiv.f32", "vmin.f32", "vmax.f32"};
    for (int64_t half = 0; half < 2; ++half)
      out.push_back(instr("vbrcb.f32", Pipe::V, {{-1, spread_, Affine(half * 32)}, row_at},
                          {mem_arg(0), mem_arg(1), kw("repeat", imm(m16_ / 8)), kw("dst_blk", imm(2)), kw("dst_rep", imm(16))}));
    for (int64_t cb = 0; cb < cdiv(cols, 16); ++cb) {
      Ref at{-1, full_buffer, Affine(cb * m16_ * 64)};
      out.push_back(instr(names[int(op)], Pipe::V, {at, at, {-1, spread_, Affine(0)}},
                          {mem_arg(0), mem_arg(1), mem_arg(2), kw("repeat", imm(m16_ / 4))}));
    }
  }

  // Row reductions of an NZ tile: its 16-column blocks (each m16 rows x 16, contiguous) combined
  // elementwise, then each row of the result reduced.
  void nz_reduce(std::vector<Node>& out, VReduce op, int dst, int64_t nt) {
    const int64_t blocks = cdiv(nt, 16), block_bytes = m16_ * 16 * 4;
    VTile blk{m16_, 16, 16, false};
    VectorOps ops(k_, *pool_, out, blk);
    auto block = [&](int64_t b) { return VValue{VShape::Full, DType::f32, {-1, ub_s_, Affine(b * block_bytes)}, 0}; };
    if (blocks == 1) return ops.reduce(op, row(dst), block(0));
    VBinary combine = op == VReduce::Max ? VBinary::Max : VBinary::Add;
    VValue acc = ops.temp(VShape::Full, DType::f32);
    ops.binary(combine, acc, block(0), block(1));
    for (int64_t b = 2; b < blocks; ++b) ops.binary(combine, acc, acc, block(b));
    ops.reduce(op, row(dst), acc);
    ops.done(acc);
  }

  // vdup of `value` into the lanes `bits` selects of `repeats` repeats of 64 f32 from `byte`.
  void masked_dup(std::vector<Node>& out, int64_t byte, int64_t repeats, uint64_t bits, double value) {
    out.push_back(instr("vdup.f32", Pipe::V, {{-1, ub_s_, Affine(byte)}},
                        {mem_arg(0), num(value), kw("repeat", imm(repeats)), kw("mask", mask_bits(0, bits))}));
  }

  // The keys past the last (nt of a 16-column block): each row's lanes from nt % 16 on.
  void mask_columns(std::vector<Node>& out, int64_t nt) {
    const int64_t block = nt / 16, from = nt % 16;
    uint64_t bits = 0;
    for (int r = 0; r < 4; ++r)
      for (int64_t c = from; c < 16; ++c) bits |= uint64_t(1) << (r * 16 + c);
    masked_dup(out, block * m16_ * 16 * 4, m16_ / 4, bits, sched::kPaddedScore);
  }

  // The diagonal tile of a causal mask (its query and key tiles start at the same position): in
  // 16-column block cb, the rows above cb * 16 whole, and within the block's diagonal fractal the
  // lanes right of the diagonal.
  void mask_diagonal(std::vector<Node>& out, int64_t nt) {
    for (int64_t cb = 0; cb < cdiv(nt, 16); ++cb) {
      const int64_t base = cb * m16_ * 16 * 4;
      if (cb > 0) VectorOps(k_, *pool_, out, {1, cb * 256, cb * 256}).fill({VShape::Col, DType::f32, {-1, ub_s_, Affine(base)}, 0},
                                                                          p_.hidden);
      if (cb * 16 >= m16_) continue;
      for (int q = 0; q < 4; ++q) {  // rows cb * 16 + 4q .. + 3 of the diagonal fractal
        uint64_t bits = 0;
        for (int r = 0; r < 4; ++r)
          for (int c = 4 * q + r + 1; c < 16; ++c) bits |= uint64_t(1) << (r * 16 + c);
        if (bits) masked_dup(out, base + (cb * 16 + 4 * q) * 16 * 4, 1, bits, p_.hidden);
      }
    }
  }

  // The keys c < r + shift of each row r of an NZ tile of nt keys: per 16-column block, the rows it
  // cuts by masked vdup (4 rows a repeat), the rows below them whole by one fill.
  void mask_window(std::vector<Node>& out, int64_t nt, int64_t shift) {
    for (int64_t cb = 0; cb < cdiv(nt, 16); ++cb) {
      const int64_t base = cb * m16_ * 16 * 4;
      const int64_t cut = std::max<int64_t>(0, cb * 16 - shift + 1), whole = std::clamp<int64_t>((cb + 1) * 16 - shift, 0, m16_);
      if (cut >= m16_) continue;
      const int64_t whole_from = round_up(whole, 4);
      for (int64_t g = cut / 4; g * 4 < whole_from; ++g) {
        uint64_t bits = 0;
        for (int64_t r = 0; r < 4; ++r)
          for (int64_t c = 0; c < 16; ++c)
            if (cb * 16 + c < 4 * g + r + shift) bits |= uint64_t(1) << (r * 16 + c);
        if (bits) masked_dup(out, base + 4 * g * 16 * 4, 1, bits, p_.hidden);
      }
      if (whole_from < m16_)
        VectorOps(k_, *pool_, out, {1, (m16_ - whole_from) * 16, (m16_ - whole_from) * 16})
            .fill({VShape::Col, DType::f32, {-1, ub_s_, Affine(base + whole_from * 64)}, 0}, p_.hidden);
    }
  }

  CubeBuffers cube() const { return {l0a_, l0b_, p_.in}; }

  // The workspace's flags on the chip's last event id: full (MTE3 -> MTE2) or free (MTE2 -> MTE3).
  Node flag(SyncKind kind, bool full) const {
    Node n{Node::Kind::Sync};
    n.sync = kind, n.from = full ? Pipe::MTE3 : Pipe::MTE2, n.to = full ? Pipe::MTE2 : Pipe::MTE3, n.events = {chip_.event_ids - 1};
    return n;
  }

  // Every buffer the vector unit reads zeroed once, so that what a masked instruction skips (the
  // padding rows of a partial query tile, the lanes past a row's keys) holds a defined value.
  std::vector<Node> zero_scratch(std::vector<Node> body) {
    std::vector<Node> out;
    std::vector<int> all = pool_->all();
    for (int b : {ub_s_, ub_pv_, ub_o_, max_, sum_, tile_max_, alpha_, tile_sum_}) all.push_back(b);
    for (int b : all) {
      int64_t n = k_.buffers[size_t(b)].bytes / 4;
      VectorOps(k_, *pool_, out, {1, n, n}).fill({VShape::Col, DType::f32, {-1, b, Affine(0)}, 0}, 0);
    }
    if (mk_ >= 0) out += zero_before_loads(k_, *pool_, mk_);
    return out += std::move(body);
  }

  const sched::StageGraph& g_;
  const sched::AttentionPlan& p_;
  const ChipConfig& chip_;
  const int64_t m16_, kv16_, in_size_;
  Kernel k_;
  int l1q_ = -1, l1k_ = -1, l1v_ = -1, l1p_ = -1, l0a_ = -1, l0b_ = -1, l0s_ = -1, l0o_ = -1;
  int ub_s_ = -1, ub_p_ = -1, ub_pv_ = -1, ub_o_ = -1, ub_r_ = -1, lse_ = -1;
  int mk_ = -1, mask_t_ = -1;  // the mask's tile in UB, its tensor
  Affine plane_;               // the item's mask plane (elements)
  int64_t mt_ = 0;             // the query tile's rows
  Affine first_;               // the item's first key tile (first_key_tile)
  int max_ = -1, sum_ = -1, tile_max_ = -1, alpha_ = -1, tile_sum_ = -1, spread_ = -1;
  int64_t row_bytes_ = 0;
  std::unique_ptr<ScratchPool> pool_;
  std::unique_ptr<ScoreIndices> index_;
  std::vector<Node> p_cast_;
};

}  // namespace

std::vector<Node> store_lse(Kernel& k, ScratchPool& pool, const sched::AttentionPlan& p, int lse, int max, int sum,
                            int64_t tile_rows, const Affine& first, int64_t rows) {
  if (p.lse.empty() || rows <= 0) return {};
  std::vector<Node> out;
  VectorOps ops(k, pool, out, {tile_rows, 16, 16, false});
  auto row = [](int buffer) { return VValue{VShape::Row, DType::f32, {-1, buffer, Affine(0)}, 0}; };
  ops.unary("vln", row(lse), row(sum));
  ops.binary(VBinary::Add, row(lse), row(lse), row(max));
  const int tensor = int(k.tensors.size()) - 1;
  out.push_back(instr("copy_ub_gm_pad", Pipe::MTE3, {{tensor, -1, first * 4}, {-1, lse, Affine(0)}},
                      {mem_arg(0), mem_arg(1), kw("len", imm(rows * 4))}));
  return {scope({lse}, std::move(out))};  // its buffer's scope: the sync pass orders V before MTE3 and back
}

Kernel attention_kernel(const sched::AttentionPlan& p, const std::vector<std::pair<std::string, DType>>& workspaces) {
  Kernel k;
  k.name = p.func_name;
  k.new_var("block_idx");
  k.new_var("block_num");
  const std::vector<int64_t> q_shape = p.q->shape, kv_shape = p.k->shape;
  k.tensors = {{p.q->name, p.in, q_shape, TensorRole::In},
               {p.k->name, p.in, kv_shape, TensorRole::In},
               {p.v->name, p.in, kv_shape, TensorRole::In},
               {p.func_name, p.out, q_shape, TensorRole::Out}};
  for (const auto& [suffix, type] : workspaces) k.tensors.push_back({p.func_name + suffix, type, {1}, TensorRole::Workspace});
  if (p.mask) k.tensors.push_back({p.mask->name, DType::f32, p.mask->shape, TensorRole::In});
  if (!p.lse.empty()) k.tensors.push_back({p.lse, DType::f32, {q_shape[0], q_shape[1], q_shape[2]}, TensorRole::Out});
  return k;
}

std::vector<Node> zero_before_loads(Kernel& k, ScratchPool& pool, int buffer) {
  std::vector<Node> out;
  const int64_t n = k.buffers[size_t(buffer)].bytes / 4;
  VectorOps(k, pool, out, {1, n, n}).fill({VShape::Col, DType::f32, {-1, buffer, Affine(0)}, 0}, 0);
  out.push_back(barrier(Pipe::All));
  return out;
}

Affine first_key_tile(Kernel& k, const sched::AttentionPlan& plan, const Affine& qi, std::vector<Node>& out, const std::string& sfx) {
  if (!plan.window) return Affine(0);
  const int from = k.new_var("key_from" + sfx);
  out.push_back(let(from, qi, LetOp::Add, -plan.window_tiles()));
  out.push_back(when_less(Affine::var(from), 0, {let(from, Affine(0), LetOp::Add, 0)}, {}));
  return Affine::var(from);
}

int tensor_named(const Kernel& k, const std::string& name) {
  for (size_t t = 0; t < k.tensors.size(); ++t)
    if (k.tensors[t].name == name) return int(t);
  CUBEKIT_ASSERT(false, "kernel {} has no tensor {}", k.name, name);
}

Affine mask_plane(Kernel& k, const sched::AttentionPlan& p, const Affine& bh, std::vector<Node>& out, const std::string& sfx) {
  if (!p.mask) return Affine(0);
  const std::vector<int64_t>& m = p.mask->shape;
  Affine plane;
  if (p.mask_b) {
    const int b = k.new_var("mask_b" + sfx);
    out.push_back(let(b, bh, LetOp::Div, p.heads));
    plane = plane + Affine::var(b, m[1]);
  }
  if (p.mask_h) {
    const int h = k.new_var("mask_h" + sfx);
    out.push_back(let(h, bh, LetOp::Rem, p.heads));
    plane = plane + Affine::var(h);
  }
  return plane * (m[2] * m[3]);
}

std::vector<Node> load_mask(const sched::AttentionPlan& p, const MaskTile& m) {
  const int64_t keys = p.seq_kv;
  const int64_t rows = p.mask_i ? m.rows : 1;  // a mask over keys only: one row, added to every row (a Col value)
  const Affine first = m.plane + (p.mask_i ? m.row0 * keys : Affine(0)) + m.key0;  // elements
  auto copy = [&](const Affine& dst, const Affine& src, int64_t nburst, int64_t len, int64_t dst_gap) {
    std::vector<Arg> args = {mem_arg(0), mem_arg(1), kw("nburst", imm(nburst)), kw("len", imm(len))};
    if (nburst > 1 && keys * 4 != len) args.push_back(kw("src_gap", imm(keys * 4 - len)));
    if (nburst > 1 && dst_gap) args.push_back(kw("dst_gap", imm(dst_gap)));
    return instr("copy_gm_ub_pad", Pipe::MTE2, {{-1, m.buffer, dst}, {m.tensor, -1, src * 4}}, std::move(args));
  };
  // Rows of `pitch` (a Col: nt contiguous), or NZ: by what the mask is, not by how many rows this
  // tile has (a query tile's tail of one row still takes its row in NZ).
  if (!p.mask_i || m.nz_rows == 0)
    return {copy(Affine(0), first, rows, m.nt * 4, m.pitch / 8 - cdiv(m.nt * 4, 32))};
  std::vector<Node> out;  // NZ: per 16 keys, 64 B of each row, fractal rows 64 B apart
  for (int64_t c = 0; c < cdiv(m.nt, 16); ++c) {
    const int64_t len = std::min<int64_t>(16, m.nt - c * 16) * 4;
    out.push_back(copy(Affine(c * m.nz_rows * 64), first + Affine(c * 16), rows, len, 2 - cdiv(len, 32)));
  }
  return out;
}

TileSpace attention_items(const sched::AttentionPlan& p, const ChipConfig& chip) {
  TileSpace space;
  space.loops = {{"bh", p.batch * p.heads}, {"qt", p.q_tiles()}};
  if (p.causal) std::swap(space.loops[0], space.loops[1]);
  space.on_cores = 2;
  space.snake = p.causal && chip.timing.core_start_cycles == 0;
  return space;
}

AttentionItem attention_item(Kernel& k, const sched::AttentionPlan& p, const std::vector<int>& index,
                             std::vector<Node>& out, const std::string& sfx) {
  if (!p.causal) return {Affine::var(index[0]), Affine::var(index[1])};
  const int64_t tiles = p.q_tiles();
  if (tiles == 1) return {Affine::var(index[1]), Affine(0)};
  const int qi = k.new_var("qi" + sfx);  // (tiles - 1)(i + 1) = tiles - 1 - i, mod tiles
  out.push_back(let(qi, Affine(tiles - 1) + Affine::var(index[0], tiles - 1), LetOp::Rem, tiles));
  return {Affine::var(index[1]), Affine::var(qi)};
}

Node CubeBuffers::to_l0a(const View& l1, int64_t rows, int64_t k) const {
  Node a{Node::Kind::Move};
  a.src = l1;
  a.src.rows = rows, a.src.cols = k, a.src.row0 = 0, a.src.col0 = 0;
  a.dst = {{-1, l0a, 0}, Layout::ZZ, in, rows, k, 0};
  return a;
}

Node CubeBuffers::to_l0b(const View& l1, int64_t k, int64_t cols) const {
  Node b{Node::Kind::Move};
  b.src = l1;
  b.src.rows = k, b.src.cols = cols, b.src.row0 = 0, b.src.col0 = 0;
  b.dst = {{-1, l0b, 0}, Layout::ZN, in, k, cols, 0};
  return b;
}

Node CubeBuffers::mmad(int l0c, int64_t m, int64_t n, int64_t k) const {
  Node mm{Node::Kind::Mmad};
  mm.c = {-1, l0c, 0}, mm.lhs = {-1, l0a, 0}, mm.rhs = {-1, l0b, 0};
  mm.m = m, mm.n = n, mm.k = k, mm.init = true, mm.in_type = in;
  return mm;
}

Kernel lower_attention(const sched::StageGraph& graph, const ChipConfig& chip) { return FlashNest(graph, chip).lower(); }

const sched::GraphStage& flash_stage(const sched::StageGraph& g, const std::string& name) {
  for (const sched::GraphStage& s : g.stages)
    if (s.name == name) return s;
  CUBEKIT_ASSERT(false, "{}: the flash graph has no stage {}", g.kernel, name);
  return g.stages.front();
}

int flash_buffer(Kernel& k, const sched::StageGraph& g, const std::string& name, bool slots) {
  const sched::GraphStage& s = flash_stage(g, name);
  const Space space = s.place == sched::Place::L1  ? Space::L1
                    : s.place == sched::Place::L0A ? Space::L0A
                    : s.place == sched::Place::L0B ? Space::L0B
                    : s.place == sched::Place::L0C ? Space::L0C
                                                   : Space::UB;
  CUBEKIT_ASSERT(s.place != sched::Place::GM && s.place != sched::Place::Workspace, "{}: stage {} is in GM", g.kernel, name);
  const int64_t bytes = sched::stage_bytes(s);
  return slots ? k.new_buffer(name, space, bytes * s.copies, 1) : k.new_buffer(name, space, bytes, s.copies);
}

}  // namespace cubekit::codegen
