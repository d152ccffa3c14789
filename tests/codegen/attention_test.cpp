// Flash attention (kernels/attention.h): the emulated kernel against the Halide reference of the
// same Funcs (S, its softmax and P V through GM as three stages, computed unfused on the host),
// and the reference itself against loops written here.
#include "codegen/lower.h"
#include "codegen/lower_stages.h"
#include "codegen_test_util.h"
#include "dsl/host.h"
#include "emulator/rounding.h"
#include "kernels/attention.h"
#include "schedules/stages.h"

#include <fmt/ranges.h>

#include <cmath>
#include <cstring>
#include <random>

namespace cubekit {
namespace {

using kernels::AttentionOptions;

AttentionOptions attn(int64_t b, int64_t h, int64_t hk, int64_t sq, int64_t skv, int64_t d, bool causal = false) {
  AttentionOptions o;
  o.batch = b, o.heads = h, o.kv_heads = hk, o.seq_q = sq, o.seq_kv = skv, o.dim = d, o.causal = causal;
  return o;
}

// Runs the kernel on seeded inputs and compares it with the Halide reference; checker-clean.
void expect_correct(const AttentionOptions& o, const ChipConfig& chip) {
  kernels::Attention a = kernels::attention(o, chip);
  kernels::RunSettings s;
  s.seed = 5;
  kernels::KernelRun run = kernels::compile_and_run(a.outputs(), chip, s);
  const std::string what = fmt::format("b{} h{}/{} s{}x{} d{}{}{} mask [{}] {} on {}", o.batch, o.heads, o.kv_heads, o.seq_q, o.seq_kv,
                                       o.dim, o.causal ? " causal" : "", o.lse ? " lse" : "", fmt::join(o.mask, ","),
                                       dtype_name(o.dtype), chip.name);
  EXPECT_TRUE(run.sim.report.clean()) << what << "\n" << test::describe(run);
  ASSERT_TRUE(run.checked) << what;
  EXPECT_TRUE(run.check.pass) << what << ": max abs " << run.check.max_abs << ", " << run.check.mismatches << " mismatches";
}

TEST(Attention, SmallShapesMatchTheReference) {
  expect_correct(attn(1, 1, 1, 64, 128, 64), test::chip());
  expect_correct(attn(1, 2, 1, 48, 80, 128, true), test::chip());  // GQA, causal, partial tiles, head dim 128
}

// Random shapes on every preset: batch, heads and their K/V groups, causal or not, lengths that
// are not multiples of the tiles (either longer), both head dims, f16 and (where the cube takes
// it) bf16, default and explicit tiles, with and without the logsumexp output, with and without an
// additive mask (over every dim, over queries and keys only, a key-padding mask per batch, one per
// head broadcast over the batch).
class AttentionOn : public testing::TestWithParam<const char*> {};

TEST_P(AttentionOn, RandomShapesMatchTheReference) {
  const ChipConfig chip = load_chip(GetParam());
  std::mt19937 rng(2024);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  for (int i = 0; i < (chip.split() ? 6 : 10); ++i) {
    AttentionOptions o;
    o.batch = pick(1, 2);
    o.kv_heads = pick(1, 2);
    o.heads = o.kv_heads * pick(1, 3);
    o.seq_q = pick(1, 200);
    o.causal = pick(0, 2) == 0;
    o.seq_kv = o.causal && pick(0, 1) ? o.seq_q : pick(1, 300);
    o.dim = pick(0, 1) ? 64 : 128;
    if (pick(0, 2) == 0) o.tile_q = o.tile_kv = 16 * pick(1, 4);
    if (chip.fractal(DType::bf16) && pick(0, 1)) o.dtype = DType::bf16;
    o.lse = pick(0, 1) == 1;
    const int64_t skv = o.seq_kv;
    switch (pick(0, 5)) {
      case 0: o.mask = {o.batch, o.heads, o.seq_q, skv}; break;
      case 1: o.mask = {o.seq_q, skv}; break;
      case 2: o.mask = {o.batch, 1, 1, skv}; break;
      case 3: o.mask = {o.heads, o.seq_q, skv}; break;
      default: break;
    }
    SCOPED_TRACE(fmt::format("case {}: b{} h{}/{} s{}x{} d{}{}{} mask [{}] {} tiles {} x {}", i, o.batch, o.heads, o.kv_heads,
                             o.seq_q, o.seq_kv, o.dim, o.causal ? " causal" : "", o.lse ? " lse" : "", fmt::join(o.mask, ","),
                             dtype_name(o.dtype), o.tile_q, o.tile_kv));
    EXPECT_NO_THROW(expect_correct(o, chip));
  }
}

// A query tile's tail of one row reads its row of a per-query mask (the 910's NZ tile took it as a
// row of keys, added to nothing: found by a random sweep of the CLI, which the shapes above missed).
TEST_P(AttentionOn, OneRowTailsReadTheirMaskRow) {
  const ChipConfig chip = load_chip(GetParam());
  AttentionOptions o = attn(2, 2, 1, 65, 64, 64);
  o.tile_q = o.tile_kv = 64, o.mask = {65, 64};
  expect_correct(o, chip);
  o = attn(1, 2, 2, 129, 129, 64, true);
  o.tile_q = o.tile_kv = 32, o.mask = {1, 2, 129, 129}, o.lse = true;
  expect_correct(o, chip);
}

// A causal query whose every visible key the mask hides (-1e30 on all of its row): its visible
// keys tie, and the keys the causal mask hides hold less (kHiddenScore), so the softmax spreads
// over the visible keys -- what the kernel computes from the key tiles it reads. With the hidden
// keys at -1e30 too, the reference spread such a row over all 64 keys, the kernel over its tiles.
TEST_P(AttentionOn, ACausalRowWithEveryVisibleKeyMasked) {
  const ChipConfig chip = load_chip(GetParam());
  AttentionOptions o = attn(1, 1, 1, 32, 64, 64, true);
  o.tile_q = o.tile_kv = 16, o.mask = {32, 64};
  kernels::Attention a = kernels::attention(o, chip);
  kernels::RunSettings s;
  s.seed = 5;
  s.inputs = [](GlobalMemory& gm) {
    std::vector<uint8_t>& mask = gm.bytes("mask");
    for (int row : {0, 20, 31})
      for (int key = 0; key < 64; ++key) {
        const float hidden = -1e30f;
        std::memcpy(mask.data() + (size_t(row) * 64 + size_t(key)) * 4, &hidden, 4);
      }
  };
  kernels::KernelRun run = kernels::compile_and_run(a.outputs(), chip, s);
  EXPECT_TRUE(run.sim.report.clean()) << test::describe(run);
  ASSERT_TRUE(run.checked);
  EXPECT_TRUE(run.check.pass) << run.check.mismatches << " mismatches, max abs " << run.check.max_abs;
}

INSTANTIATE_TEST_SUITE_P(Presets, AttentionOn, testing::Values("ascend910", "ascend910b2", "ascend950pr"));

// Keys hidden with -1e30f (a C++ float, -1.0000000150474662e30) are the causal form, as with -1e30:
// the select was taken for a score modifier (index buffers in UB, a third more cycles, and 128-key
// tiles at head dim 128 no longer fit the split chips' UB).
TEST(Attention, KeysHiddenWithAFloatAreTheCausalForm) {
  const ChipConfig chip = load_chip("ascend910b2");
  dsl::Input q("q", DType::f16, {1, 1, 64, 64}), k("k", DType::f16, {1, 1, 64, 64}), v("v", DType::f16, {1, 1, 64, 64});
  sched::AttentionForm form{q, k, v, 0.125, true, DType::f16};
  form.hidden = double(-1e30f);
  sched::AttentionFuncs f = sched::attention_form(form);
  f.o.flash(64, 64);
  const sched::AttentionPlan p = sched::plan_attention(f.o, chip);
  EXPECT_TRUE(p.causal);
  EXPECT_FALSE(p.written_mod.defined());
  kernels::KernelRun run = kernels::compile_and_run(f.o, chip, {.seed = 2});
  EXPECT_TRUE(run.sim.report.clean()) << test::describe(run);
  EXPECT_TRUE(run.check.pass) << run.check.mismatches << " mismatches";
}

// A score modifier written in the DSL (the form's g, sched::AttentionForm::score_mod), on every
// preset against the Halide reference of the same Funcs: softcapping through the kernel's option
// (with a mask, causal, the logsumexp, partial tiles), and a clamp of the user's own that reads the
// score twice (select(s > 1.5, 1.5, s): evaluated into scratch, then into S).
class AttentionModifier : public testing::TestWithParam<const char*> {};

TEST_P(AttentionModifier, MatchesTheReference) {
  const ChipConfig chip = load_chip(GetParam());
  AttentionOptions o = attn(1, 2, 1, 40, 72, 64, true);
  o.tile_q = o.tile_kv = 16;
  o.softcap = 1.5, o.lse = true, o.mask = {40, 72};
  SCOPED_TRACE("softcap");
  expect_correct(o, chip);

  dsl::Input q("q", DType::f16, {1, 2, 50, 64}), k("k", DType::f16, {1, 1, 90, 64}), v("v", DType::f16, {1, 1, 90, 64});
  sched::AttentionForm form{q, k, v, 0.125, false, DType::f16};
  form.score_mod = [](const dsl::Expr& s) { return dsl::select(s > 1.5, dsl::Expr(1.5), s); };
  sched::AttentionFuncs f = sched::attention_form(form);
  f.o.flash(32, 32);
  kernels::RunSettings settings;
  settings.seed = 7;
  kernels::KernelRun run = kernels::compile_and_run({f.o}, chip, settings);
  EXPECT_TRUE(run.sim.report.clean()) << test::describe(run);
  ASSERT_TRUE(run.checked);
  EXPECT_TRUE(run.check.pass) << "clamp: max abs " << run.check.max_abs << ", " << run.check.mismatches << " mismatches";
}

// Modifiers that read the scores' indices (FlexAttention's b, h, q_idx, kv_idx): ALiBi's bias by
// head and distance, on grouped-query heads with a term by batch, and a sliding window under the
// causal mask with the logsumexp; many query and key tiles (each tile's first index added bit by
// bit), partial ones included.
TEST_P(AttentionModifier, ReadsTheScoresIndices) {
  const ChipConfig chip = load_chip(GetParam());
  AttentionOptions o = attn(2, 4, 2, 100, 150, 64);
  o.tile_q = 32, o.tile_kv = 48;
  o.score_mod = [](const dsl::Expr& s, const sched::ScoreIndex& at) {
    return s - dsl::cast(DType::f32, at.h + 1) * 0.25 * dsl::cast(DType::f32, at.q - at.kv) + dsl::cast(DType::f32, at.b) * 0.5;
  };
  {
    SCOPED_TRACE("alibi");
    expect_correct(o, chip);
  }
  AttentionOptions a = attn(1, 4, 1, 90, 90, 64, true);  // the kernel's ALiBi, after a softcap
  a.tile_q = a.tile_kv = 32, a.alibi = true, a.softcap = 4;
  {
    SCOPED_TRACE("alibi option");
    expect_correct(a, chip);
  }
  AttentionOptions w = attn(1, 2, 2, 120, 120, 64, true);
  w.tile_q = w.tile_kv = 32, w.lse = true;
  w.score_mod = [](const dsl::Expr& s, const sched::ScoreIndex& at) {
    return dsl::select(at.q - at.kv > 40, dsl::Expr(-1e30), s);
  };
  {
    SCOPED_TRACE("sliding window");
    expect_correct(w, chip);
  }
  // A distance bias |i - j| in 128 x 128 tiles (64 rows a vector core on the split chips; a bias
  // linear in i alone would cancel in the softmax, hiding a wrong row): the modifier's Full values strip by strip, each strip's query rows from its own offset; a partial
  // query tile of 100 rows (50 a vector core: a strip of 18). The 910's UB holds no Full value
  // beside a 128 x 128 NZ tile: 64 x 64 there.
  AttentionOptions t = attn(1, 2, 1, 228, 200, 64, true);
  t.tile_q = t.tile_kv = chip.split() ? 128 : 64;
  t.score_mod = [](const dsl::Expr& s, const sched::ScoreIndex& at) {
    return s - 0.03 * dsl::abs(dsl::cast(DType::f32, at.q - at.kv)) + dsl::cast(DType::f32, at.h) * 0.5;
  };
  SCOPED_TRACE("relative position, 128 x 128");
  expect_correct(t, chip);
}

INSTANTIATE_TEST_SUITE_P(Presets, AttentionModifier, testing::Values("ascend910", "ascend910b2", "ascend950pr"));

// A sliding window (causal, query i sees keys i - W + 1 .. i) on every preset against the Halide
// reference: windows across tile edges and on them, of one key, longer than the sequence; GQA, the
// logsumexp, partial tiles; with ALiBi. And the key tiles it reaches are all the kernel reads: a
// window of 256 keys over 4096 takes under half the causal kernel's cycles (7.2x fewer on the 910,
// 2.9x on the 910B2, 3.1x on the 950, whose cores each wait on their cross-core hand-offs).
class AttentionWindow : public testing::TestWithParam<const char*> {};

TEST_P(AttentionWindow, MatchesTheReferenceAndSkipsTheTilesOutside) {
  const ChipConfig chip = load_chip(GetParam());
  struct Case {
    int64_t seq, window, tile;
    bool lse, alibi;
  };
  for (const Case& c : {Case{200, 50, 32, true, false}, Case{200, 64, 32, false, false}, Case{150, 33, 48, false, true},
                        Case{100, 1, 16, true, false}, Case{130, 200, 32, false, false}, Case{240, 70, 64, true, false}}) {
    // (Some shapes, 4 heads or 300 keys with a window of 100, take Halide's JIT a minute to compile
    // the reference: LLVM's loop passes; these do not.)
    AttentionOptions o = attn(1, 2, 1, c.seq, c.seq, 64, true);
    o.window = c.window, o.tile_q = o.tile_kv = c.tile, o.lse = c.lse, o.alibi = c.alibi;
    SCOPED_TRACE(fmt::format("window {} over {} keys, tiles {}", c.window, c.seq, c.tile));
    expect_correct(o, chip);
  }
  auto cycles = [&](int64_t window) {
    AttentionOptions o = attn(1, 2, 2, 4096, 4096, 64, true);
    o.window = window, o.tile_q = o.tile_kv = 64;
    kernels::RunSettings s;
    s.sim.timing_only = true, s.reference = false;
    return kernels::compile_and_run(kernels::attention(o, chip).outputs(), chip, s).sim.report.cycles;
  };
  EXPECT_LT(2 * cycles(256), cycles(0));
}

INSTANTIATE_TEST_SUITE_P(Presets, AttentionWindow, testing::Values("ascend910", "ascend910b2", "ascend950pr"));

// Causal items are handed out query tile by query tile, the longest first, so each round of the
// cube cores costs about the same: at S = 2048 on the 950 (16 query tiles a head, 32 cube cores) a core took the same
// query tile in every round, one of them every last one, and the mask saved nothing (525,234
// cycles against 521,010 unmasked; a 950 probe). Timing-only.
// Tiles past the sequences are one tile of each whole sequence (as split() takes a factor beyond
// its loop): flash(80, 256) over 17 keys overflowed L0A before.
TEST(Attention, TilesPastTheSequencesAreClamped) {
  for (const char* name : {"ascend910", "ascend910b2"}) {
    const ChipConfig& chip = load_chip(name);
    sched::AttentionFuncs f = sched::attention_form({dsl::Input("q", DType::f16, {1, 1, 80, 64}),
                                                     dsl::Input("k", DType::f16, {1, 1, 17, 64}),
                                                     dsl::Input("v", DType::f16, {1, 1, 17, 64}), 0.125, false, DType::f16});
    f.o.flash(80, 256);
    kernels::KernelRun run = kernels::compile_and_run(f.o, chip, {.seed = 2});
    ASSERT_TRUE(run.checked) << name;
    EXPECT_TRUE(run.check.pass) << name << ": " << run.check.mismatches << " mismatches";
    EXPECT_TRUE(run.sim.report.clean()) << name;
  }
}

// An f32 O is written from the f32 statistics, but the cube multiplies P by V in Q's type: the
// default check compares it at that precision (it failed bf16 inputs at f32's 1e-4, with the
// kernel right within bf16's rounding of P).
TEST(Attention, AnF32OutputIsCheckedAtItsInputsPrecision) {
  for (DType in : {DType::f16, DType::bf16})
    for (bool causal : {false, true}) {
      const ChipConfig& chip = load_chip("ascend910b2");
      sched::AttentionFuncs f = sched::attention_form({dsl::Input("q", in, {1, 2, 64, 64}), dsl::Input("k", in, {1, 2, 64, 64}),
                                                       dsl::Input("v", in, {1, 2, 64, 64}), 0.125, causal, DType::f32});
      f.o.flash(64, 64);
      kernels::KernelRun run = kernels::compile_and_run(f.o, chip, {.seed = 7});
      SCOPED_TRACE(fmt::format("{} causal {}", dtype_name(in), causal));
      ASSERT_TRUE(run.checked);
      EXPECT_EQ(run.check.rtol, in == DType::bf16 ? 0x1p-6 : 1e-2);
      EXPECT_TRUE(run.check.pass) << run.check.mismatches << " mismatches, max abs " << run.check.max_abs;
      EXPECT_TRUE(run.sim.report.clean());
    }
}

TEST(Attention, CausalWorkIsSpreadOverTheCubeCores) {
  const ChipConfig chip = load_chip("ascend950pr");
  auto run = [&](bool causal) {
    kernels::RunSettings s;
    s.sim.timing_only = true, s.reference = false;
    return kernels::compile_and_run(kernels::attention(attn(2, 16, 16, 2048, 2048, 64, causal), chip).outputs(), chip, s)
        .sim.report;
  };
  const Report masked = run(true), whole = run(false);
  uint64_t least = UINT64_MAX, most = 0;
  for (const CoreStats& c : masked.per_core)
    if (c.kind == CoreKind::Aic) least = std::min(least, c.cycles), most = std::max(most, c.cycles);
  EXPECT_LT(double(most), 1.25 * double(least)) << "cube cores from " << least << " to " << most << " cycles";
  EXPECT_LT(double(masked.cycles), 0.7 * double(whole.cycles)) << "causal " << masked.cycles << ", unmasked " << whole.cycles;
}

// Where the cores start together (the 910), a causal kernel's rounds go in snake order: every
// query tile once, whether the last, partial round runs backwards (40 items on 32 cores) or
// forwards (72), and the cores' work even (64 query tiles on 32 cores: 65 key tiles each, where
// the same order every round gave core 0 96 and core 31 34).
TEST(Attention, CausalRoundsInSnakeOrderCoverEveryTileOnce) {
  const ChipConfig chip = load_chip("ascend910");
  ASSERT_EQ(chip.timing.core_start_cycles, 0);
  for (int64_t seq : {80, 144}) {
    AttentionOptions o = attn(1, 8, 8, seq, seq, 64, true);
    o.tile_q = o.tile_kv = 16;
    expect_correct(o, chip);
  }
  AttentionOptions o = attn(1, 1, 1, 4096, 4096, 64, true);
  o.tile_q = o.tile_kv = 64;
  kernels::RunSettings s;
  s.sim.timing_only = true, s.reference = false;
  const Report r = kernels::compile_and_run(kernels::attention(o, chip).outputs(), chip, s).sim.report;
  uint64_t least = UINT64_MAX, most = 0;
  for (const CoreStats& c : r.per_core) least = std::min(least, c.cycles), most = std::max(most, c.cycles);
  EXPECT_LT(double(most), 1.1 * double(least)) << "cores from " << least << " to " << most << " cycles";
}

// The reference the kernel is checked against is attention: the Funcs on the host against loops
// written here (double precision, softmax over the keys a query sees).
TEST(Attention, TheReferenceIsAttention) {
  AttentionOptions o = attn(1, 4, 2, 5, 7, 16, true);
  kernels::Attention a = kernels::attention(o, test::chip());
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-2, 2);
  auto tensor = [&](const dsl::Input& in) {
    int64_t n = 1;
    for (int64_t e : in.shape()) n *= e;
    std::vector<float> values(static_cast<size_t>(n));
    for (float& x : values) x = f16_to_f32(f32_to_f16(u(rng)));
    return values;
  };
  std::vector<float> q = tensor(a.q), k = tensor(a.k), v = tensor(a.v);
  auto bytes = [](const std::vector<float>& x) {
    std::vector<uint8_t> b(x.size() * 2);
    for (size_t i = 0; i < x.size(); ++i) {
      uint16_t h = f32_to_f16(x[i]);
      std::memcpy(&b[i * 2], &h, 2);
    }
    return b;
  };
  const std::vector<uint8_t> qb = bytes(q), kb = bytes(k), vb = bytes(v);
  const std::vector<uint8_t> got = dsl::run_on_host(a.funcs.o, {{"q", &qb}, {"k", &kb}, {"v", &vb}}).data;
  const std::vector<uint8_t> lse = dsl::run_on_host(a.funcs.lse, {{"q", &qb}, {"k", &kb}, {"v", &vb}}).data;
  const int64_t H = 4, G = 2, S = 5, T = 7, D = 16;
  for (int64_t h = 0; h < H; ++h)
    for (int64_t i = 0; i < S; ++i) {
      std::vector<double> p(T, 0.0);
      double mx = -1e300, sum = 0;
      for (int64_t j = 0; j <= std::min(i, T - 1); ++j) {
        double s = 0;
        for (int64_t r = 0; r < D; ++r) s += double(q[size_t((h * S + i) * D + r)]) * k[size_t(((h / G) * T + j) * D + r)];
        p[size_t(j)] = s / 4.0;  // 1 / sqrt(16)
        mx = std::max(mx, p[size_t(j)]);
      }
      for (int64_t j = 0; j <= std::min(i, T - 1); ++j) sum += p[size_t(j)] = std::exp(p[size_t(j)] - mx);
      float lse_got;
      std::memcpy(&lse_got, &lse[size_t((h * S + i) * 4)], 4);
      EXPECT_NEAR(lse_got, mx + std::log(sum), 1e-5 + 1e-5 * std::abs(mx)) << "lse h " << h << " i " << i;
      for (int64_t d = 0; d < D; ++d) {
        double o_ = 0;
        for (int64_t j = 0; j <= std::min(i, T - 1); ++j) o_ += p[size_t(j)] * v[size_t(((h / G) * T + j) * D + d)];
        uint16_t h16;
        std::memcpy(&h16, &got[size_t(((h * S + i) * D + d) * 2)], 2);
        EXPECT_NEAR(f16_to_f32(h16), o_ / sum, 2e-3 + 2e-3 * std::abs(o_ / sum)) << "h " << h << " i " << i << " d " << d;
      }
    }
}

// Deleting any synchronisation the generated kernel executes is reported: two key tiles, a
// partial one, the causal diagonal, the logsumexp output, an additive mask.
Program small_causal(const ChipConfig& chip, int64_t preload = 0) {
  AttentionOptions o = attn(1, 1, 1, 32, 40, 64, true);
  o.tile_q = o.tile_kv = 16;
  o.lse = true;
  o.mask = {32, 40};
  o.preload = preload;
  kernels::Attention a = kernels::attention(o, chip);
  return parse_program(print_program(codegen::compile(a.outputs(), chip).program));
}

TEST(Attention, DeletingAnyExecutedSynchronisationIsReported) {
  test::expect_every_sync_needed(small_causal(test::chip()), test::chip(), "generated flash attention", 10);
}

// The split chips' kernel: deleting any synchronisation is reported. On the 910B2 the hand-offs
// go through GM; on the 950 by FixPipe into UB and UB -> L1, where the vector cores scale S in
// place in one UB slot while the previous tile's P is read from the other (the sync pass tells
// the slots apart by the hand-off counter: codegen/slot_values.h), so no barrier orders the two.
// At the default preload (4: more than the two key tiles) and at 1 and 2, where the cube reuses
// each slot within a query tile.
class AttentionSplit : public testing::TestWithParam<std::tuple<const char*, int64_t>> {};

TEST_P(AttentionSplit, DeletingAnyFlagIsReported) {
  const auto [name, preload] = GetParam();
  const ChipConfig chip = load_chip(name);
  const Program p = small_causal(chip, preload);
  auto run = [&](const Program& program) {
    GlobalMemory gm = GlobalMemory::for_program(program);
    gm.fill_inputs(9);
    return simulate(chip, program, gm).report;
  };
  ASSERT_TRUE(run(p).clean());
  test::Mutations m = test::delete_each_sync(p, run);
  EXPECT_GE(m.mutants, 100);
  EXPECT_GT(m.cross, 0);
  for (const std::string& s : m.survivors) ADD_FAILURE() << s;
  std::printf("generated flash attention on %s, preload %lld: %d of %d executed deletions reported\n", name, (long long)preload,
              m.reported, m.mutants);
}

INSTANTIATE_TEST_SUITE_P(Presets, AttentionSplit,
                         testing::Combine(testing::Values("ascend910b2", "ascend950pr"), testing::Values(0, 1, 2)));

// The split nest at depths of preload below, at and beyond the key tiles of a query tile (5 key
// tiles of 16; causal: 1 to 3), against the reference, checker-clean.
class AttentionPreload : public testing::TestWithParam<const char*> {};

TEST_P(AttentionPreload, EveryDepthMatchesTheReference) {
  const ChipConfig chip = load_chip(GetParam());
  for (int64_t preload : {1, 2, 3, 5, 8}) {
    AttentionOptions o = attn(1, 2, 1, 40, 72, 64, preload % 2 == 1);
    o.tile_q = o.tile_kv = 16;
    o.preload = preload;
    o.lse = preload == 2;
    SCOPED_TRACE(fmt::format("preload {}", preload));
    expect_correct(o, chip);
  }
}

INSTANTIATE_TEST_SUITE_P(Presets, AttentionPreload, testing::Values("ascend910b2", "ascend950pr"));

// The preload sets the S and P hand-off slots: preload + 1 of each per group in GM (910B2), P's
// in the cube core's L1 (950); the kernel reports the preload it took (the chip's own: 4).
TEST(AttentionPreload, SetsTheHandOffSlots) {
  for (int64_t preload : {0, 1, 6}) {
    const ChipConfig chip = load_chip("ascend910b2");
    AttentionOptions o = attn(1, 2, 1, 100, 150, 64);
    o.preload = preload;
    kernels::Attention a = kernels::attention(o, chip);
    EXPECT_EQ(a.preload, preload ? preload : 4);
    const Program p = codegen::compile(a.funcs.o, chip).program;
    for (const TensorDecl& t : p.tensors)
      if (t.role == TensorRole::Workspace && t.name != "attention_pv") {
        ASSERT_EQ(t.shape.size(), 4u) << t.name;
        EXPECT_EQ(t.shape[1], a.preload + 1) << t.name << " at preload " << preload;
      }
  }
  const ChipConfig chip = load_chip("ascend950pr");
  AttentionOptions o = attn(1, 2, 1, 100, 150, 64);
  o.tile_q = o.tile_kv = 64, o.preload = 6;
  const codegen::Kernel k = codegen::lower_stages(sched::stage_graph(sched::plan_attention(kernels::attention(o, chip).funcs.o, chip)), chip);
  bool found = false;
  for (const codegen::Buffer& b : k.buffers)
    if (b.name == "P.l1") {
      found = true;
      EXPECT_EQ(b.bytes, 7 * 64 * 64 * 2);  // 7 slots of 64 x 64 f16
    }
  EXPECT_TRUE(found);
}

// The 950 hands S, P and P V over on chip: no GM workspace, the FixPipe into the vector cores' UB
// and their UB -> L1; the 910B2, which has neither path, through its three workspaces.
TEST(Attention, The950HandsOverOnChip) {
  for (const char* name : {"ascend950pr", "ascend910b2"}) {
    const ChipConfig chip = load_chip(name);
    const Program p = codegen::compile(kernels::attention(attn(1, 2, 1, 100, 150, 64), chip).funcs.o, chip).program;
    int workspaces = 0;
    for (const TensorDecl& t : p.tensors) workspaces += t.role == TensorRole::Workspace;
    const std::string text = print_program(p);
    const bool direct = std::string(name) == "ascend950pr";
    EXPECT_EQ(workspaces, direct ? 0 : 3) << name;
    EXPECT_EQ(text.find("copy_ub_l1") != std::string::npos, direct) << name;
    EXPECT_EQ(text.find(", sub=1") != std::string::npos, direct) << name;
  }
}

}  // namespace
}  // namespace cubekit
