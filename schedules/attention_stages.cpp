// The stage graph of a flash() schedule: every buffer of the flash nests (codegen/lower_attention,
// lower_attention_split) is one of its stages, sized by the stage's form, so that what the nest
// holds is stated once; `cubekit compile attention` prints it. Stages the cube loads alternately
// share a buffer and are one stage with two producers (Q and P in L0A, K and V in L0B; on a
// split chip S and P V in L0C). Copies a nest rotates itself (hand-off slots) are its copies too,
// in GM workspaces as on chip: the split nest takes its slot counts from them.
// On a split chip the vector cores' stages hold one core's half of a query tile's rows.
#include "schedules/stages.h"

#include "emulator/arith.h"

#include <algorithm>

namespace cubekit::sched {

namespace {

class FlashGraph {
 public:
  explicit FlashGraph(const AttentionPlan& p) : p_(p) {
    g_.kernel = p.func_name;
    g_.attention = std::make_shared<const AttentionPlan>(p);
    rows_ = p.split ? round_up(p.tile_q, 16) / 2 : p.tile_q;  // a split chip's vector cores each take half
  }

  StageGraph build() {
    const int64_t tq = p_.tile_q, tkv = p_.tile_kv, d = p_.dim;
    const int q = given(p_.q->name), k = given(p_.k->name), v = given(p_.v->name);
    const int mask = p_.mask ? given(p_.mask->name) : -1;
    // The cube's side: Q resident per query tile, K and V streamed per key tile.
    const int ql1 = add("Q.l1", Engine::MTE2, Place::L1, {tq, d}, At::Tile, 1, Form::NZ, p_.in, {{q, Path::Nd2Nz}});
    const int kl1 = add("K.l1", Engine::MTE2, Place::L1, {tkv, d}, At::KeyTile, 2, Form::NZ, p_.in, {{k, Path::Nd2Nz}});
    const int vl1 = add("V.l1", Engine::MTE2, Place::L1, {tkv, d}, At::KeyTile, p_.split ? 2 : 1, Form::NZ, p_.in, {{v, Path::Nd2Nz}});
    // P's way back to the cube: through a GM workspace (copies: the split nest's slots, which it
    // reuses once the vector cores have handed them back), or on the 950 from UB straight into L1.
    const int pl1 = add("P.l1", p_.direct ? Engine::MTE3 : Engine::MTE2, Place::L1, {tq, tkv}, At::KeyTile,
                        p_.direct ? p_.preload + 1 : p_.split ? 2 : 1, Form::NZ, p_.in, {});
    const int l0a = add("QP.l0a", Engine::MTE1, Place::L0A, {tq, std::max(d, tkv)}, At::KeyTile, 2, Form::NZ, p_.in,
                        {{ql1, Path::Load2d}, {pl1, Path::Load2d}});
    const int l0b = add("KV.l0b", Engine::MTE1, Place::L0B, {tkv, d}, At::KeyTile, 2, Form::ZN, p_.in,
                        {{kl1, Path::Load2d}, {vl1, Path::Load2d}});
    const std::vector<std::pair<int, Path>> mmad = {{l0a, Path::Mmad}, {l0b, Path::Mmad}};
    int s, pv;
    if (p_.split) {
      s = pv = add("SPV.l0c", Engine::Cube, Place::L0C, {tq, std::max(d, tkv)}, At::KeyTile, 2, Form::Acc, DType::f32, mmad);
    } else {
      s = add("S", Engine::Cube, Place::L0C, {tq, tkv}, At::KeyTile, 1, Form::Acc, DType::f32, mmad);
      pv = add("PV", Engine::Cube, Place::L0C, {tq, d}, At::KeyTile, 2, Form::Acc, DType::f32, mmad);
    }
    // The vector unit's side: S into UB, the online softmax, P, and the update of O by P V.
    int sub, pvub;
    if (p_.direct) {  // the FixPipe writes S and P V into slots in the vector cores' UB; S is scaled in place
      sub = add("S.ub", Engine::FixPipe, Place::UB, {rows_, tkv}, At::KeyTile, kAttentionUbSlots, Form::Rows, DType::f32, {{s, Path::FixPipe}});
      if (mask >= 0) add("mask.ub", Engine::MTE2, Place::UB, mask_tile(), At::KeyTile, 1, Form::Rows, DType::f32, {{mask, Path::Copy}});
      pvub = add("PV.ub", Engine::FixPipe, Place::UB, {rows_, d}, At::KeyTile, kAttentionPvSlots, Form::Rows, DType::f32, {{pv, Path::FixPipe}});
    } else if (p_.split) {  // S and P V through GM workspace slots; the mask's tile where S was loaded
      const int sws = add("S.ws", Engine::FixPipe, Place::Workspace, {}, At::KeyTile, p_.preload + 1, Form::None, DType::f32,
                          {{s, Path::FixPipe}});
      std::vector<std::pair<int, Path>> in = {{sws, Path::CrossCore}};
      if (mask >= 0) in.push_back({mask, Path::Copy});
      const int sin = add("S.in", Engine::MTE2, Place::UB, {rows_, tkv}, At::KeyTile, 1, Form::Rows, DType::f32, in);
      sub = add("S.ub", Engine::Vector, Place::UB, {rows_, tkv}, At::KeyTile, 1, Form::Rows, DType::f32, {{sin, Path::Compute}});
      const int pvws = add("PV.ws", Engine::FixPipe, Place::Workspace, {}, At::KeyTile, kAttentionPvSlots, Form::None, DType::f32,
                           {{pv, Path::FixPipe}});
      pvub = add("PV.ub", Engine::MTE2, Place::UB, {rows_, d}, At::KeyTile, 1, Form::Rows, DType::f32, {{pvws, Path::CrossCore}});
    } else {  // the coupled core: L0C drained into UB on the vector pipe
      sub = add("S.ub", Engine::Vector, Place::UB, {tq, tkv}, At::KeyTile, 1, Form::Acc, DType::f32, {{s, Path::Drain}});
      if (mask >= 0) add("mask.ub", Engine::MTE2, Place::UB, mask_tile(), At::KeyTile, 1, Form::Rows, DType::f32, {{mask, Path::Copy}});
      pvub = add("PV.ub", Engine::Vector, Place::UB, {tq, d}, At::KeyTile, 1, Form::Acc, DType::f32, {{pv, Path::Drain}});
    }
    // The running statistics of the rows: m, l, a key tile's max and sum, a = exp(m_old - m_new)
    // (a key tile's and the previous one's; on a split chip one per slot), each row spread over a
    // 32 B block, and the logsumexp.
    const int m = row("M", {{sub, Path::Compute}});
    const int mt = row("MT", {{sub, Path::Compute}});
    const int a = add("A", Engine::Vector, Place::UB, {rows_}, At::KeyTile, p_.split ? p_.preload + 1 : 2, Form::Vector,
                      DType::f32, {{m, Path::Compute}, {mt, Path::Compute}});
    const int pub = add("P", Engine::Vector, Place::UB, {rows_, tkv}, At::KeyTile, p_.split ? 1 : 2, p_.split ? Form::Rows : Form::NZ,
                        p_.in, {{sub, Path::Compute}, {m, Path::Compute}});
    const int lt = row("LT", {{pub, Path::Compute}});
    const int l = row("L", {{a, Path::Compute}, {lt, Path::Compute}});
    if (p_.direct) {
      g_.connect(pub, pl1, Path::Copy);
    } else {
      const int pws = add("P.ws", Engine::MTE3, Place::Workspace, {}, At::KeyTile, p_.split ? p_.preload + 1 : 1, Form::None, p_.in,
                          {{pub, Path::Copy}});
      g_.connect(pws, pl1, Path::Copy);
    }
    add("SP", Engine::Vector, Place::UB, {rows_, p_.split ? 8 : 16}, At::KeyTile, 1, Form::Vector, DType::f32, {{a, Path::Compute}});
    const int oacc = add("O.acc", Engine::Vector, Place::UB, {rows_, d}, At::Tile, 1, p_.split ? Form::Rows : Form::Acc, DType::f32,
                         {{pvub, Path::Compute}, {a, Path::Compute}});
    const int oub = add("O.ub", Engine::Vector, Place::UB, {rows_, d}, At::Tile, 1, p_.split ? Form::Rows : Form::NZ, p_.out,
                        {{oacc, Path::Compute}, {l, Path::Compute}});
    add(p_.func_name, Engine::MTE3, Place::GM, {}, At::Given, 1, Form::None, p_.out, {{oub, Path::Copy}});
    if (!p_.lse.empty()) {
      const int lse = row("LSE", {{m, Path::Compute}, {l, Path::Compute}});
      add(p_.lse, Engine::MTE3, Place::GM, {}, At::Given, 1, Form::None, DType::f32, {{lse, Path::Copy}});
    }
    return std::move(g_);
  }

 private:
  int given(const std::string& name) { return g_.add({name, Engine::None, Place::GM, {}, At::Given, 1}); }

  int add(const std::string& name, Engine e, Place place, std::vector<int64_t> tile, At at, int copies, Form form, DType t,
          const std::vector<std::pair<int, Path>>& from) {
    GraphStage s{name, e, place, std::move(tile), at, copies};
    s.form = form;
    s.dtype = t;
    const int i = g_.add(std::move(s));
    for (auto [producer, path] : from) g_.connect(producer, i, path);
    return i;
  }

  int row(const std::string& name, const std::vector<std::pair<int, Path>>& from) {
    return add(name, Engine::Vector, Place::UB, {rows_}, At::Tile, 1, Form::Vector, DType::f32, from);
  }

  // The mask's tile as S holds it (the rows of queries), or its one row of keys when it broadcasts
  // over the queries.
  std::vector<int64_t> mask_tile() const {
    if (p_.mask_i) return {rows_, p_.tile_kv};
    return {1, p_.tile_kv};
  }

  const AttentionPlan& p_;
  StageGraph g_;
  int64_t rows_ = 0;
};

}  // namespace

StageGraph stage_graph(const AttentionPlan& plan) { return FlashGraph(plan).build(); }

}  // namespace cubekit::sched
