"""kernels.attention with masks written in score_mod, FlexAttention's way, against numpy in float64."""
import numpy as np
import pytest

from cubekit import kernels
import cubekit as ck


def masked_sdpa(q, k, v, visible, scale=0.125):
    """Attention over the keys `visible` (L x S, bool) leaves each query, in float64."""
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    s = np.where(visible, q @ np.swapaxes(k, -1, -2) * scale, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


@pytest.mark.parametrize("chip", ["ascend910", "ascend910b2", "ascend950pr"])
@pytest.mark.parametrize("L,S", [(64, 64), (50, 67), (128, 200)])
def test_a_causal_mask_in_score_mod_takes_the_default_tiles(rng, chip, L, S):
    """select(kv <= q, s, -inf) is the causal mask: the default tiles are then square, as causal=True's
    (they were 32 x 64, and the run refused them: "a causal mask needs tile_q == tile_kv")."""
    q = rng.standard_normal((1, 2, L, 64)).astype(np.float16)
    k, v = (rng.standard_normal((1, 2, S, 64)).astype(np.float16) for _ in range(2))
    o, _ = kernels.attention(q, k, v, chip=chip, raise_on_diagnostics=True,
                             score_mod=lambda s, b, h, qi, kv: ck.select(kv <= qi, s, float("-inf")))
    visible = np.arange(S)[None, :] <= np.arange(L)[:, None]
    np.testing.assert_allclose(o.astype(np.float64), masked_sdpa(q, k, v, visible), atol=2e-2, rtol=2e-2)


@pytest.mark.parametrize("chip", ["ascend910", "ascend910b2", "ascend950pr"])
@pytest.mark.parametrize("fill", [float("-inf"), -1e30])
def test_a_window_in_score_mod_under_causal(rng, chip, fill):
    """causal=True with a window written in score_mod, select(q - kv < 8, s, -inf): the window masks
    (its -inf counts as -1e30) where the causal mask hides, so it is part of the modifier, not the
    form's window (which hides as the causal mask does): it was refused as "not attention in the form"."""
    q, k, v = (rng.standard_normal((1, 2, 64, 64)).astype(np.float16) for _ in range(3))
    o, _ = kernels.attention(q, k, v, causal=True, chip=chip, raise_on_diagnostics=True,
                             score_mod=lambda s, b, h, qi, kv: ck.select(qi - kv < 8, s, fill))
    dist = np.arange(64)[:, None] - np.arange(64)[None, :]
    np.testing.assert_allclose(o.astype(np.float64), masked_sdpa(q, k, v, (dist >= 0) & (dist < 8)), atol=2e-2, rtol=2e-2)
    window, _ = kernels.attention(q, k, v, causal=True, window=8, chip=chip)
    np.testing.assert_allclose(o.astype(np.float64), window.astype(np.float64), atol=2e-3)


@pytest.mark.parametrize("chip", ["ascend910", "ascend910b2"])
def test_a_score_mod_that_outgrows_the_masks_is_refused(rng, chip):
    """score_mod=lambda s: s * 1e31 under a mask gave some rows a masked key's V with no diagnostic,
    where scale=1e31/8 was refused: what a score_mod makes of the scores is bounded too (interval
    arithmetic over it), its masking constants left out. Below the bound the result is torch's."""
    q, k, v = (rng.standard_normal((1, 1, 16, 64)).astype(np.float16) for _ in range(3))
    keep = rng.random((16, 16)) > 0.5
    keep[:, 0] = True
    for mod in (lambda s: s * 1e31, lambda s: s / 1e-31, lambda s, b, h, qi, kv: s + ck.cast("f32", kv) * 1e28,
                lambda s, b, h, qi, kv: ck.select(kv < 3, s * 1e35, float("-inf"))):
        with pytest.raises(ck.Error, match=r"attention: score_mod can make scores of [0-9.e+]+ out of the scaled scores \(at "
                                           r"most [0-9.]+: \|scale\| x the largest \|q_i\| x the largest \|k_j\|\), past 1e\+29"):
            kernels.attention(q, k, v, attn_mask=keep, score_mod=mod, chip=chip)
    o, _ = kernels.attention(q, k, v, attn_mask=keep, score_mod=lambda s: s * 1e20, chip=chip, raise_on_diagnostics=True)
    np.testing.assert_allclose(o.astype(np.float64), masked_sdpa(q, k, v, keep, scale=0.125 * 1e20), atol=2e-3)
    # A mask the modifier writes itself is no score: select(.., -inf) and -1e29 both run.
    for fill in (float("-inf"), -1e29):
        o, _ = kernels.attention(q, k, v, causal=True, chip=chip, raise_on_diagnostics=True,
                                 score_mod=lambda s, b, h, qi, kv: ck.select(kv < 3, s, fill))
        visible = (np.arange(16)[None, :] < 3) & (np.arange(16)[None, :] <= np.arange(16)[:, None])
        np.testing.assert_allclose(o.astype(np.float64), masked_sdpa(q, k, v, visible), atol=2e-2, rtol=2e-2)
