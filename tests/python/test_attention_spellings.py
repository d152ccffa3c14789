"""Attention written in the DSL as Halide users write it, in spellings flash() once refused: an
RDom of its own for each reduction, the scale on Q inside the sum, / sqrt(E) with the DSL's sqrt,
no scale at all (Q scaled on the host)."""
import numpy as np
import pytest

import cubekit as ck


def sdpa(q, k, v, scale):
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    s = q @ np.swapaxes(k, -1, -2) * scale
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


@pytest.mark.parametrize("chip", ["ascend910", "ascend910b2"])
@pytest.mark.parametrize("spelling", ["rdom_each", "scale_on_q", "sqrt_divided", "unscaled"])
def test_flash_takes_the_spelling(rng, chip, spelling):
    B, H, L, S, E = 1, 2, 40, 72, 64
    q, k, v = ck.Input("q", "f16", [B, H, L, E]), ck.Input("k", "f16", [B, H, S, E]), ck.Input("v", "f16", [B, H, S, E])
    b, h, i, j, d = (ck.Var(n) for n in "bhijd")
    r = ck.RDom(0, E, "r")
    t_max, t_sum, t_pv = ((ck.RDom(0, S, n) for n in ("tm", "ts", "tv")) if spelling == "rdom_each"
                          else (ck.RDom(0, S, "t"),) * 3)
    s, m, e, l, o = (ck.Func(n) for n in "smelo")
    qf, kf = ck.cast("f32", q[b, h, i, r]), ck.cast("f32", k[b, h, j, r])
    if spelling == "scale_on_q":
        s[b, h, i, j] = ck.sum(qf * 0.125 * kf)
    elif spelling == "sqrt_divided":
        s[b, h, i, j] = ck.sum(qf * kf) / ck.sqrt(ck.cast("f32", 64))
    elif spelling == "unscaled":  # scale 1 (Q scaled on the host)
        s[b, h, i, j] = ck.sum(qf * kf)
    else:
        s[b, h, i, j] = ck.sum(qf * kf) * 0.125
    m[b, h, i] = ck.maximum(s[b, h, i, t_max])
    e[b, h, i, j] = ck.exp(s[b, h, i, j] - m[b, h, i])
    l[b, h, i] = ck.sum(e[b, h, i, t_sum])
    o[b, h, i, d] = ck.cast("f16", ck.sum(e[b, h, i, t_pv] * ck.cast("f32", v[b, h, t_pv, d])) / l[b, h, i])
    o.flash(16, 16)
    x = {n: rng.standard_normal((B, H, L if n == "q" else S, E)).astype(np.float16) for n in "qkv"}
    if spelling == "unscaled":
        x["q"] = (x["q"] * 0.125).astype(np.float16)
    out, _ = o.run(x, chip=chip, raise_on_diagnostics=True)
    np.testing.assert_allclose(out.astype(np.float64), sdpa(x["q"], x["k"], x["v"], 1.0 if spelling == "unscaled" else 0.125),
                               atol=2e-2, rtol=2e-2)


def test_rdoms_of_another_extent_are_still_refused():
    """Each reduction may have an RDom of its own, but over the keys: a max over fewer keys than the
    sums is not attention."""
    q, k, v = ck.Input("q", "f16", [1, 1, 32, 64]), ck.Input("k", "f16", [1, 1, 32, 64]), ck.Input("v", "f16", [1, 1, 32, 64])
    b, h, i, j, d = (ck.Var(n) for n in "bhijd")
    r, t, short = ck.RDom(0, 64, "r"), ck.RDom(0, 32, "t"), ck.RDom(0, 16, "u")
    s, m, e, l, o = (ck.Func(n) for n in "smelo")
    s[b, h, i, j] = ck.sum(ck.cast("f32", q[b, h, i, r]) * ck.cast("f32", k[b, h, j, r])) * 0.125
    m[b, h, i] = ck.maximum(s[b, h, i, short])
    e[b, h, i, j] = ck.exp(s[b, h, i, j] - m[b, h, i])
    l[b, h, i] = ck.sum(e[b, h, i, t])
    o[b, h, i, d] = ck.cast("f16", ck.sum(e[b, h, i, t] * ck.cast("f32", v[b, h, t, d])) / l[b, h, i])
    o.flash(16, 16)
    with pytest.raises(ck.Error, match="is not attention in the form flash\\(\\) computes"):
        o.run({n: np.zeros((1, 1, 32, 64), np.float16) for n in "qkv"})
