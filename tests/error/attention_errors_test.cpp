// User errors of flash attention (kernels/attention.h, sched::plan_attention): one test per error,
// checking its message.
#include "codegen/lower.h"
#include "error_test_util.h"
#include "kernels/attention.h"
#include "kernels/tuned.h"

namespace cubekit::test {
namespace {

const ChipConfig& attention_chip(const char* name = "ascend910") { return preset(name); }

kernels::AttentionOptions bert() {
  kernels::AttentionOptions o;
  o.batch = 1, o.heads = 2, o.seq_q = 64, o.dim = 64;
  return o;
}

void expect_attention_error(const kernels::AttentionOptions& o, const std::vector<std::string>& want, const char* chip = "ascend910") {
  expect_user_error([&] { codegen::compile(kernels::attention(o, attention_chip(chip)).funcs.o, attention_chip(chip)); }, want);
}

// The form with Q, K, V of these shapes, scheduled flash(64, 64).
dsl::Func form(std::vector<int64_t> q, std::vector<int64_t> k, std::vector<int64_t> v, DType t = DType::f16) {
  sched::AttentionFuncs f = sched::attention_form({dsl::Input("q", t, q), dsl::Input("k", t, k), dsl::Input("v", t, v), 0.125, false, t});
  f.o.flash(64, 64);
  return f.o;
}

void expect_form_error(const dsl::Func& f, const std::vector<std::string>& want) {
  expect_user_error([&] { codegen::compile(f, attention_chip()); }, want);
}

TEST(AttentionErrors, HeadDimTheCubeCannotTile) {
  auto o = bert();
  o.dim = 72;
  expect_attention_error(o, {"attention: head dim 72: the cube tiles a head in 16-element fractals", "a multiple of 16 up to 128"});
}

TEST(AttentionErrors, HeadDimTooBig) {
  auto o = bert();
  o.dim = 256;
  expect_attention_error(o, {"attention: head dim 256", "a multiple of 16 up to 128"});
}

TEST(AttentionErrors, KvHeadsNotDividingHeads) {
  auto o = bert();
  o.heads = 6, o.kv_heads = 4;
  expect_attention_error(o, {"attention: 6 query heads do not divide into groups of the 4 K/V heads",
                             "the K/V heads to divide the query heads"});
}

TEST(AttentionErrors, KAndVOfDifferentShapes) {
  expect_form_error(form({1, 2, 64, 64}, {1, 2, 64, 64}, {1, 2, 32, 64}),
                    {"attention: K (k) is [1, 2, 64, 64] and V (v) is [1, 2, 32, 64]; they must have the same shape"});
}

TEST(AttentionErrors, BatchesDiffer) {
  expect_form_error(form({2, 2, 64, 64}, {1, 2, 64, 64}, {1, 2, 64, 64}), {"attention: Q has batch 2 and K 1; they must be the same"});
}

TEST(AttentionErrors, NotFourDimensional) {
  dsl::Input q("q", DType::f16, {64, 64}), k("k", DType::f16, {64, 64}), v("v", DType::f16, {64, 64});
  dsl::Var i("i"), d("d");
  dsl::RDom t(0, 64, "t");
  dsl::Func o("o");
  o(i, d) = dsl::cast(DType::f16, dsl::sum(dsl::cast(DType::f32, q(i, t)) * dsl::cast(DType::f32, k(t, d)) * dsl::cast(DType::f32, v(t, d))));
  o.flash(64, 64);
  expect_form_error(o, {"o: q is 2-dimensional; flash attention's Q, K and V are (batch, heads, sequence, head dim)"});
}

TEST(AttentionErrors, NotTheForm) {
  // softmax without its max subtracted: not what flash() computes.
  dsl::Input q("q", DType::f16, {1, 1, 64, 64}), k("k", DType::f16, {1, 1, 64, 64}), v("v", DType::f16, {1, 1, 64, 64});
  dsl::Var b("b"), h("h"), i("i"), j("j"), d("d");
  dsl::RDom r(0, 64, "r"), t(0, 64, "t");
  dsl::Func s("s"), e("e"), l("l"), o("o");
  s(b, h, i, j) = dsl::sum(dsl::cast(DType::f32, q(b, h, i, r)) * dsl::cast(DType::f32, k(b, h, j, r))) * 0.125;
  e(b, h, i, j) = dsl::exp(s(b, h, i, j));
  l(b, h, i) = dsl::sum(e(b, h, i, t));
  o(b, h, i, d) = dsl::cast(DType::f16, dsl::sum(e(b, h, i, t) * dsl::cast(DType::f32, v(b, h, t, d))) / l(b, h, i));
  o.flash(64, 64);
  expect_form_error(o, {"o.flash(64, 64): o is not attention in the form flash() computes", "M = maximum_t S, E = exp(S - M)"});
}

// The form written out by hand, `dim` elements a head and `keys` keys, Q, K and V each read as
// read(x, b, h, position, inner).
using Read = std::function<dsl::Expr(const dsl::Input&, const dsl::Var&, const dsl::Var&, const dsl::Expr&, const dsl::Expr&)>;
dsl::Func written_attention(const dsl::Input& q, const dsl::Input& k, const dsl::Input& v, int64_t dim, int64_t keys,
                            const Read& read) {
  dsl::Var b("b"), h("h"), i("i"), j("j"), d("d");
  dsl::RDom r(0, dim, "r"), t(0, keys, "t");
  dsl::Func s("s"), m("m"), e("e"), l("l"), o("o");
  s(b, h, i, j) = dsl::sum(dsl::cast(DType::f32, read(q, b, h, i, r)) * dsl::cast(DType::f32, read(k, b, h, j, r))) * 0.125;
  m(b, h, i) = dsl::maximum(s(b, h, i, t));
  e(b, h, i, j) = dsl::exp(s(b, h, i, j) - m(b, h, i));
  l(b, h, i) = dsl::sum(e(b, h, i, t));
  o(b, h, i, d) = dsl::cast(DType::f16, dsl::sum(e(b, h, i, t) * dsl::cast(DType::f32, read(v, b, h, t, d))) / l(b, h, i));
  o.flash(16, 16);
  return o;
}

// Q, K and V in (batch, sequence, heads, dim): the shape checks said "40 query heads do not divide
// into groups of the 56 K/V heads", the sequence lengths taken for heads.
TEST(AttentionErrors, SequenceNotTheThirdDimension) {
  dsl::Input q("q", DType::f16, {1, 40, 2, 32}), k("k", DType::f16, {1, 56, 2, 32}), v("v", DType::f16, {1, 56, 2, 32});
  dsl::Func o = written_attention(q, k, v, 32, 56, [](const dsl::Input& x, const dsl::Var& b, const dsl::Var& h,
                                                      const dsl::Expr& at, const dsl::Expr& in) { return x(b, at, h, in); });
  expect_form_error(o, {"o: q is read as q(b, i, h, r); flash attention reads Q, K and V as (batch, heads, sequence, head "
                        "dim), the sequence (i) third: give q in that layout (numpy: x.transpose(0, 2, 1, 3) from (batch, "
                        "sequence, heads, dim))"});
}

// K and V heads interleaved (query head h reads K/V head h % kv_heads, spelled as the DSL's advice
// for %): met only the form's message, which shows h / g but not that the head was the difference.
TEST(AttentionErrors, KvHeadsNotTheQueryHeadsGroups) {
  dsl::Input q("q", DType::f16, {1, 4, 32, 64}), k("k", DType::f16, {1, 2, 32, 64}), v("v", DType::f16, {1, 2, 32, 64});
  dsl::Func o = written_attention(q, k, v, 64, 32, [&](const dsl::Input& x, const dsl::Var& b, const dsl::Var& h,
                                                       const dsl::Expr& at, const dsl::Expr& in) {
    return x(b, x.name() == "q" ? dsl::Expr(h) : dsl::Expr(h) - (dsl::Expr(h) / 2) * 2, at, in);
  });
  expect_form_error(o, {"o: k is read at head (h - ((h / 2) * 2)) for query head h; flash() reads K and V at head h / 2 (4 "
                        "query heads, 2 K/V heads: query heads c*2 .. c*2 + 1 share K/V head c, as torch's enable_gqa)",
                        "order Q's heads on the host so that each K/V head's query heads are together"});
}

TEST(AttentionErrors, NoScaledScore) {
  dsl::Input q("q", DType::f16, {1, 1, 64, 64}), k("k", DType::f16, {1, 1, 64, 64}), v("v", DType::f16, {1, 1, 64, 64});
  dsl::Var b("b"), h("h"), i("i"), d("d");
  dsl::RDom t(0, 64, "t");
  dsl::Func o("o");
  o(b, h, i, d) = dsl::cast(DType::f16, dsl::sum(dsl::cast(DType::f32, q(b, h, i, t)) * dsl::cast(DType::f32, k(b, h, t, d)) *
                                                 dsl::cast(DType::f32, v(b, h, t, d))));
  o.flash(64, 64);
  expect_form_error(o, {"o.flash(64, 64): no scaled score (sum(..) * scale) in o"});
}

TEST(AttentionErrors, TwoInputsOnly) {
  dsl::Input q("q", DType::f16, {1, 1, 64, 64}), k("k", DType::f16, {1, 1, 64, 64});
  dsl::Var b("b"), h("h"), i("i"), d("d");
  dsl::RDom t(0, 64, "t");
  dsl::Func o("o");
  o(b, h, i, d) = dsl::cast(DType::f16, dsl::sum(dsl::cast(DType::f32, q(b, h, i, t)) * dsl::cast(DType::f32, k(b, h, t, d))));
  o.flash(64, 64);
  expect_form_error(o, {"o.flash(64, 64): flash attention reads three inputs, Q, K and V, and optionally an additive mask; o reads 2"});
}

// The form compiled without flash(): the vector path cannot read its products; it says whose they are.
TEST(AttentionErrors, FormWithoutFlash) {
  sched::AttentionFuncs f = sched::attention_form({dsl::Input("q", DType::f16, {1, 1, 64, 64}),
                                                   dsl::Input("k", DType::f16, {1, 1, 64, 64}),
                                                   dsl::Input("v", DType::f16, {1, 1, 64, 64}), 0.125, false, DType::f16});
  expect_form_error(f.o, {"is indexed in a way the vector path cannot read",
                          "A sum of products of inputs is the cube's: schedule it with cube() (a matmul or a convolution), "
                          "or attention's output with flash(tile_q, tile_kv)"});
}

// The same with fewer keys than the head dim: the reduction's message said nothing of flash().
TEST(AttentionErrors, FormWithoutFlashOverFewerKeys) {
  sched::AttentionFuncs f = sched::attention_form({dsl::Input("q", DType::f16, {1, 1, 64, 64}),
                                                   dsl::Input("k", DType::f16, {1, 1, 32, 64}),
                                                   dsl::Input("v", DType::f16, {1, 1, 32, 64}), 0.125, false, DType::f16});
  expect_form_error(f.o, {"the vector path reduces along the last dimension only",
                          "Attention's output (a sum over the keys of the softmax's weights times V) is scheduled with "
                          "flash(tile_q, tile_kv)"});
}

// O of an integer type: the vector unit has no conversion from f32 to it (an internal error).
TEST(AttentionErrors, OutputOfAnotherType) {
  for (DType out : {DType::s8, DType::u8, DType::s16}) {
    sched::AttentionFuncs f = sched::attention_form(
        {dsl::Input("q", DType::f16, {1, 1, 64, 64}), dsl::Input("k", DType::f16, {1, 1, 64, 64}),
         dsl::Input("v", DType::f16, {1, 1, 64, 64}), 0.125, false, out});
    f.o.flash(64, 64);
    expect_form_error(f.o, {fmt::format("attention: O is {}; flash attention writes f32, f16 or bf16", dtype_name(out)),
                            "Write attention in one of those and convert it in a Func that reads it"});
  }
}

TEST(AttentionErrors, InputsOfOtherTypes) {
  expect_form_error(form({1, 1, 64, 64}, {1, 1, 64, 64}, {1, 1, 64, 64}, DType::f32),
                    {"attention: q is f32; flash attention's inputs are f16 or bf16"});
}

TEST(AttentionErrors, Bf16OnTheCoupledCube) {
  auto o = bert();
  o.dtype = DType::bf16;
  expect_attention_error(o, {"attention: the cube of ascend910 multiplies f16", "but Q, K and V are bf16"});
}

TEST(AttentionErrors, TilesTooBigForAVectorCore) {
  auto o = bert();
  o.dim = 128, o.tile_q = 256, o.tile_kv = 128, o.seq_q = 512;  // tiles within the sequence (past it, one tile of it)
  expect_attention_error(o, {"attention.flash(256, 128): tiles of 256 queries x 128 keys with head dim 128 need",
                             "bytes of UB and ascend910b2 has 196608; use smaller tiles"}, "ascend910b2");
}

TEST(AttentionErrors, TileNotAMultipleOf16) {
  auto o = bert();
  o.tile_q = 40, o.tile_kv = 64;
  expect_attention_error(o, {"attention.flash(40, 64): tile_q 40 must be a multiple of 16 from 16 to 256"});
}

TEST(AttentionErrors, CausalTilesDiffer) {
  auto o = bert();
  o.causal = true, o.tile_q = 32, o.tile_kv = 64;
  expect_attention_error(o, {"attention.flash(32, 64): a causal mask needs tile_q == tile_kv", "got 32 and 64"});
}

TEST(AttentionErrors, TilesTooBigForUB) {
  auto o = bert();
  o.dim = 128, o.tile_q = 256, o.tile_kv = 256, o.seq_q = 512;
  expect_attention_error(o, {"attention.flash(256, 256): tiles of 256 queries x 256 keys with head dim 128 need",
                             "bytes of UB and ascend910 has 262144; use smaller tiles"});
}

TEST(AttentionErrors, PreloadOnTheCoupledCore) {
  auto o = bert();
  o.tile_q = o.tile_kv = 64, o.preload = 2;
  expect_attention_error(o, {"attention.flash(64, 64, 2): preload 2: ascend910's coupled core computes the scores one key tile "
                             "ahead of its softmax", "Use preload 1, or leave it out"});
}

TEST(AttentionErrors, PreloadBeyondTheCrossCoreCounter) {
  auto o = bert();
  o.tile_q = o.tile_kv = 64, o.preload = 16;
  expect_attention_error(o, {"attention.flash(64, 64, 16): preload 16: the cube core hands the scores over through preload + 1 "
                             "slots", "its counter holds at most 16; use a preload from 1 to 15"}, "ascend910b2");
}

TEST(AttentionErrors, NegativePreload) {
  auto o = bert();
  o.tile_q = o.tile_kv = 64, o.preload = -3;
  expect_attention_error(o, {"attention.flash(64, 64, -3): preload -3 is negative"}, "ascend910b2");
}

TEST(AttentionErrors, PreloadSlotsTooManyForL1) {
  // On the 950 P's preload + 1 slots sit in the cube core's L1: 16 of 128 x 128 f16 are 512 KB.
  auto o = bert();
  o.dim = 128, o.seq_q = 256, o.tile_q = o.tile_kv = 128, o.preload = 15;
  expect_attention_error(o, {"attention.flash(128, 128, 15): tiles of 128 queries x 128 keys with head dim 128 need",
                             "bytes of L1 and ascend950pr has 524288; use smaller tiles or a smaller preload (L1:",
                             "P.l1 524288 x 1)"}, "ascend950pr");
}

// Scores modified by what flash() cannot evaluate on a tile: integer division of an index, index
// arithmetic beyond f32's integers, another input.
namespace {
// The form written out by hand, its scores S = dot * 0.125 + bias(i, j).
dsl::Func biased_attention(const std::function<dsl::Expr(const dsl::Var&, const dsl::Var&)>& bias) {
  dsl::Input q("q", DType::f16, {1, 1, 64, 64}), k("k", DType::f16, {1, 1, 64, 64}), v("v", DType::f16, {1, 1, 64, 64});
  dsl::Var b("b"), h("h"), i("i"), j("j"), d("d");
  dsl::RDom r(0, 64, "r"), t(0, 64, "t");
  dsl::Func s("s"), m("m"), e("e"), l("l"), o("o");
  dsl::Expr dot = dsl::sum(dsl::cast(DType::f32, q(b, h, i, r)) * dsl::cast(DType::f32, k(b, h, j, r)));
  s(b, h, i, j) = dot * 0.125 + bias(i, j);
  m(b, h, i) = dsl::maximum(s(b, h, i, t));
  e(b, h, i, j) = dsl::exp(s(b, h, i, j) - m(b, h, i));
  l(b, h, i) = dsl::sum(e(b, h, i, t));
  o(b, h, i, d) = dsl::cast(DType::f16, dsl::sum(e(b, h, i, t) * dsl::cast(DType::f32, v(b, h, t, d))) / l(b, h, i));
  o.flash(64, 64);
  return o;
}
}  // namespace

TEST(AttentionErrors, ScoreModifierDividesAnIndex) {
  dsl::Func o = biased_attention([](const dsl::Var& i, const dsl::Var& j) { return dsl::cast(DType::f32, (dsl::Expr(i) - j) / 2); });
  expect_form_error(o, {"o.flash(64, 64): s: the scores' modifier computes `((i - j) / 2)` on integers; flash() computes the "
                        "indices' arithmetic in f32, where / would not be an integer's: cast the indices to f32 first"});
}

TEST(AttentionErrors, ScoreModifierIndexArithmeticBeyondF32) {
  dsl::Func o = biased_attention([](const dsl::Var& i, const dsl::Var& j) { return dsl::cast(DType::f32, dsl::Expr(i) * 1000000 - j); });
  expect_form_error(o, {"o.flash(64, 64): s: the scores' modifier computes `(i * 1000000)`, whose values reach 63000000; "
                        "flash() computes the indices' arithmetic in f32, exact up to 2^24 = 16777216"});
}

TEST(AttentionErrors, ModifiedScoresWithoutTheirFourIndices) {
  // The scores of one batch as S(h, i, j), modified: their indices are not the form's b, h, i, j.
  dsl::Input q("q", DType::f16, {1, 1, 64, 64}), k("k", DType::f16, {1, 1, 64, 64}), v("v", DType::f16, {1, 1, 64, 64});
  dsl::Var b("b"), h("h"), i("i"), j("j"), d("d");
  dsl::RDom r(0, 64, "r"), t(0, 64, "t");
  dsl::Func s("s"), m("m"), e("e"), l("l"), o("o");
  s(h, i, j) = dsl::sum(dsl::cast(DType::f32, q(0, h, i, r)) * dsl::cast(DType::f32, k(0, h, j, r))) * 0.125 + dsl::cast(DType::f32, dsl::Expr(j));
  m(b, h, i) = dsl::maximum(s(h, i, t));
  e(b, h, i, j) = dsl::exp(s(h, i, j) - m(b, h, i));
  l(b, h, i) = dsl::sum(e(b, h, i, t));
  o(b, h, i, d) = dsl::cast(DType::f16, dsl::sum(e(b, h, i, t) * dsl::cast(DType::f32, v(b, h, t, d))) / l(b, h, i));
  o.flash(64, 64);
  expect_form_error(o, {"o.flash(64, 64): s: s has 3 arguments; the scores are S(b, h, i, j). The form is"});
}

TEST(AttentionErrors, ScoreModifierReadsAnotherInput) {
  dsl::Input q("q", DType::f16, {1, 1, 64, 64}), k("k", DType::f16, {1, 1, 64, 64}), v("v", DType::f16, {1, 1, 64, 64});
  sched::AttentionForm form{q, k, v, 0.125, false, DType::f16};
  form.score_mod = [q](const dsl::Expr& x) { return x * dsl::cast(DType::f32, q(0, 0, 0, 0)); };
  sched::AttentionFuncs f = sched::attention_form(form);
  f.o.flash(64, 64);
  expect_form_error(f.o, {"attention.flash(64, 64): attention_scores: the scores' modifier reads the input q"});
}

TEST(AttentionErrors, WindowWithoutCausal) {
  auto o = bert();
  o.window = 64;
  expect_user_error([&] { kernels::attention(o, attention_chip()); },
                    {"attention: a sliding window of 64 keys covers the keys up to each query (i - window < j <= i), so it "
                     "needs causal attention: add --causal (Python: causal=True)"});
}

TEST(AttentionErrors, ScalePastF32) {
  auto o = bert();
  o.scale = 1e39;
  expect_user_error([&] { kernels::attention(o, attention_chip()); },
                    {"attention: scale 1e+39 is past f32's range (the scores are f32); give at most 3.4028234663852886e+38"});
}

TEST(AttentionErrors, SoftcapBelowF32) {
  auto o = bert();
  o.softcap = 1e-39;
  expect_user_error([&] { kernels::attention(o, attention_chip()); },
                    {"attention: softcap 1e-39 makes c tanh(s / c) overflow f32 (the kernel computes 2 / c)"});
}

// The f32 tanh lost the scores under a cap of 1e6 and more, in the kernel and the reference alike.
TEST(AttentionErrors, SoftcapTooLargeForF32) {
  auto o = bert();
  o.softcap = 1e6;
  expect_user_error([&] { kernels::attention(o, attention_chip()); },
                    {"attention: softcap 1000000 is past 10000: c tanh(s / c) is computed in f32 as c - 2c / (exp(2s / c) + "
                     "1), which loses about 6e-8 c of each score", "leave it out"});
}

TEST(AttentionErrors, NegativeWindow) {
  auto o = bert();
  o.causal = true, o.window = -4;
  expect_user_error([&] { kernels::attention(o, attention_chip()); }, {"attention: a sliding window of -4 keys; it must be positive (the keys a query sees), or 0 for none (--window)"});
}

TEST(AttentionErrors, WindowLeavesQueriesNoKey) {
  auto o = bert();
  o.causal = true, o.seq_q = 300, o.seq_kv = 120, o.window = 33;
  expect_user_error([&] { kernels::attention(o, attention_chip()); },
                    {"attention: a sliding window of 33 keys over 120 keys leaves queries 152..299 with no key to attend to "
                     "(query i sees keys i - 32 .. i); give at most 152 queries, a window of at least 181 keys, or more keys"});
}

TEST(AttentionErrors, FormWindowWithoutCausal) {
  dsl::Input q("q", DType::f16, {1, 1, 64, 64}), k("k", DType::f16, {1, 1, 64, 64}), v("v", DType::f16, {1, 1, 64, 64});
  sched::AttentionForm form{q, k, v, 0.125, false, DType::f16};
  form.window = 16;
  expect_user_error([&] { sched::attention_form(form); },
                    {"attention: a sliding window of 16 keys: the window is of the keys up to the query, i - window < j <= i; "
                     "give it with the causal mask and a positive size"});
}

TEST(AttentionErrors, NegativeSoftcap) {
  auto o = bert();
  o.softcap = -2;
  expect_user_error([&] { kernels::attention(o, attention_chip()); },
                    {"attention: softcap -2 must be a finite positive number (the cap of the scaled scores)"});
}

TEST(AttentionErrors, SoftcapAndScoreModBoth) {
  auto o = bert();
  o.softcap = 2;
  o.score_mod = [](const dsl::Expr& s) { return s * 0.5; };
  expect_user_error([&] { kernels::attention(o, attention_chip()); },
                    {"attention: both softcap 2 and a score_mod are given; give one"});
}

TEST(AttentionErrors, ScoreModThatIgnoresTheScore) {
  auto o = bert();
  o.score_mod = [](const dsl::Expr&) { return dsl::Expr(1.0); };
  expect_user_error([&] { kernels::attention(o, attention_chip()); },
                    {"attention: the score modifier's result does not read the score", "Return an expression of the score"});
}

TEST(AttentionErrors, TuningAScoreMod) {
  auto o = bert();
  o.score_mod = [](const dsl::Expr& s) { return s * 0.5; };
  expect_user_error([&] { kernels::problem_key(o); }, {"tune: attention with a score_mod cannot be tuned"});
}

TEST(AttentionErrors, AnotherScheduleCall) {
  dsl::Func f = form({1, 1, 64, 64}, {1, 1, 64, 64}, {1, 1, 64, 64});
  f.double_buffer();
  expect_form_error(f, {"attention.double_buffer(): a flash() schedule is all an attention Func takes"});
}

TEST(AttentionErrors, NegativeOptions) {
  auto o = bert();
  o.seq_q = 0;
  expect_user_error([&] { kernels::attention(o, attention_chip()); }, {"attention: the query length is 0; it must be positive (--seq-q; Python: q's L dim)"});
  o = bert();
  o.kv_heads = -1;
  expect_user_error([&] { kernels::attention(o, attention_chip()); }, {"attention: the number of K/V heads is -1; it must be positive, or 0 for as many as the query heads (--kv-heads)"});
}

TEST(AttentionErrors, ASecondOutputThatIsNotItsLogsumexp) {
  // M - log(L), not M + log(L), stored with the output.
  sched::AttentionFuncs f = sched::attention_form({dsl::Input("q", DType::f16, {1, 1, 64, 64}), dsl::Input("k", DType::f16, {1, 1, 64, 64}),
                                                   dsl::Input("v", DType::f16, {1, 1, 64, 64}), 0.125, false, DType::f16});
  f.o.flash(64, 64);
  dsl::Var b("b"), h("h"), i("i");
  dsl::Func wrong("wrong_lse");
  wrong(b, h, i) = f.m(b, h, i) - dsl::log(f.l(b, h, i));
  wrong.store_with(f.o);
  expect_user_error([&] { codegen::compile({f.o, wrong}, attention_chip()); },
                    {"wrong_lse.store_with(attention): the second output flash attention writes is its logsumexp",
                     "M(b, h, i) + log(L(b, h, i))", "wrong_lse is not it"});
}

TEST(AttentionErrors, AMaskThatDoesNotBroadcast) {
  auto o = bert();  // batch 1, 2 heads, 64 queries and keys
  o.mask = {64, 65};
  expect_attention_error(o, {"attention: the mask (input mask) of shape [1, 1, 64, 65] does not broadcast to (batch, heads, queries, keys) "
                             "= (1, 2, 64, 64): dim 3 is 65; give it extent 64 or 1"});
  o.mask = {3, 64, 64};
  expect_attention_error(o, {"the mask (input mask) of shape [1, 3, 64, 64] does not broadcast", "dim 1 is 3; give it extent 2 or 1"});
  o.mask = {2, 1, 64, 64};  // the batch is 1: "extent 1 or 1" said one thing twice
  expect_attention_error(o, {"the mask (input mask) of shape [2, 1, 64, 64] does not broadcast", "dim 0 is 2; give it extent 1"});
}

TEST(AttentionErrors, AMaskOverOneKey) {
  auto o = bert();
  o.mask = {64, 1};
  expect_attention_error(o, {"attention: the mask (input mask) of shape [1, 1, 64, 1] has one key", "(extent 64 in the last dim)"});
}

TEST(AttentionErrors, AMaskOfMoreThanFourDims) {
  auto o = bert();
  o.mask = {1, 1, 1, 64, 64};
  expect_user_error([&] { kernels::attention(o, attention_chip()); }, {"attention: --mask has 5 dims; it is at most (batch, heads"});
}

TEST(AttentionErrors, AMaskNotOfF32) {
  dsl::Input q("q", DType::f16, {1, 1, 64, 64}), k("k", DType::f16, {1, 1, 64, 64}), v("v", DType::f16, {1, 1, 64, 64});
  sched::AttentionForm form{q, k, v, 0.125, false, DType::f16};
  form.mask = dsl::Input("m", DType::f16, {1, 1, 64, 64});
  sched::AttentionFuncs f = sched::attention_form(form);
  f.o.flash(64, 64);
  expect_form_error(f.o, {"attention: the mask m is f16; flash attention adds an f32 mask to the f32 scores"});
}

}  // namespace
}  // namespace cubekit::test
