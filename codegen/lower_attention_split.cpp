// Flash attention on a split chip (910B2, 950): the cube core (AIC) makes the two products, its
// two vector cores (AIV) the online softmax between them and the output's update, each stage's
// result handed to the other side through a GM workspace slot under cross-core flags, as the
// published 910B kernels do (pto-isa kernels/manual/common/flash_atten: compute_qk, compute_p,
// compute_pv, compute_gu). With D = the plan's preload, both sides run the key tiles of a query tile as
//
//   AIC  for t < n + D:  if t < n:  S_t = Q K_tᵀ (L0C) -> fixpipe -> S slot      set S ready
//                        if t >= D: P_{t-D} (P slot) -> L1, V -> L1, P V -> L0C -> PV slot
//   AIV  for t < n + D:  if t < n:  S slot -> UB (its half of the rows), the online softmax,
//                                   a_t kept (copy t % (D+1)), P_t -> P slot  set P ready
//                        if t >= D: PV slot -> UB, O = a_{t-D} O + P V
//   AIV  O / l -> GM (each its rows)
//
// so that the cube computes S of D tiles ahead while the vector cores make P, and P V of a tile
// while they make the next P (D = 4, the published kernel's qkPreloadNum: with 2 the cube's FixPipe
// and the vector unit, about equally loaded, waited on each other). Slots (S and P: D + 1 per
// group, P V: 2) are taken in the order
// each side counts its hand-offs (a counter per kind over the core's whole run); a slot is
// reused once the other side has given it back (the `free` flags, D + 1 or 2 credits given at the
// start and taken back at the end).
//
// On the 950 (sched::attention_direct) nothing goes through GM: the cube core's FixPipe writes S
// and P V into two slots each in its vector cores' UB (rows [0, h) to vector core 0, [h, m16) to
// 1), the vector cores scale S in place there and write their rows of P into P's D + 1 slots in
// the cube core's L1 (UB -> L1, NZ); the flags are the same, set and waited on the pipes that
// touch the slots (V, MTE1).
#include "codegen/lower_attention_split.h"

#include "codegen/lower_attention.h"

#include "codegen/core_tiles.h"
#include "codegen/score_modifier.h"
#include "codegen/tile_loop.h"
#include "codegen/vector_ops.h"
#include "emulator/arith.h"

#include <memory>

namespace cubekit::codegen {

namespace {

// Cross-core flag ids: each hand-off's ready and free.
enum Flag : int { kSReady = 0, kSFree = 1, kPReady = 2, kPFree = 3, kPvReady = 4, kPvFree = 5 };
enum Tensor : int { kQ = 0, kK = 1, kV = 2, kO = 3, kWsS = 4, kWsP = 5, kWsPv = 6 };

class SplitFlash {
 public:
  SplitFlash(const sched::StageGraph& g, const ChipConfig& chip)
      : g_(g), p_(*g.attention), chip_(chip), m16_(round_up(g.attention->tile_q, 16)), kv16_(round_up(g.attention->tile_kv, 16)),
        h_(m16_ / 2), in_size_(dtype_size(g.attention->in)), direct_(g.attention->direct), preload_(int(g.attention->preload)),
        slots_(copies("A")), s_slots_(copies(direct_ ? "S.ub" : "S.ws")), p_slots_(copies(direct_ ? "P.l1" : "P.ws")),
        pv_slots_(copies(direct_ ? "PV.ub" : "PV.ws")) {}

  Kernel lower() {
    k_ = direct_ ? attention_kernel(p_, {}) : attention_kernel(p_, {{"_s", DType::f32}, {"_p", p_.in}, {"_pv", DType::f32}});
    k_.subblock = k_.new_var("subblock_idx");
    par_ = k_.new_var("par_v");
    prev_ = k_.new_var("prev_v");
    const int64_t d = p_.dim;
    auto buffer = [&](const char* stage, bool slots = false) { return flash_buffer(k_, g_, stage, slots); };
    l1q_ = buffer("Q.l1");
    l1k_ = buffer("K.l1");
    l1v_ = buffer("V.l1");
    // P: on the 950 its slots in L1, written by the vector cores (UB -> L1); else from GM, two copies.
    l1p_ = buffer("P.l1", direct_);
    l0a_ = buffer("QP.l0a");
    l0b_ = buffer("KV.l0b");
    l0c_ = buffer("SPV.l0c");
    // S and P V: on the 950 slots in UB the cube core's FixPipe writes (L0C -> UB), S scaled in
    // place; else S as its slot in GM holds it (MTE2's), scaled on by the vector unit.
    if (!direct_) ub_sw_ = buffer("S.in");
    ub_s_ = buffer("S.ub", direct_);
    ub_pv_ = buffer("PV.ub", direct_);
    ub_p_ = buffer("P");
    ub_o_ = buffer("O.acc");
    ub_r_ = buffer("O.ub");
    max_ = buffer("M");
    sum_ = buffer("L");
    tile_max_ = buffer("MT");
    tile_sum_ = buffer("LT");
    row_bytes_ = k_.buffers[size_t(max_)].bytes;
    alpha_ = buffer("A", true);  // a_t at slot t % slots_
    spread_ = buffer("SP");
    if (!p_.lse.empty()) lse_ = buffer("LSE");
    if (p_.mask) {  // the mask's tile as this core holds S (its rows), or its row of keys: where S
      // is loaded through GM (free once scaled into S), its own buffer on the 950
      mk_ = direct_ ? buffer("mask.ub") : ub_sw_;
      mask_t_ = tensor_named(k_, p_.mask->name);
    }
    pool_ = std::make_unique<ScratchPool>(k_);
    index_ = std::make_unique<ScoreIndices>(k_, p_, h_, kv16_);

    const TileSpace space = attention_items(p_, chip_);
    const int64_t items = space.fused();
    k_.block_dim = int(std::min<int64_t>(items, chip_.cores));
    const int64_t groups = k_.block_dim;
    if (!direct_) {
      k_.tensors[kWsS].shape = {groups, s_slots_, m16_, kv16_};
      k_.tensors[kWsP].shape = {groups, p_slots_, m16_, kv16_};
      k_.tensors[kWsPv].shape = {groups, pv_slots_, m16_, d};
    }
    k_.body = program(space, items, false);
    std::vector<Node> vec = program(space, items, true);
    k_.vector_body = zero_scratch(std::move(vec));
    return std::move(k_);
  }

 private:
  // The copies of a stage of the graph: the hand-off slots the nest rotates (S and P V in UB on
  // the 950, two each: S is freed once P is made from it, P V once O took it).
  int copies(const char* stage) const { return flash_stage(g_, stage).copies; }
  // The pipe that first touches what the other side handed over, and that gives the slot back.
  Pipe aiv_in() const { return direct_ ? Pipe::V : Pipe::MTE2; }
  Pipe aic_p_in() const { return direct_ ? Pipe::MTE1 : Pipe::MTE2; }

  // One side's program: its credits given, the items, the credits taken back.
  std::vector<Node> program(const TileSpace& space, int64_t items, bool aiv) {
    const std::string sfx = aiv ? "_v" : "";
    CoreTiles tiles = core_tiles(k_, true, items, 1, sfx, space.snake);
    std::vector<Node> body = aiv ? index_->ramp() : std::vector<Node>{};
    // The hand-off counters (slot = counter % slots), over the core's whole run.
    const int cs = k_.new_var("n_s" + sfx), cp = k_.new_var("n_p" + sfx), cpv = k_.new_var("n_pv" + sfx);
    for (int c : {cs, cp, cpv}) body.push_back(let(c, Affine(0), LetOp::Add, 0));
    for (int i = 0; i < (aiv ? s_slots_ : p_slots_); ++i)
      body.push_back(aiv ? set_cross(aiv_in(), 2, kSFree) : set_cross(aic_p_in(), 2, kPFree));
    for (int i = 0; aiv && i < pv_slots_; ++i) body.push_back(set_cross(aiv_in(), 2, kPvFree));
    body += std::move(tiles.setup);
    std::vector<int> index;
    std::vector<Node> item = decode_tiles(k_, space, Affine::var(tiles.w), sfx, index);
    const auto [bh, qi] = attention_item(k_, p_, index, item, sfx);
    const int kvh = k_.new_var("kvh" + sfx);
    item.push_back(let(kvh, bh, LetOp::Div, p_.group()));
    if (aiv) plane_ = mask_plane(k_, p_, bh, item, sfx);
    const int64_t q_tail = p_.seq_q - (p_.q_tiles() - 1) * p_.tile_q;
    const Counters n{cs, cp, cpv};
    item += with_tail(qi, p_.q_tiles(), p_.tile_q, q_tail, [&](int64_t mt) {
      return aiv ? vector_item(bh, qi, mt, n) : cube_item(bh, qi, Affine::var(kvh), mt, n);
    });
    body.push_back(tiles.loop(std::move(item)));
    for (int i = 0; i < (aiv ? p_slots_ : s_slots_); ++i)
      body.push_back(aiv ? wait_cross(Pipe::MTE3, kPFree) : wait_cross(Pipe::FIX, kSFree));
    for (int i = 0; !aiv && i < pv_slots_; ++i) body.push_back(wait_cross(Pipe::FIX, kPvFree));
    return body;
  }

  struct Counters {
    int s, p, pv;
  };

  // The loop over the key tiles of a query tile, from its first (first_key_tile: 0 but under a
  // sliding window) t < end + D: `first(t)` while t < end, then `second(t - D)` from the first + D
  // on. Causal: the key tiles up to the diagonal (tile qi).
  template <class F, class G>
  std::vector<Node> key_loop(const Affine& qi, const std::string& sfx, F first, G second) {
    const int64_t n = p_.kv_tiles();
    std::vector<Node> out;
    first_ = first_key_tile(k_, p_, qi, out, sfx);
    auto run = [&](const Affine& end) {
      const int t = k_.new_var("kt" + sfx);
      const Affine tv = Affine::var(t);
      std::vector<Node> each = {when_less(tv - end, 0, first(tv), {})};
      each.push_back(when_less(tv - first_, preload_, {}, second(tv - Affine(preload_))));
      return std::vector<Node>{loop(t, first_, end + Affine(preload_), Affine(1), std::move(each))};
    };
    if (p_.causal && p_.q_tiles() <= n) return out += run(qi + Affine(1));
    if (p_.causal) {
      out.push_back(when_less(qi, n, run(qi + Affine(1)), run(Affine(n))));
      return out;
    }
    return out += run(Affine(n));
  }
  template <class F>
  std::vector<Node> tail_of(const Affine& t, F f) {
    const int64_t n = p_.kv_tiles();
    return with_tail(t, n, p_.tile_kv, p_.seq_kv - (n - 1) * p_.tile_kv, f);
  }
  // slot = counter % slots; counter += 1.
  std::vector<Node> take_slot(int counter, int slot, int64_t slots) {
    return {let(slot, Affine::var(counter), LetOp::Rem, slots), let(counter, Affine::var(counter), LetOp::Add, 1)};
  }
  Affine slot_at(int slot, int64_t slots, int64_t bytes) const {
    return Affine::var(kBlockIdx, slots * bytes) + Affine::var(slot, bytes);
  }
  int64_t s_bytes() const { return m16_ * kv16_ * 4; }
  int64_t p_bytes() const { return m16_ * kv16_ * in_size_; }
  int64_t pv_bytes() const { return m16_ * p_.dim * 4; }

  // ---- the cube core ----
  std::vector<Node> cube_item(const Affine& bh, const Affine& qi, const Affine& kvh, int64_t mt, const Counters& n) {
    const int64_t d = p_.dim;
    Node q{Node::Kind::Move};
    q.src = {{kQ, -1, (bh * p_.seq_q + qi * p_.tile_q) * (d * in_size_)}, Layout::ND, p_.in, mt, d, d};
    q.dst = {{-1, l1q_, 0}, Layout::NZ, p_.in, mt, d, m16_};
    std::vector<Node> body = {q};
    body += key_loop(
        qi, "", [&](const Affine& t) { return tail_of(t, [&](int64_t nt) { return scores(q.dst, t, kvh, nt, n.s); }); },
        [&](const Affine& t) { return tail_of(t, [&](int64_t nt) { return pv(t, kvh, nt, n); }); });
    return {scope({l1q_}, std::move(body))};
  }

  // S_t = Q K_tᵀ (all m16 rows; nt keys, whole fractals of them written) into this group's next S
  // slot (the vector cores mask the columns past nt).
  std::vector<Node> scores(const View& q, const Affine& t, const Affine& kvh, int64_t nt, int counter) {
    const int64_t d = p_.dim;
    Node k{Node::Kind::Move};
    k.src = {{kK, -1, (kvh * p_.seq_kv + t * p_.tile_kv) * (d * in_size_)}, Layout::ND, p_.in, nt, d, d};
    k.dst = {{-1, l1k_, 0}, Layout::NZ, p_.in, nt, d, round_up(nt, 16)};
    k.src.transposed = k.dst.transposed = true;
    const int slot = k_.new_var("s_slot");
    Node fix{Node::Kind::Move};
    fix.src = {{-1, l0c_, 0}, Layout::NZ16, DType::f32, m16_, round_up(nt, 16), m16_};
    fix.dst = {{kWsS, -1, slot_at(slot, s_slots_, s_bytes())}, Layout::ND, DType::f32, m16_, round_up(nt, 16), kv16_};
    std::vector<Node> out = take_slot(counter, slot, s_slots_);
    std::vector<Node> product = {scope({l1k_}, {k, scope({l0a_, l0b_}, {cube().to_l0a(q, m16_, d), cube().to_l0b(k.dst, d, nt), cube().mmad(l0c_, m16_, nt, d)})}),
                                 wait_cross(Pipe::FIX, kSFree)};
    if (direct_) product += fix_to_ub(round_up(nt, 16), ub_s_, Affine::var(slot, s_tile_bytes()), round_up(nt, 16));
    else product.push_back(fix);
    product.push_back(set_cross(Pipe::FIX, 2, kSReady));
    out.push_back(scope({l0c_}, std::move(product)));
    return out;
  }

  // The 950's FixPipe into the group's vector cores' UB: rows [0, h) of the L0C tile (n columns,
  // NZ16) to vector core 0, rows [h, m16) to vector core 1, as rows of `ld` f32 from `at` in
  // `buffer` (each core's own copy of it).
  std::vector<Node> fix_to_ub(int64_t n, int buffer, const Affine& at, int64_t ld) {
    std::vector<Node> out;
    for (int64_t sub = 0; sub < 2; ++sub)
      out.push_back(instr("fixpipe.f32.f32", Pipe::FIX, {{-1, buffer, at}, {-1, l0c_, Affine(sub * h_ * 16 * 4)}},
                          {mem_arg(0), mem_arg(1), kw("m", imm(h_)), kw("n", imm(n)), kw("src_stride", imm(m16_)),
                           kw("dst_stride", imm(ld)), kw("sub", imm(sub))}));
    return out;
  }
  int64_t s_tile_bytes() const { return h_ * kv16_ * 4; }   // a vector core's S in UB
  int64_t pv_tile_bytes() const { return h_ * p_.dim * 4; }  // and its P V

  // P_t V_t: P from its slot (whole fractals of keys: those past the keys are 0) and V into L1, the
  // product into this group's next P V slot.
  std::vector<Node> pv(const Affine& t, const Affine& kvh, int64_t nt, const Counters& n) {
    const int64_t d = p_.dim, n16 = round_up(nt, 16);
    const int ps = k_.new_var("p_slot"), vs = k_.new_var("pv_slot");
    Node p{Node::Kind::Move};
    p.src = {{kWsP, -1, slot_at(ps, p_slots_, p_bytes())}, Layout::ND, p_.in, m16_, n16, kv16_};
    p.dst = {{-1, l1p_, 0}, Layout::NZ, p_.in, m16_, n16, m16_};
    Node v{Node::Kind::Move};
    v.src = {{kV, -1, (kvh * p_.seq_kv + t * p_.tile_kv) * (d * in_size_)}, Layout::ND, p_.in, nt, d, d};
    v.dst = {{-1, l1v_, 0}, Layout::NZ, p_.in, nt, d, n16};
    View pl = p.dst;
    pl.cols = nt;
    Node fix{Node::Kind::Move};
    fix.src = {{-1, l0c_, 0}, Layout::NZ16, DType::f32, m16_, d, m16_};
    fix.dst = {{kWsPv, -1, slot_at(vs, pv_slots_, pv_bytes())}, Layout::ND, DType::f32, m16_, d, d};
    std::vector<Node> out = take_slot(n.p, ps, p_slots_);
    out += take_slot(n.pv, vs, pv_slots_);
    if (direct_) {  // P in its L1 slot already (the vector cores' UB -> L1), P V to their UB
      pl.at = {-1, l1p_, Affine::var(ps, p_bytes())};
      // P's slots are no scope: this core never writes them (the sync pass orders a buffer's writer
      // and readers on one core; the cross-core flags order the vector cores' writes).
      std::vector<Node> product = {scope({l1v_}, {v, scope({l0a_, l0b_}, {wait_cross(Pipe::MTE1, kPReady), cube().to_l0a(pl, m16_, nt),
                                                                                 set_cross(Pipe::MTE1, 2, kPFree), cube().to_l0b(v.dst, nt, d),
                                                                                 cube().mmad(l0c_, m16_, d, nt)})}),
                                   wait_cross(Pipe::FIX, kPvFree)};
      product += fix_to_ub(d, ub_pv_, Affine::var(vs, pv_tile_bytes()), d);
      product.push_back(set_cross(Pipe::FIX, 2, kPvReady));
      out.push_back(scope({l0c_}, std::move(product)));
      return out;
    }
    out.push_back(scope({l0c_}, {scope({l1p_, l1v_}, {wait_cross(Pipe::MTE2, kPReady), p, set_cross(Pipe::MTE2, 2, kPFree), v,
                                                      scope({l0a_, l0b_}, {cube().to_l0a(pl, m16_, nt), cube().to_l0b(v.dst, nt, d), cube().mmad(l0c_, m16_, d, nt)})}),
                                 wait_cross(Pipe::FIX, kPvFree), fix, set_cross(Pipe::FIX, 2, kPvReady)}));
    return out;
  }

  CubeBuffers cube() const { return {l0a_, l0b_, p_.in}; }

  // ---- the vector cores: each its h rows of the tile (subblock_idx 0: the first h) ----
  std::vector<Node> vector_item(const Affine& bh, const Affine& qi, int64_t mt, const Counters& n) {
    mt_ = mt;
    std::vector<Node> body = key_loop(
        qi, "_v",
        [&](const Affine& t) {
          std::vector<Node> out = {let(par_, t, LetOp::Rem, slots_)};
          return out += tail_of(t, [&](int64_t nt) { return softmax(t, qi, nt, n); });
        },
        [&](const Affine& t) {
          std::vector<Node> out = {let(prev_, t, LetOp::Rem, slots_)};
          return out += update(n.pv);
        });
    std::vector<Node> indices;
    index_->item(indices, {{qi, p_.q_tiles(), p_.tile_q}, {Affine::var(k_.subblock), 2, h_}}, bh);
    body.insert(body.begin(), indices.begin(), indices.end());
    const int64_t d = p_.dim;
    std::vector<Node> result;
    // O / l, l spread into a buffer of its own (a block per row, as VectorOps spreads it): the
    // key loop's spreads share the pool, which would need a barrier on either side of the loop.
    result.push_back(instr("vbrcb.f32", Pipe::V, {{-1, spread_, Affine(0)}, row(sum_).at},
                           {mem_arg(0), mem_arg(1), kw("repeat", imm(h_ / 8))}));
    for (int64_t c = 0; c < cdiv(d, 64); ++c) {  // 64 columns of every row an instruction
      Ref at{-1, ub_o_, Affine(c * 256)};
      std::vector<Arg> args = {mem_arg(0), mem_arg(1), mem_arg(2), kw("repeat", imm(h_)), kw("dst_rep", imm(d * 4 / 32)),
                               kw("src0_rep", imm(d * 4 / 32)), kw("src1_blk", imm(0)), kw("src1_rep", imm(1))};
      if (d - c * 64 < 64) args.push_back(kw("mask", mask_count(d - c * 64)));
      result.push_back(instr("vdiv.f32", Pipe::V, {at, at, {-1, spread_, Affine(0)}}, std::move(args)));
    }
    VectorOps(k_, *pool_, result, tile(d)).cast(full(ub_r_, p_.out), full(ub_o_));
    // This core's rows of the tile's mt: [0, h) or [h, mt).
    const Affine at = (bh * p_.seq_q + qi * p_.tile_q) * (d * dtype_size(p_.out));
    auto store = [&](int64_t row0) -> std::vector<Node> {
      const int64_t rows = std::min(h_, mt - row0);
      if (rows <= 0) return {};
      return {instr("copy_ub_gm", Pipe::MTE3, {{kO, -1, at + Affine(row0 * d * dtype_size(p_.out))}, {-1, ub_r_, Affine(0)}},
                    {mem_arg(0), mem_arg(1), kw("nburst", imm(1)), kw("len", imm(rows * d * dtype_size(p_.out) / 32))})};
    };
    result.push_back(when(Affine::var(k_.subblock), 0, store(0), store(h_)));
    const Affine first = bh * p_.seq_q + qi * p_.tile_q;
    result.push_back(when(Affine::var(k_.subblock), 0, store_lse(k_, *pool_, p_, lse_, max_, sum_, h_, first, std::min(h_, mt)),
                          store_lse(k_, *pool_, p_, lse_, max_, sum_, h_, first + Affine(h_), mt - h_)));
    body.push_back(scope({ub_r_}, std::move(result)));
    return body;
  }

  VValue full(int buffer, DType t = DType::f32) const { return {VShape::Full, t, {-1, buffer, Affine(0)}, 0}; }
  VValue row(int buffer, Affine at = Affine(0)) const { return {VShape::Row, DType::f32, {-1, buffer, std::move(at)}, 0}; }
  VValue alpha(int copy) const { return row(alpha_, Affine::var(copy, row_bytes_)); }
  VTile tile(int64_t cols) const { return {h_, cols, cols, false}; }
  Affine my_rows(int64_t row_bytes) const { return Affine::var(k_.subblock, h_ * row_bytes); }
  VValue s_tile() const { return {VShape::Full, DType::f32, {-1, ub_s_, s_at_}, 0}; }  // this key tile's S

  // Key tile t's S (its slot, this core's rows): scaled, masked, the running max and sum updated,
  // a_t kept, P_t = exp(S - m) into the next P slot.
  std::vector<Node> softmax(const Affine& t, const Affine& qi, int64_t nt, const Counters& n) {
    const int ss = k_.new_var("s_slot_v"), ps = k_.new_var("p_slot_v");
    std::vector<Node> out = take_slot(n.s, ss, s_slots_);
    out += take_slot(n.p, ps, p_slots_);
    // The columns the cube wrote (whole fractals of nt): UB holds them as rows of n16, the slots
    // as rows of kv16.
    const int64_t n16 = round_up(nt, 16);
    n16_ = n16;
    s_at_ = direct_ ? Affine::var(ss, s_tile_bytes()) : Affine(0);
    if (direct_) return out += softmax_of(t, qi, nt, ps, {wait_cross(Pipe::V, kSReady)});
    std::vector<Arg> args = rows_args(4, "src_gap");
    Node load = instr("copy_gm_ub", Pipe::MTE2, {{-1, ub_sw_, Affine(0)}, {kWsS, -1, slot_at(ss, s_slots_, s_bytes()) + my_rows(kv16_ * 4)}},
                      std::move(args));
    std::vector<Node> scaled = {wait_cross(Pipe::MTE2, kSReady), load, set_cross(Pipe::MTE2, 2, kSFree)};
    VectorOps(k_, *pool_, scaled, tile(n16)).binary(VBinary::Mul, full(ub_s_), full(ub_sw_), VValue::scalar(DType::f32, p_.scale));
    return out += softmax_of(t, qi, nt, ps, {scope({ub_sw_}, std::move(scaled))});
  }

  // S += the mask's tile: this core's rows of it (vector core 1: from row h), or its row of keys.
  void add_mask(std::vector<Node>& out, const Affine& t, const Affine& qi, int64_t nt) {
    auto load = [&](int64_t row0, int64_t rows) -> std::vector<Node> {
      if (p_.mask_i && rows <= 0) return {};
      return load_mask(p_, {mask_t_, mk_, plane_, qi * p_.tile_q + Affine(row0), t * p_.tile_kv, rows, nt, n16_, 0});
    };
    std::vector<Node> add;
    if (p_.mask_i) add.push_back(when(Affine::var(k_.subblock), 0, load(0, std::min(h_, mt_)), load(h_, mt_ - h_)));
    else add = load(0, 1);
    VValue m = p_.mask_i ? full(mk_) : VValue{VShape::Col, DType::f32, {-1, mk_, Affine(0)}, 0};
    VectorOps(k_, *pool_, add, tile(n16_)).binary(VBinary::Add, s_tile(), s_tile(), m);
    out.push_back(scope({mk_}, std::move(add)));
  }

  // A copy between this core's rows of a GM slot (rows of kv16) and UB (rows of n16).
  std::vector<Arg> rows_args(int64_t size, const char* gap_kw) const {
    const int64_t gap = (kv16_ - n16_) * size / 32;
    std::vector<Arg> args = {mem_arg(0), mem_arg(1), kw("nburst", imm(gap ? h_ : 1)), kw("len", imm((gap ? n16_ : h_ * n16_) * size / 32))};
    if (gap) args.push_back(kw(gap_kw, imm(gap)));
    return args;
  }

  // The online softmax of key tile t from its S (scaled by `scaled` where it was loaded, in its
  // UB slot on the 950), P_t into P slot `ps`.
  std::vector<Node> softmax_of(const Affine& t, const Affine& qi, int64_t nt, int ps, std::vector<Node> make) {
    const int64_t n16 = n16_;
    if (direct_) VectorOps(k_, *pool_, make, tile(n16)).binary(VBinary::Mul, s_tile(), s_tile(), VValue::scalar(DType::f32, p_.scale));
    index_->key_tile(make, t);
    modify_scores(k_, *pool_, p_, make, tile(n16), s_tile(), *index_);
    if (p_.mask) add_mask(make, t, qi, nt);
    if (nt < n16) mask_columns(make, nt);
    if (p_.causal) {
      std::vector<Node> diag0, diag1;
      mask_diagonal(diag0, 0);
      mask_diagonal(diag1, h_);
      make.push_back(when(t - qi, 0, {when(Affine::var(k_.subblock), 0, std::move(diag0), std::move(diag1))}, {}));
    }
    if (p_.window) {  // the keys before the window in its first two tiles, this core's rows
      const int64_t tiles = p_.window_tiles();
      for (int64_t back : {tiles, tiles - 1}) {
        const int64_t shift = p_.window_shift() - (tiles - back) * p_.tile_kv;
        std::vector<Node> edge0, edge1;
        mask_window(edge0, 0, shift);
        mask_window(edge1, h_, shift);
        if (back >= 0 && (!edge0.empty() || !edge1.empty()))
          make.push_back(when(qi - t, back, {when(Affine::var(k_.subblock), 0, std::move(edge0), std::move(edge1))}, {}));
      }
    }
    {
      VectorOps ops(k_, *pool_, make, tile(n16));
      ops.reduce(VReduce::Max, row(tile_max_), s_tile());
    }
    std::vector<Node> start;
    VectorOps(k_, *pool_, start, tile(n16)).fill(row(max_), sched::kRunningMaxStart);
    make.push_back(when(t - first_, 0, std::move(start), {}));
    {
      VectorOps ops(k_, *pool_, make, tile(n16));
      ops.binary(VBinary::Max, row(tile_max_), row(tile_max_), row(max_));  // m_new
      ops.binary(VBinary::Sub, alpha(par_), row(max_), row(tile_max_));     // m_old - m_new
      ops.unary("vexp", alpha(par_), alpha(par_));
      ops.binary(VBinary::Add, row(max_), row(tile_max_), VValue::scalar(DType::f32, 0));
      ops.binary(VBinary::Sub, s_tile(), s_tile(), row(tile_max_));
      ops.unary("vexp", s_tile(), s_tile());
      ops.reduce(VReduce::Sum, row(tile_sum_), s_tile());
      ops.binary(VBinary::Mul, row(sum_), row(sum_), alpha(par_));
      ops.binary(VBinary::Add, row(sum_), row(sum_), row(tile_sum_));
    }
    std::vector<Node> hand_off;
    VectorOps(k_, *pool_, hand_off, tile(n16)).cast(full(ub_p_, p_.in), s_tile());
    if (direct_) hand_off.push_back(set_cross(Pipe::V, 2, kSFree));  // the cast read S last
    hand_off.push_back(wait_cross(Pipe::MTE3, kPFree));
    if (direct_) hand_off += p_to_l1(ps);
    else
      hand_off.push_back(instr("copy_ub_gm", Pipe::MTE3, {{kWsP, -1, slot_at(ps, p_slots_, p_bytes()) + my_rows(kv16_ * in_size_)}, {-1, ub_p_, Affine(0)}},
                               rows_args(in_size_, "dst_gap")));
    hand_off.push_back(set_cross(Pipe::MTE3, 2, kPReady));
    make.push_back(scope({ub_p_}, std::move(hand_off)));
    return {scope({ub_s_}, std::move(make))};
  }

  // P (this core's h rows of n16 keys in UB) into its rows of P slot `ps` in the cube core's L1,
  // NZ: per 16 keys, one 32 B block of every row, the rows' blocks contiguous in L1.
  std::vector<Node> p_to_l1(int ps) {
    std::vector<Node> out;
    const int64_t row_blocks = n16_ * in_size_ / 32;
    for (int64_t c = 0; c < n16_ / 16; ++c) {
      std::vector<Arg> args = {mem_arg(0), mem_arg(1), kw("nburst", imm(h_)), kw("len", imm(1))};
      if (row_blocks > 1) args.push_back(kw("src_gap", imm(row_blocks - 1)));
      out.push_back(instr("copy_ub_l1", Pipe::MTE3,
                          {{-1, l1p_, Affine::var(ps, p_bytes()) + Affine(c * m16_ * 32) + my_rows(32)}, {-1, ub_p_, Affine(c * 32)}},
                          std::move(args)));
    }
    return out;
  }

  // O = a O + P V of the key tile whose a is copy prev_, its P V from the next P V slot.
  std::vector<Node> update(int counter) {
    const int vs = k_.new_var("pv_slot_v");
    std::vector<Node> out = take_slot(counter, vs, pv_slots_);
    const int64_t d = p_.dim;
    const VValue pv{VShape::Full, DType::f32, {-1, ub_pv_, direct_ ? Affine::var(vs, pv_tile_bytes()) : Affine(0)}, 0};
    std::vector<Node> make = {wait_cross(aiv_in(), kPvReady)};
    if (!direct_) {
      make.push_back(instr("copy_gm_ub", Pipe::MTE2, {{-1, ub_pv_, Affine(0)}, {kWsPv, -1, slot_at(vs, pv_slots_, pv_bytes()) + my_rows(d * 4)}},
                           {mem_arg(0), mem_arg(1), kw("nburst", imm(1)), kw("len", imm(h_ * d * 4 / 32))}));
      make.push_back(set_cross(Pipe::MTE2, 2, kPvFree));
    }
    VectorOps ops(k_, *pool_, make, tile(d));
    ops.binary(VBinary::Mul, full(ub_o_), full(ub_o_), alpha(prev_));
    ops.binary(VBinary::Add, full(ub_o_), full(ub_o_), pv);
    if (!direct_) {
      out.push_back(scope({ub_pv_}, std::move(make)));
      return out;
    }
    make.push_back(set_cross(Pipe::V, 2, kPvFree));  // the add read P V last
    out += std::move(make);  // P V's slots: no scope, the cube core writes them (as P's on its side)
    return out;
  }

  // vdup of `value` into the lanes `bits` selects of `repeats` repeats of 64 f32 from `byte`, each
  // repeat `rep_blocks` 32 B blocks after the previous.
  void masked_dup(std::vector<Node>& out, int64_t byte, int64_t repeats, int64_t rep_blocks, uint64_t bits, double value) {
    out.push_back(instr("vdup.f32", Pipe::V, {{-1, ub_s_, s_at_ + Affine(byte)}},
                        {mem_arg(0), num(value), kw("repeat", imm(repeats)), kw("dst_rep", imm(rep_blocks)),
                         kw("mask", mask_bits(0, bits))}));
  }
  // Elements [from, to) of a row starting at `row_byte` hidden (the causal mask's, a window's): the
  // first 64 from a 32 B boundary under a mask, the rest whole.
  void mask_run(std::vector<Node>& out, int64_t row_byte, int64_t from, int64_t to) {
    if (from >= to) return;
    const int64_t base = from / 8 * 8, head_end = std::min(to, base + 64);
    uint64_t bits = 0;
    for (int64_t c = from; c < head_end; ++c) bits |= uint64_t(1) << (c - base);
    masked_dup(out, row_byte + base * 4, 1, 8, bits, p_.hidden);
    if (head_end < to) {
      const int64_t n = to - head_end;
      VectorOps(k_, *pool_, out, {1, n, n}).fill({VShape::Col, DType::f32, {-1, ub_s_, s_at_ + Affine(row_byte + head_end * 4)}, 0},
                                                   p_.hidden);
    }
  }
  // The columns past the keys, [nt, n16) of every row: per 64 of them, one masked repeat per row.
  void mask_columns(std::vector<Node>& out, int64_t nt) {
    for (int64_t base = nt / 8 * 8; base < n16_; base += 64) {
      uint64_t bits = 0;
      for (int64_t c = std::max(nt, base); c < std::min(n16_, base + 64); ++c) bits |= uint64_t(1) << (c - base);
      masked_dup(out, base * 4, h_, n16_ * 4 / 32, bits, sched::kPaddedScore);
    }
  }
  // The diagonal tile of a causal mask, for the rows from `row0` of the tile: row r's keys past r.
  void mask_diagonal(std::vector<Node>& out, int64_t row0) {
    for (int64_t r = 0; r < h_; ++r) mask_run(out, r * n16_ * 4, row0 + r + 1, n16_);
  }
  // A sliding window's first tiles, for the rows from `row0` of the tile: row r's keys c < r + shift.
  void mask_window(std::vector<Node>& out, int64_t row0, int64_t shift) {
    for (int64_t r = 0; r < h_; ++r) mask_run(out, r * n16_ * 4, 0, std::min(n16_, row0 + r + shift));
  }

  // The vector cores' buffers zeroed once: what a masked instruction skips holds a defined value.
  std::vector<Node> zero_scratch(std::vector<Node> body) {
    std::vector<Node> out;
    std::vector<int> all = pool_->all();
    for (int b : {ub_s_, ub_pv_, ub_o_, max_, sum_, tile_max_, alpha_, tile_sum_}) all.push_back(b);
    for (int b : all) {
      if (pool_->written_whole(b)) continue;
      int64_t n = k_.buffers[size_t(b)].bytes / 4;
      VectorOps(k_, *pool_, out, {1, n, n}).fill({VShape::Col, DType::f32, {-1, b, Affine(0)}, 0}, 0);
    }
    if (mk_ >= 0) out += zero_before_loads(k_, *pool_, mk_);
    return out += std::move(body);
  }

  const sched::StageGraph& g_;
  const sched::AttentionPlan& p_;
  const ChipConfig& chip_;
  const int64_t m16_, kv16_, h_, in_size_;
  Kernel k_;
  int l1q_ = -1, l1k_ = -1, l1v_ = -1, l1p_ = -1, l0a_ = -1, l0b_ = -1, l0c_ = -1;
  int ub_sw_ = -1, ub_s_ = -1, ub_p_ = -1, ub_pv_ = -1, ub_o_ = -1, ub_r_ = -1;
  int max_ = -1, sum_ = -1, tile_max_ = -1, alpha_ = -1, tile_sum_ = -1, spread_ = -1, lse_ = -1;
  int mk_ = -1, mask_t_ = -1;  // the mask's tile in UB, its tensor
  Affine plane_;               // the item's mask plane (elements)
  int64_t mt_ = 0;             // the query tile's rows
  Affine first_;               // the item's first key tile (first_key_tile), as key_loop last set it
  int par_ = -1, prev_ = -1;
  int64_t row_bytes_ = 0;
  int64_t n16_ = 0;  // the key tile's columns in UB (whole fractals of its keys)
  Affine s_at_;      // where the key tile's S is in the S buffer (its slot on the 950)
  const bool direct_;  // the 950: S and P V by FixPipe into UB, P UB -> L1; else all through GM
  // The key tiles S runs ahead of the softmax (D); the slots of a (A, D + 1), of S (S.ws, D + 1,
  // or S.ub), of P (P.ws or P.l1, D + 1) and of P V (PV.ws or PV.ub, 2): the graph's copies.
  const int preload_, slots_, s_slots_, p_slots_, pv_slots_;
  std::unique_ptr<ScratchPool> pool_;
  std::unique_ptr<ScoreIndices> index_;
};

}  // namespace

Kernel lower_attention_split(const sched::StageGraph& graph, const ChipConfig& chip) {
  return SplitFlash(graph, chip).lower();
}

}  // namespace cubekit::codegen
