"""kernels.attention against numpy: torch's scaled_dot_product_attention meaning (GQA, causal, scale)."""
import numpy as np
import pytest

import cubekit as ck
from cubekit import kernels


def sdpa(q, k, v, causal=False, scale=None, softcap=None):
    """Attention in float64, written out: softmax over the keys each query sees."""
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    group = q.shape[-3] // k.shape[-3]
    k, v = np.repeat(k, group, axis=-3), np.repeat(v, group, axis=-3)
    s = q @ np.swapaxes(k, -1, -2) * (1 / np.sqrt(q.shape[-1]) if scale is None else scale)
    if softcap is not None:
        s = softcap * np.tanh(s / softcap)
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


@pytest.mark.parametrize("b,h,hk,L,S,E,causal", [(1, 2, 2, 64, 64, 64, False), (2, 4, 2, 37, 150, 64, False),
                                                 (1, 2, 1, 100, 100, 128, True), (1, 1, 1, 20, 33, 16, True)])
def test_matches_sdpa(rng, b, h, hk, L, S, E, causal):
    q = rng.standard_normal((b, h, L, E)).astype(np.float16)
    k = rng.standard_normal((b, hk, S, E)).astype(np.float16)
    v = rng.standard_normal((b, hk, S, E)).astype(np.float16)
    o, report = kernels.attention(q, k, v, causal=causal, raise_on_diagnostics=True)
    assert o.shape == q.shape and o.dtype == np.float16
    np.testing.assert_allclose(o.astype(np.float64), sdpa(q, k, v, causal), atol=2e-2, rtol=2e-2)
    assert report["cycles"] > 0


@pytest.mark.parametrize("chip", ["ascend910b2", "ascend950pr"])
def test_split_chips_match_sdpa(rng, chip):
    """The split chips' mixed kernel (cube and vector cores handing S, P and P V over through GM)."""
    q = rng.standard_normal((1, 4, 70, 64)).astype(np.float16)
    k, v = (rng.standard_normal((1, 2, 90, 64)).astype(np.float16) for _ in range(2))
    for causal in (False, True):
        kv = (k[..., :70, :], v[..., :70, :]) if causal else (k, v)
        o, report = kernels.attention(q, *kv, causal=causal, chip=chip, raise_on_diagnostics=True)
        np.testing.assert_allclose(o.astype(np.float64), sdpa(q, *kv, causal), atol=2e-2, rtol=2e-2)
        assert report["cycles"] > 0


@pytest.mark.parametrize("chip", ["ascend910b2", "ascend950pr"])
def test_bf16_as_uint16_bits_matches_sdpa(rng, chip):
    """bf16 q, k and v (numpy.uint16 bit patterns) give bf16 O and float32 logsumexp; the reference
    is the same attention in float64 of the bf16 values."""
    q = ck.bf16_from_float32(rng.standard_normal((2, 4, 50, 64)).astype(np.float32))
    k, v = (ck.bf16_from_float32(rng.standard_normal((2, 2, 70, 64)).astype(np.float32)) for _ in range(2))
    values = [ck.bf16_to_float32(x) for x in (q, k, v)]
    for causal in (False, True):
        o, lse, report = kernels.attention(q, k, v, causal=causal, chip=chip, return_lse=True, raise_on_diagnostics=True)
        assert o.dtype == np.uint16 and o.shape == q.shape and lse.dtype == np.float32
        # bf16 keeps 8 significant bits: O (|O| < 4) within a few of its last places.
        np.testing.assert_allclose(ck.bf16_to_float32(o), sdpa(*values, causal), atol=3e-2, rtol=2e-2)
        np.testing.assert_allclose(lse, logsumexp(values[0], values[1], causal), atol=1e-4, rtol=1e-5)


def test_bf16_errors_name_what_is_wrong(rng):
    q = ck.bf16_from_float32(np.ones((1, 2, 16, 16), np.float32))
    with pytest.raises(ck.Error, match="uint16, float16 and uint16; they must all be float16, or all bf16 as numpy.uint16"):
        kernels.attention(q, q.view(np.float16), q)
    with pytest.raises(ck.Error, match="the cube of ascend910 multiplies f16 or s8, but Q, K and V are bf16"):
        kernels.attention(q, q, q, chip="ascend910")
    o, _ = kernels.attention(q[:, :, :0], q, q, chip="ascend910b2")  # no queries: an empty bf16 result
    assert o.dtype == np.uint16 and o.shape == (1, 2, 0, 16)


@pytest.mark.parametrize("chip", ["ascend910b2", "ascend950pr"])
def test_preload_keeps_the_result(rng, chip):
    """The cube's preload (key tiles ahead of the softmax) changes when work happens, not what it makes."""
    q, k, v = (rng.standard_normal((1, 2, 40, 64)).astype(np.float16) for _ in range(3))
    want = sdpa(q, k, v, causal=True)
    for preload in (1, 2, 6):
        o, _ = kernels.attention(q, k, v, causal=True, chip=chip, tile_q=16, tile_kv=16, preload=preload,
                                      raise_on_diagnostics=True)
        np.testing.assert_allclose(o.astype(np.float64), want, atol=2e-2, rtol=2e-2)
    with pytest.raises(ck.Error, match="coupled core computes the scores one key tile ahead"):
        kernels.attention(q, k, v, chip="ascend910", preload=2)


@pytest.mark.parametrize("chip", ["ascend910", "ascend910b2", "ascend950pr"])
def test_softcap_caps_the_scaled_scores(rng, chip):
    """softcap=c: each scaled score s becomes c tanh(s / c) before the softmax (flash-attn's softcap)."""
    q, k, v = (3 * rng.standard_normal((1, 2, 50, 64)).astype(np.float16) for _ in range(3))
    o, _ = kernels.attention(q, k, v, causal=True, softcap=2.0, chip=chip, raise_on_diagnostics=True)
    want = sdpa(q, k, v, causal=True, softcap=2.0)
    np.testing.assert_allclose(o.astype(np.float64), want, atol=2e-2, rtol=2e-2)
    assert np.abs(want - sdpa(q, k, v, causal=True)).max() > 0.1  # the cap matters at these scores
    with pytest.raises(ck.Error, match="softcap must be positive"):
        kernels.attention(q, k, v, softcap=-1.0)


@pytest.mark.parametrize("chip", ["ascend910", "ascend910b2", "ascend950pr"])
def test_score_mod_is_any_elementwise_function_of_the_score(rng, chip):
    """score_mod (FlexAttention's, without indices): here a clamp that reads the score twice, times 2."""
    q, k, v = (3 * rng.standard_normal((1, 2, 40, 64)).astype(np.float16) for _ in range(3))
    o, _ = kernels.attention(q, k, v, causal=True, score_mod=lambda s: ck.select(s > 1.0, 1.0, s) * 2.0, chip=chip,
                             raise_on_diagnostics=True)
    qq, kk, vv = (x.astype(np.float64) for x in (q, k, v))
    s = qq @ np.swapaxes(kk, -1, -2) / 8.0
    s = np.where(np.tril(np.ones(s.shape[-2:], bool)), np.minimum(s, 1.0) * 2.0, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    np.testing.assert_allclose(o.astype(np.float64), (p / p.sum(-1, keepdims=True)) @ vv, atol=2e-2, rtol=2e-2)


@pytest.mark.parametrize("chip", ["ascend910", "ascend910b2", "ascend950pr"])
def test_score_mod_reads_the_indices(rng, chip):
    """FlexAttention's score_mod(score, b, h, q_idx, kv_idx): ALiBi's bias by head and distance, a batch
    term, and a window dropping the keys more than 30 behind, over many query and key tiles."""
    q = rng.standard_normal((2, 4, 70, 64)).astype(np.float16)
    k, v = (rng.standard_normal((2, 2, 150, 64)).astype(np.float16) for _ in range(2))

    def mod(s, b, h, q_idx, kv_idx):
        alibi = s - ck.cast("f32", h + 1) * 0.25 * ck.cast("f32", q_idx - kv_idx) + ck.cast("f32", b) * 0.5
        return ck.select(q_idx - kv_idx > 30, -1e30, alibi)

    o, _ = kernels.attention(q, k, v, score_mod=mod, chip=chip, tile_q=32, tile_kv=48, raise_on_diagnostics=True)
    qq, kk, vv = (x.astype(np.float64) for x in (q, k, v))
    kk, vv = np.repeat(kk, 2, axis=1), np.repeat(vv, 2, axis=1)
    s = qq @ np.swapaxes(kk, -1, -2) / 8.0
    b, h = np.arange(2)[:, None, None, None], np.arange(4)[None, :, None, None]
    dist = np.arange(70)[:, None] - np.arange(150)[None, :]
    s = np.where(dist > 30, -1e30, s - (h + 1) * 0.25 * dist + b * 0.5)
    p = np.exp(s - s.max(-1, keepdims=True))
    np.testing.assert_allclose(o.astype(np.float64), (p / p.sum(-1, keepdims=True)) @ vv, atol=2e-2, rtol=2e-2)


@pytest.mark.parametrize("chip", ["ascend910", "ascend910b2"])
def test_alibi_adds_each_heads_slope_times_the_distance(rng, chip):
    """alibi=True: each scaled score plus slope_h (j - i), slopes 2^(-8 (h + 1) / H) (Press et al.), causal:
    the kernel adds slope_h j, which the softmax makes the same."""
    q, k, v = (rng.standard_normal((1, 4, 96, 64)).astype(np.float16) for _ in range(3))
    o, _ = kernels.attention(q, k, v, causal=True, alibi=True, chip=chip, raise_on_diagnostics=True)
    qq, kk, vv = (x.astype(np.float64) for x in (q, k, v))
    slopes = 2.0 ** (-8.0 * (np.arange(4) + 1) / 4)
    s = qq @ np.swapaxes(kk, -1, -2) / 8.0 + slopes[:, None, None] * (np.arange(96)[None, :] - np.arange(96)[:, None])
    s = np.where(np.tril(np.ones((96, 96), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    want = (p / p.sum(-1, keepdims=True)) @ vv
    np.testing.assert_allclose(o.astype(np.float64), want, atol=2e-2, rtol=2e-2)
    assert np.abs(want - sdpa(q, k, v, causal=True)).max() > 0.1  # the bias matters here


@pytest.mark.parametrize("chip", ["ascend910", "ascend910b2"])
def test_window_sees_the_last_keys_only(rng, chip):
    """window=W with causal=True: query i sees keys i - W + 1 .. i (Mistral's sliding window)."""
    q, k, v = (rng.standard_normal((1, 2, 200, 64)).astype(np.float16) for _ in range(3))
    o, _ = kernels.attention(q, k, v, causal=True, window=50, tile_q=32, tile_kv=32, chip=chip, raise_on_diagnostics=True)
    qq, kk, vv = (x.astype(np.float64) for x in (q, k, v))
    dist = np.arange(200)[:, None] - np.arange(200)[None, :]
    s = np.where((dist >= 0) & (dist < 50), qq @ np.swapaxes(kk, -1, -2) / 8.0, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    np.testing.assert_allclose(o.astype(np.float64), (p / p.sum(-1, keepdims=True)) @ vv, atol=2e-2, rtol=2e-2)
    with pytest.raises(ck.Error, match="add --causal"):
        kernels.attention(q, k, v, window=50)
    # A window as long as the queries or longer (past 2^32 too, once cut to 32 bits) hides no key.
    whole, _ = kernels.attention(q, k, v, causal=True, tile_q=32, tile_kv=32, chip=chip)
    for w in (200, 2**32 + 3):
        o, _ = kernels.attention(q, k, v, causal=True, window=w, tile_q=32, tile_kv=32, chip=chip)
        np.testing.assert_array_equal(o, whole)


def test_score_mod_errors_name_what_is_wrong():
    x = np.ones((1, 1, 16, 16), np.float16)
    with pytest.raises(ck.Error, match="score_mod returned str; it must return an expression of the score"):
        kernels.attention(x, x, x, score_mod=lambda s: "s")
    with pytest.raises(ck.Error, match="score_mod takes 3 arguments; it takes the score alone, or as FlexAttention's"):
        kernels.attention(x, x, x, score_mod=lambda score, q_idx, kv_idx: score)
    with pytest.raises(ck.Error, match="score_mod returned an expression of f16; the scores are f32"):
        kernels.attention(x, x, x, score_mod=lambda s: ck.cast("f16", s))
    with pytest.raises(ck.Error, match="both softcap 2 and a score_mod are given"):
        kernels.attention(x, x, x, softcap=2.0, score_mod=lambda s: s)
    with pytest.raises(ck.Error, match="i is used on the right but is not one of attention_scores's variables"):
        i = ck.Var("i")  # not the scores' own i: a score_mod sees the score alone
        kernels.attention(x, x, x, score_mod=lambda s: s + ck.cast("f32", i))
    with pytest.raises(ck.Error, match="attention with a score_mod cannot be tuned"):
        ck.tune("attention", seq_q=16, dim=16, score_mod=lambda s: s, budget=2)
    with pytest.raises(ck.Error, match="the score modifier's result does not read the score"):
        kernels.attention(x, x, x, score_mod=lambda s: 0.5)


@pytest.mark.parametrize("chip", ["ascend910", "ascend910b2"])
def test_attention_written_in_the_dsl_and_scheduled_flash(rng, chip):
    """The pipeline a user reads, written with the DSL (its scores capped at 2 and biased by the distance
    |i - j| of query and key, the score's own variables), scheduled Func.flash."""
    B, H, L, S, E = 1, 2, 48, 80, 64
    q, k, v = ck.Input("q", "f16", [B, H, L, E]), ck.Input("k", "f16", [B, H, S, E]), ck.Input("v", "f16", [B, H, S, E])
    b, h, i, j, d = (ck.Var(n) for n in "bhijd")
    r, t = ck.RDom(0, E, "r"), ck.RDom(0, S, "t")
    s, m, e, l, o = (ck.Func(n) for n in ("s", "m", "e", "l", "o"))
    s[b, h, i, j] = (ck.min(ck.sum(ck.cast("f32", q[b, h, i, r]) * ck.cast("f32", k[b, h, j, r])) * 0.125, 2.0)
                     - ck.cast("f32", ck.abs(i - j)) * 0.05)
    m[b, h, i] = ck.maximum(s[b, h, i, t])
    e[b, h, i, j] = ck.exp(s[b, h, i, j] - m[b, h, i])
    l[b, h, i] = ck.sum(e[b, h, i, t])
    o[b, h, i, d] = ck.cast("f16", ck.sum(e[b, h, i, t] * ck.cast("f32", v[b, h, t, d])) / l[b, h, i])
    o.flash(16, 16, preload=2 if chip != "ascend910" else 0)
    qa, ka, va = (3 * rng.standard_normal(x.shape).astype(np.float16) for x in (q, k, v))
    out, report = o.run({"q": qa, "k": ka, "v": va}, chip=chip, raise_on_diagnostics=True)
    sc = np.minimum(qa.astype(np.float64) @ np.swapaxes(ka.astype(np.float64), -1, -2) * 0.125, 2.0)
    sc = sc - np.abs(np.arange(L)[:, None] - np.arange(S)[None, :]) * 0.05
    p = np.exp(sc - sc.max(-1, keepdims=True))
    np.testing.assert_allclose(out.astype(np.float64), (p / p.sum(-1, keepdims=True)) @ va.astype(np.float64),
                               atol=2e-2, rtol=2e-2)


@pytest.mark.parametrize("chip", ["ascend910", "ascend910b2"])
@pytest.mark.parametrize("spelling", ["divided", "scaled_in_the_sum", "product_in_a_func", "exp_in_the_sums", "softmax_first",
                                      "softmax_first_causal", "v_first", "softmax_first_v_first", "p_rounded",
                                      "softmax_first_p_rounded", "grouped_by_one"])
def test_dsl_attention_spelled_as_users_write_it(rng, chip, spelling):
    """The same attention spelled other ways than the form's: scores divided by sqrt(E) (not times
    1 / sqrt(E)), the scale inside the sum, the product in a Func of its own, exp(S - M) written into
    both sums, the textbook's softmax first, P = E / L and O = P V (not O = (E V) / L), V first
    in the product, and P rounded to f16 for the product as the cube takes it (f32(f16(E)) V, or
    f32(f16(P)) V), and K and V read as grouped-query code does at one query head a group (h // 1):
    flash() takes each."""
    B, H, L, S, E = 1, 2, 40, 72, 64
    q, k, v = ck.Input("q", "f16", [B, H, L, E]), ck.Input("k", "f16", [B, H, S, E]), ck.Input("v", "f16", [B, H, S, E])
    b, h, i, j, d = (ck.Var(n) for n in "bhijd")
    r, t = ck.RDom(0, E, "r"), ck.RDom(0, S, "t")
    s, m, e, l, p, o = (ck.Func(n) for n in ("s", "m", "e", "l", "p", "o"))
    kh = h // 1 if spelling == "grouped_by_one" else h  # refused as K read at head h / 1
    qk = ck.cast("f32", q[b, h, i, r]) * ck.cast("f32", k[b, kh, j, r])
    dot = ck.sum(qk * 0.125) if spelling == "scaled_in_the_sum" else ck.sum(qk) / 8.0 if spelling == "divided" else ck.sum(qk) * 0.125
    causal = spelling.endswith("causal")
    if spelling == "product_in_a_func":  # S defined over (b, h, j, i): its call of the product swaps i and j
        product = ck.Func("product")
        product[b, h, i, j] = ck.sum(qk)
        s[b, h, j, i] = product[b, h, j, i] * 0.125
    else:
        s[b, h, i, j] = ck.select(j <= i, dot, -1e30) if causal else dot
    m[b, h, i] = ck.maximum(s[b, h, i, t])
    e[b, h, i, j] = ck.exp(s[b, h, i, j] - m[b, h, i])
    if spelling == "exp_in_the_sums":
        l[b, h, i] = ck.sum(ck.exp(s[b, h, i, t] - m[b, h, i]))
    else:
        l[b, h, i] = ck.sum(e[b, h, i, t])
    if spelling == "exp_in_the_sums":
        o[b, h, i, d] = ck.cast("f16", ck.sum(ck.exp(s[b, h, i, t] - m[b, h, i]) * ck.cast("f32", v[b, h, t, d])) / l[b, h, i])
    elif spelling == "softmax_first_v_first":
        p[b, h, i, j] = e[b, h, i, j] / l[b, h, i]
        o[b, h, i, d] = ck.cast("f16", ck.sum(ck.cast("f32", v[b, h, t, d]) * p[b, h, i, t]))
    elif spelling == "v_first":
        o[b, h, i, d] = ck.cast("f16", ck.sum(ck.cast("f32", v[b, h, t, d]) * e[b, h, i, t]) / l[b, h, i])
    elif spelling == "softmax_first_p_rounded":
        p[b, h, i, j] = e[b, h, i, j] / l[b, h, i]
        o[b, h, i, d] = ck.cast("f16", ck.sum(ck.cast("f32", ck.cast("f16", p[b, h, i, t])) * ck.cast("f32", v[b, h, t, d])))
    elif spelling.startswith("softmax_first"):
        p[b, h, i, j] = e[b, h, i, j] / l[b, h, i]
        o[b, h, i, d] = ck.cast("f16", ck.sum(p[b, h, i, t] * ck.cast("f32", v[b, h, t, d])))
    elif spelling == "p_rounded":
        o[b, h, i, d] = ck.cast("f16", ck.sum(ck.cast("f32", ck.cast("f16", e[b, h, i, t])) * ck.cast("f32", v[b, h, t, d]))
                                / l[b, h, i])
    else:
        o[b, h, i, d] = ck.cast("f16", ck.sum(e[b, h, i, t] * ck.cast("f32", v[b, kh, t, d])) / l[b, h, i])
    o.flash(16, 16)
    x = {n: rng.standard_normal((B, H, L if n == "q" else S, E)).astype(np.float16) for n in "qkv"}
    out, _ = o.run(x, chip=chip, raise_on_diagnostics=True)
    np.testing.assert_allclose(out.astype(np.float64), sdpa(x["q"], x["k"], x["v"], causal=causal, scale=0.125),
                               atol=2e-2, rtol=2e-2)


def test_dsl_forms_that_are_not_attention_are_refused():
    """Spellings flash() takes must mean attention: V read at a second RDom of the keys' domain
    (sum_t sum_u E(t) V(u), which reduces over both) is refused, not computed as attention."""
    B, H, L, S, E = 1, 1, 32, 48, 32
    q, k, v = ck.Input("q", "f16", [B, H, L, E]), ck.Input("k", "f16", [B, H, S, E]), ck.Input("v", "f16", [B, H, S, E])
    b, h, i, j, d = (ck.Var(n) for n in "bhijd")
    r, t, u = ck.RDom(0, E, "r"), ck.RDom(0, S, "t"), ck.RDom(0, S, "u")
    s, m, e, l, o = (ck.Func(n) for n in "smelo")
    s[b, h, i, j] = ck.sum(ck.cast("f32", q[b, h, i, r]) * ck.cast("f32", k[b, h, j, r])) * 0.125
    m[b, h, i] = ck.maximum(s[b, h, i, t])
    e[b, h, i, j] = ck.exp(s[b, h, i, j] - m[b, h, i])
    l[b, h, i] = ck.sum(e[b, h, i, t])
    o[b, h, i, d] = ck.cast("f16", ck.sum(e[b, h, i, t] * ck.cast("f32", v[b, h, u, d])) / l[b, h, i])
    o.flash(16, 16)
    with pytest.raises(ck.Error, match="o is not attention in the form flash"):
        ck.compile(o)


def test_dsl_p_rounded_to_another_type_than_the_cube_takes_is_refused():
    """P rounded to bf16 while Q, K and V are f16: the cube would multiply P in f16, not what the
    Func computes; refused, not computed otherwise."""
    B, H, L, S, E = 1, 1, 32, 48, 32
    q, k, v = ck.Input("q", "f16", [B, H, L, E]), ck.Input("k", "f16", [B, H, S, E]), ck.Input("v", "f16", [B, H, S, E])
    b, h, i, j, d = (ck.Var(n) for n in "bhijd")
    r, t = ck.RDom(0, E, "r"), ck.RDom(0, S, "t")
    s, m, e, l, o = (ck.Func(n) for n in "smelo")
    s[b, h, i, j] = ck.sum(ck.cast("f32", q[b, h, i, r]) * ck.cast("f32", k[b, h, j, r])) * 0.125
    m[b, h, i] = ck.maximum(s[b, h, i, t])
    e[b, h, i, j] = ck.exp(s[b, h, i, j] - m[b, h, i])
    l[b, h, i] = ck.sum(e[b, h, i, t])
    o[b, h, i, d] = ck.cast("f16", ck.sum(ck.cast("f32", ck.cast("bf16", e[b, h, i, t])) * ck.cast("f32", v[b, h, t, d]))
                            / l[b, h, i])
    o.flash(16, 16)
    with pytest.raises(ck.Error, match="o is not attention in the form flash"):
        ck.compile(o)


@pytest.mark.parametrize("window", [31, 32, 1000])
def test_dsl_window_of_any_length(rng, window):
    """select(i - j < W, ..) inside the causal select, W shorter than the queries or not (a window
    as long hides no key)."""
    B, H, L, E = 1, 1, 32, 32
    q, k, v = (ck.Input(n, "f16", [B, H, L, E]) for n in "qkv")
    b, h, i, j, d = (ck.Var(n) for n in "bhijd")
    r, t = ck.RDom(0, E, "r"), ck.RDom(0, L, "t")
    s, m, e, l, o = (ck.Func(n) for n in "smelo")
    dot = ck.sum(ck.cast("f32", q[b, h, i, r]) * ck.cast("f32", k[b, h, j, r])) * 0.125
    s[b, h, i, j] = ck.select(j <= i, ck.select(i - j < window, dot, -1e30), -1e30)
    m[b, h, i] = ck.maximum(s[b, h, i, t])
    e[b, h, i, j] = ck.exp(s[b, h, i, j] - m[b, h, i])
    l[b, h, i] = ck.sum(e[b, h, i, t])
    o[b, h, i, d] = ck.cast("f16", ck.sum(e[b, h, i, t] * ck.cast("f32", v[b, h, t, d])) / l[b, h, i])
    o.flash(16, 16)
    x = {n: rng.standard_normal((B, H, L, E)).astype(np.float16) for n in "qkv"}
    out, _ = o.run(x, chip="ascend910", raise_on_diagnostics=True)
    dist = np.arange(L)[:, None] - np.arange(L)[None, :]
    sc = np.where((dist >= 0) & (dist < window), x["q"].astype(np.float64) @ np.swapaxes(x["k"].astype(np.float64), -1, -2) * 0.125,
                  -np.inf)
    p = np.exp(sc - sc.max(-1, keepdims=True))
    np.testing.assert_allclose(out.astype(np.float64), (p / p.sum(-1, keepdims=True)) @ x["v"].astype(np.float64),
                               atol=2e-2, rtol=2e-2)


def attention_funcs(B, H, L, S, E, causal_as=None, out_dtype="f16"):
    """The attention pipeline in the DSL, scheduled flash(16, 16): its output Func. causal_as: None, or
    the causal select's condition as a function of the query i and key j."""
    q, k, v = ck.Input("q", "f16", [B, H, L, E]), ck.Input("k", "f16", [B, H, S, E]), ck.Input("v", "f16", [B, H, S, E])
    b, h, i, j, d = (ck.Var(n) for n in "bhijd")
    r, t = ck.RDom(0, E, "r"), ck.RDom(0, S, "t")
    s, m, e, l, o = (ck.Func(n) for n in ("s", "m", "e", "l", "o"))
    dot = ck.sum(ck.cast("f32", q[b, h, i, r]) * ck.cast("f32", k[b, h, j, r])) * 0.125
    s[b, h, i, j] = dot if causal_as is None else ck.select(causal_as(i, j), dot, -1e30)
    m[b, h, i] = ck.maximum(s[b, h, i, t])
    e[b, h, i, j] = ck.exp(s[b, h, i, j] - m[b, h, i])
    l[b, h, i] = ck.sum(e[b, h, i, t])
    pv = ck.sum(e[b, h, i, t] * ck.cast("f32", v[b, h, t, d])) / l[b, h, i]
    o[b, h, i, d] = pv if out_dtype == "f32" else ck.cast(out_dtype, pv)
    o.flash(16, 16)
    return o


@pytest.mark.parametrize("chip", ["ascend910", "ascend910b2", "ascend950pr"])
def test_dsl_attention_with_an_f32_output(rng, chip):
    """O left in f32 (no cast to f16): the statistics' type, copied out (was an internal error: a
    same-type cast emitted vadds without its scalar)."""
    B, H, L, S, E = 1, 2, 40, 56, 32
    o = attention_funcs(B, H, L, S, E, out_dtype="f32")
    x = {n: rng.standard_normal((B, H, L if n == "q" else S, E)).astype(np.float16) for n in "qkv"}
    out, _ = o.run(x, chip=chip, raise_on_diagnostics=True)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, sdpa(x["q"], x["k"], x["v"], scale=0.125), atol=2e-3, rtol=2e-3)


@pytest.mark.parametrize("chip", ["ascend910", "ascend910b2"])
def test_dsl_causal_select_spelled_either_way(rng, chip):
    """select(i >= j, ..) is select(j <= i, ..): both are the causal form flash() computes."""
    B, H, L, S, E = 1, 1, 48, 48, 32
    x = {n: rng.standard_normal((B, H, L, E)).astype(np.float16) for n in "qkv"}
    ref = sdpa(x["q"], x["k"], x["v"], causal=True, scale=0.125)
    for cond in (lambda i, j: j <= i, lambda i, j: i >= j):
        out, _ = attention_funcs(B, H, L, S, E, causal_as=cond).run(x, chip=chip, raise_on_diagnostics=True)
        np.testing.assert_allclose(out.astype(np.float64), ref, atol=2e-2, rtol=2e-2)


@pytest.mark.parametrize("chip", ["ascend910", "ascend910b2", "ascend950pr"])
@pytest.mark.parametrize("S", [57, 64])
def test_a_row_with_every_key_masked_spreads_over_its_keys(rng, chip, S):
    """A query whose every key is masked has all its scores equal (-1e30 each): the softmax spreads over
    its S keys, as the unfused Funcs compute it (the mean of V), whatever S is modulo the tiles; the
    padding of the last key tile is not one of them, and the previous query tile leaves nothing behind."""
    q = rng.standard_normal((1, 2, 40, 64)).astype(np.float16)
    k, v = (rng.standard_normal((1, 2, S, 64)).astype(np.float16) for _ in range(2))
    keep = np.ones((40, S), bool)
    keep[[0, 17, 39]] = False
    o, _ = kernels.attention(q, k, v, attn_mask=keep, chip=chip, raise_on_diagnostics=True)
    ref = sdpa_masked(q, k, v, np.where(keep, 0.0, -1e30))
    np.testing.assert_allclose(o[0, :, 17].astype(np.float64), v[0].astype(np.float64).mean(1), atol=2e-3)
    np.testing.assert_allclose(o.astype(np.float64), ref, atol=2e-2, rtol=2e-2)


@pytest.mark.parametrize("chip", ["ascend910", "ascend910b2"])
@pytest.mark.parametrize("fill", [-np.inf, np.finfo(np.float32).min])
def test_a_float_mask_below_minus_big_hides_no_future_key(rng, chip, fill):
    """Left padding as float masks write it (-inf, finfo.min) under causal=True: a query whose visible
    keys are all padding averages them, as a boolean mask's False does; it never reads a later key
    (below the causal mask's hidden keys, such a mask once gave them the softmax)."""
    q, k, v = (rng.standard_normal((1, 1, 40, 64)).astype(np.float16) for _ in range(3))
    pad = np.zeros((1, 1, 1, 40), np.float32)
    pad[..., :3] = fill
    o, _ = kernels.attention(q, k, v, attn_mask=pad, causal=True, chip=chip, raise_on_diagnostics=True)
    keep = np.ones((1, 1, 1, 40), bool)
    keep[..., :3] = False
    want, _ = kernels.attention(q, k, v, attn_mask=keep, causal=True, chip=chip)
    np.testing.assert_array_equal(o, want)
    np.testing.assert_allclose(o[0, 0, 2].astype(np.float64), v[0, 0, :3].astype(np.float64).mean(0), atol=2e-3)


@pytest.mark.parametrize("chip", ["ascend910", "ascend910b2"])
def test_a_score_mod_of_minus_inf_hides_no_future_key(rng, chip):
    """FlexAttention masks with score_mod's -inf; under causal=True a query whose visible keys it all
    masks averages them, as the same padding as an attn_mask does (below the causal mask's hidden
    keys, the -inf once gave the softmax to later keys: query 0 moved when they changed)."""
    q, k, v = (rng.standard_normal((1, 1, 40, 64)).astype(np.float16) for _ in range(3))
    pad = lambda s, b, h, qi, ki: ck.select(ki < 3, -float("inf"), s)
    o, _ = kernels.attention(q, k, v, score_mod=pad, causal=True, chip=chip, raise_on_diagnostics=True)
    later = v.copy()
    later[:, :, 3:] += 10
    moved, _ = kernels.attention(q, k, later, score_mod=pad, causal=True, chip=chip)
    np.testing.assert_array_equal(moved[:, :, :3], o[:, :, :3])
    mask = np.zeros((1, 1, 1, 40), np.float32)
    mask[..., :3] = -np.inf
    want, _ = kernels.attention(q, k, v, attn_mask=mask, causal=True, chip=chip)
    np.testing.assert_allclose(o.astype(np.float64), want.astype(np.float64), atol=2e-3)
    np.testing.assert_allclose(o[0, 0, 2].astype(np.float64), v[0, 0, :3].astype(np.float64).mean(0), atol=2e-3)


def test_inputs_in_the_other_byte_order(rng):
    q, k, v = (rng.standard_normal((1, 2, 24, 64)).astype(np.float16) for _ in range(3))
    want, _ = kernels.attention(q, k, v)
    o, _ = kernels.attention(q.astype(">f2"), k.astype(">f2"), v.astype(">f2"))
    np.testing.assert_array_equal(o, want)


@pytest.mark.parametrize("chip", ["ascend910", "ascend910b2"])
def test_score_mod_selecting_minus_big_on_its_own_condition(rng, chip):
    """A score_mod's select(q_idx != kv_idx, s, -1e30) (each query skips its own key) is part of the
    modifier, not taken for the causal select; with causal=True both apply."""
    q, k, v = (rng.standard_normal((1, 2, 40, 64)).astype(np.float16) for _ in range(3))
    not_self = lambda s, b, h, qi, ki: ck.select(qi != ki, s, -1e30)
    add = np.where(np.eye(40, dtype=bool), -1e30, 0.0)
    o, _ = kernels.attention(q, k, v, score_mod=not_self, chip=chip, raise_on_diagnostics=True)
    np.testing.assert_allclose(o.astype(np.float64), sdpa_masked(q, k, v, add), atol=2e-2, rtol=2e-2)
    o, _ = kernels.attention(q, k, v, score_mod=not_self, causal=True, chip=chip, raise_on_diagnostics=True)
    causal = np.where(np.tril(np.ones((40, 40), bool)), 0.0, -1e30)
    # Query 0 sees no key but itself, which the modifier masks: every score -1e30, spread over its keys.
    np.testing.assert_allclose(o[:, :, 1:].astype(np.float64), sdpa_masked(q, k, v, np.minimum(add, causal))[:, :, 1:],
                               atol=2e-2, rtol=2e-2)


def logsumexp(q, k, causal=False, scale=None):
    """log(sum_j exp(scale q_i . k_j)) over the keys each query sees, in float64."""
    q, k = q.astype(np.float64), k.astype(np.float64)
    k = np.repeat(k, q.shape[-3] // k.shape[-3], axis=-3)
    s = q @ np.swapaxes(k, -1, -2) * (1 / np.sqrt(q.shape[-1]) if scale is None else scale)
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
    m = s.max(-1)
    return m + np.log(np.exp(s - m[..., None]).sum(-1))


@pytest.mark.parametrize("chip", ["ascend910", "ascend910b2"])
def test_return_lse_is_the_logsumexp_of_the_scaled_scores(rng, chip):
    q = rng.standard_normal((2, 4, 70, 64)).astype(np.float16)
    k, v = (rng.standard_normal((2, 2, 90, 64)).astype(np.float16) for _ in range(2))
    o, lse, report = kernels.attention(q, k, v, causal=True, return_lse=True, chip=chip, raise_on_diagnostics=True)
    assert lse.shape == q.shape[:3] and lse.dtype == np.float32
    np.testing.assert_allclose(lse, logsumexp(q, k, causal=True), atol=1e-4, rtol=1e-5)
    np.testing.assert_allclose(o.astype(np.float64), sdpa(q, k, v, True), atol=2e-2, rtol=2e-2)
    assert "also" not in report
    o3, lse3, _ = kernels.attention(q[0], k[0], v[0], return_lse=True, chip=chip)  # no batch: lse (heads, L)
    assert lse3.shape == q.shape[1:3]
    np.testing.assert_allclose(lse3, logsumexp(q[0], k[0]), atol=1e-4, rtol=1e-5)


@pytest.mark.parametrize("chip", ["ascend910", "ascend910b2", "ascend950pr"])
def test_attn_mask_as_torch_takes_it(rng, chip):
    """A float mask is added to the scaled scores; a boolean one keeps the keys where it is True."""
    q = rng.standard_normal((2, 4, 70, 64)).astype(np.float16)
    k, v = (rng.standard_normal((2, 2, 90, 64)).astype(np.float16) for _ in range(2))
    ref = lambda add: sdpa_masked(q, k, v, add)
    add = rng.standard_normal((70, 90)).astype(np.float32)
    o, _ = kernels.attention(q, k, v, attn_mask=add, chip=chip, raise_on_diagnostics=True)
    np.testing.assert_allclose(o.astype(np.float64), ref(add), atol=2e-2, rtol=2e-2)
    keep = np.ones((2, 1, 1, 90), bool)
    keep[0, ..., 80:] = keep[1, ..., 33:] = False  # key padding per batch
    o, _ = kernels.attention(q, k, v, attn_mask=keep, chip=chip, raise_on_diagnostics=True)
    np.testing.assert_allclose(o.astype(np.float64), ref(np.where(keep, 0.0, -np.inf)), atol=2e-2, rtol=2e-2)


def sdpa_masked(q, k, v, add):
    """Attention in float64 with an additive mask (-inf: a key left out)."""
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    group = q.shape[-3] // k.shape[-3]
    k, v = np.repeat(k, group, axis=-3), np.repeat(v, group, axis=-3)
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]) + add
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


def test_attn_mask_errors_name_what_is_wrong():
    x = np.ones((1, 2, 16, 16), np.float16)
    with pytest.raises(ck.Error, match="does not broadcast to"):
        kernels.attention(x, x, x, attn_mask=np.zeros((16, 17), np.float32))
    with pytest.raises(ck.Error, match="it must be boolean"):
        kernels.attention(x, x, x, attn_mask=np.zeros((16, 16), np.int32))


def test_scale_and_no_batch(rng):
    q, k, v = (rng.standard_normal((2, 48, 32)).astype(np.float16) for _ in range(3))
    o, _ = kernels.attention(q, k, v, scale=0.5, tile_q=16, tile_kv=32)
    assert o.shape == q.shape
    np.testing.assert_allclose(o.astype(np.float64), sdpa(q, k, v, scale=0.5), atol=2e-2, rtol=2e-2)


def test_errors_name_what_is_wrong():
    x = np.ones((1, 3, 16, 16), np.float16)
    with pytest.raises(ck.Error, match="3 query heads do not divide into groups of the 2 K/V heads"):
        kernels.attention(x, np.ones((1, 2, 16, 16), np.float16), np.ones((1, 2, 16, 16), np.float16))
    with pytest.raises(ck.Error, match="they must all be float16, or all bf16"):
        kernels.attention(x.astype(np.float32), x, x)
    with pytest.raises(ck.Error, match="scale 0 would weigh every key alike"):
        kernels.attention(x, x, x, scale=0)


@pytest.mark.parametrize("chip", ["ascend910", "ascend910b2"])
def test_a_negative_scale_is_torchs(chip):
    """Any finite scale but 0, as torch's: a negative one prefers the keys least like the query."""
    rng = np.random.default_rng(5)
    q, k, v = (rng.standard_normal((1, 2, 40, 32)).astype(np.float16) for _ in range(3))
    for scale in (-0.25, -3.0):
        o, _ = kernels.attention(q, k, v, scale=scale, causal=True, chip=chip)
        np.testing.assert_allclose(o.astype(np.float64), sdpa(q, k, v, scale=scale, causal=True), atol=2e-2, rtol=2e-2)


def test_an_empty_query_is_checked_as_a_run_would_be():
    """No queries: an empty result, nothing launched; but its other inputs are checked as a run's are."""
    k = np.ones((1, 2, 16, 32), np.float16)
    o, report = kernels.attention(np.ones((1, 4, 0, 32), np.float16), k, k)
    assert o.shape == (1, 4, 0, 32) and not report["launched"]
    with pytest.raises(ck.Error, match="do not divide into groups of the 3 K/V heads"):
        k3 = np.ones((1, 3, 16, 32), np.float16)
        kernels.attention(np.ones((1, 4, 0, 32), np.float16), k3, k3)
    with pytest.raises(ck.Error, match="a multiple of 16"):
        k24 = np.ones((0, 2, 16, 24), np.float16)
        kernels.attention(np.ones((0, 2, 8, 24), np.float16), k24, k24)
    with pytest.raises(ck.Error, match="window"):
        kernels.attention(np.ones((1, 2, 0, 32), np.float16), k, k, causal=True, window=-5)


def test_torchs_argument_names_say_what_to_write():
    x = np.ones((1, 2, 16, 32), np.float16)
    with pytest.raises(ck.Error, match="attention: is_causal= is torch's; write causal="):
        kernels.attention(x, x, x, is_causal=True)
    with pytest.raises(ck.Error, match="enable_gqa= is torch's; grouped-query attention needs no switch here"):
        kernels.attention(x, x, x, enable_gqa=True)
    with pytest.raises(ck.Error, match="dropout_p= is torch's; attention here has no dropout"):
        kernels.attention(x, x, x, dropout_p=0.1)
    with pytest.raises(ck.Error, match=r"q is \(2, 16, 32\) and k \(2, 2, 16, 32\): their batch and head dim must be the "
                                       r"same \(a 3-D q is one batch\)"):
        kernels.attention(x[0], np.ones((2, 2, 16, 32), np.float16), np.ones((2, 2, 16, 32), np.float16))


def test_softcap_fits_the_published_tiles_at_head_dim_128():
    """Softcap as a reciprocal (vrec) times -2c: written c / x, an exact vdiv by a tile of the
    constant, it took the UB that 128 x 128 tiles at head dim 128 need on the 910B2."""
    q = np.zeros((1, 1, 256, 128), np.float16)
    _, report = kernels.attention(q, q, q, softcap=50.0, tile_q=128, tile_kv=128, chip="ascend910b2", timing_only=True)
    assert report["cycles"] > 0


@pytest.mark.parametrize("option,value,message", [
    ("scale", 10**400, r"^attention: scale must be a finite number \(an int or a float\), got 1000"),  # was OverflowError
    ("softcap", 10**400, r"^attention: softcap must be a finite number"),
    ("tile_q", -16, r"^attention: tile_q must be a positive integer \(0: the schedule's choice\), got -16 \(int\)$"),
])
def test_option_values_are_refused_in_python_terms(option, value, message):
    """Refused naming the keyword, where Python met an OverflowError or C++'s message named --tile-q."""
    q = np.ones((1, 1, 16, 16), np.float16)
    with pytest.raises(ck.Error, match=message):
        kernels.attention(q, q, q, **{option: value})
