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
