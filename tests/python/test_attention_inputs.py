"""kernels.attention at the edges of its inputs: scales whose scores would outgrow the masks, and
runs without queries given a mask."""
import numpy as np
import pytest

import cubekit as ck
from cubekit import kernels
from conftest import run_cli


def equal_scores(score):
    """16 queries over 16 keys that all score `score` (q = e_0, k = score e_0), V's key j holding j."""
    q = np.zeros((1, 1, 16, 16), np.float16)
    q[..., 0] = 1
    k = np.zeros((1, 1, 16, 16), np.float16)
    k[..., 0] = score
    v = np.arange(16, dtype=np.float16)[None, None, :, None] * np.ones((1, 1, 16, 16), np.float16)
    return q, k, v


@pytest.mark.parametrize("chip", ["ascend910", "ascend910b2", "ascend950pr"])
def test_a_scale_whose_scores_outgrow_the_masks_is_refused(chip):
    """At scale 1e37 the scores (-3e38) fell below the causal mask's hidden keys (-2e38): each query
    attended to the keys after it, with no diagnostic. Past 1e29 a scale is refused wherever a mask
    hides keys; below, the same inputs give torch's result (row i the mean of keys 0..i)."""
    q, k, v = equal_scores(-30)
    with pytest.raises(ck.Error, match=r"scale 1e\+37: the scaled scores can reach 3e\+38 \(\|scale\| x the largest \|q_i\| "
                                       r"x the largest \|k_j\|\), past 1e\+29, where a masked key"):
        kernels.attention(q, k, v, causal=True, scale=1e37, chip=chip)
    with pytest.raises(ck.Error, match="give a smaller scale, or scale q or k down"):
        kernels.attention(q, k, v, attn_mask=np.arange(16) < 8, scale=-1e30, chip=chip)
    o, _ = kernels.attention(q, k, v, causal=True, scale=1e20, chip=chip, raise_on_diagnostics=True)
    np.testing.assert_array_equal(o[0, 0, :, 0], np.arange(16) / 2)
    # Without a mask nothing is hidden: the same scale runs (every key alike, V's mean).
    o, _ = kernels.attention(q, k, v, scale=1e37, chip=chip, raise_on_diagnostics=True)
    np.testing.assert_array_equal(o[0, 0, :, 0], np.full(16, 7.5))


@pytest.mark.parametrize("chip", ["ascend910", "ascend910b2", "ascend950pr"])
def test_a_softcap_keeps_any_scale_apart_from_the_masks(chip):
    """A softcap c bounds the scores (|c tanh(s / c)| < c), so no scale is refused with it: at scale
    1e37 causal queries attend to their own keys alone, as the float64 reference of torch's meaning
    (the cap, then the mask) says."""
    rng = np.random.default_rng(3)
    q, k, v = (rng.uniform(-1, 1, (1, 2, 40, 64)).astype(np.float16) for _ in range(3))
    for scale in (1e37, -1e35):
        o, _ = kernels.attention(q, k, v, causal=True, scale=scale, softcap=20.0, chip=chip, raise_on_diagnostics=True)
        s = 20.0 * np.tanh(scale * np.einsum("bhqd,bhkd->bhqk", q.astype(np.float64), k.astype(np.float64)) / 20.0)
        s = np.where(np.tril(np.ones((40, 40), bool)), s, -np.inf)
        p = np.exp(s - s.max(-1, keepdims=True))
        want = np.einsum("bhqk,bhkd->bhqd", p / p.sum(-1, keepdims=True), v.astype(np.float64))
        np.testing.assert_allclose(o.astype(np.float64), want, atol=2e-3)
    r = run_cli("kernel", "attention", "--seq-q", 64, "--dim", 64, "--causal", "--scale", "1e37", "--softcap", 20,
                "--chip", chip)
    assert "PASS" in r.stdout


def test_bf16_scores_are_bounded_by_their_values():
    """bf16 inputs are measured as the values their bits hold: 1e20 rounds to 9.97e19, so |q_i| = |k_j|
    = 3.99e20 over 16 dims, and the scores reach 0.25 x (3.99e20)^2 = 3.98e40."""
    q = ck.bf16_from_float32(np.full((1, 1, 16, 16), 1e20, np.float32))
    with pytest.raises(ck.Error, match=r"scale 0.25: the scaled scores can reach 3.98e\+40"):
        kernels.attention(q, q, q, causal=True, chip="ascend910b2")


def test_no_queries_with_a_mask_give_an_empty_result():
    """An empty batch or query extent with a mask that broadcasts: an empty O, as torch returns (the
    mask's 0 extents were refused with the CLI's --mask in the message)."""
    def zeros(*shape):
        return np.zeros(shape, np.float16)
    kv = zeros(1, 2, 15, 64)
    o, _ = kernels.attention(zeros(1, 2, 0, 64), kv, kv, attn_mask=np.ones((0, 15), bool))
    assert o.shape == (1, 2, 0, 64)
    o, lse, _ = kernels.attention(zeros(0, 2, 5, 64), kv[:0], kv[:0], attn_mask=np.ones((0, 1, 1, 15), bool),
                                  return_lse=True)
    assert o.shape == (0, 2, 5, 64) and lse.shape == (0, 2, 5)
    with pytest.raises(ck.Error, match=r"attention: attn_mask of shape \(2, 1, 1, 15\) does not broadcast to \(batch, heads, "
                                       r"L, S\) = \(0, 2, 5, 15\): dim 0 is 2; give it extent 0 or 1"):
        kernels.attention(zeros(0, 2, 5, 64), kv[:0], kv[:0], attn_mask=np.ones((2, 1, 1, 15), bool))
    with pytest.raises(ck.Error, match=r"dim 3 is 14; give it extent 15$"):
        kernels.attention(zeros(1, 2, 0, 64), kv, kv, attn_mask=np.ones((1, 1, 0, 14), bool))


def test_kv_without_heads_and_infinite_inputs_say_so():
    """K/V of 0 heads were reported against a 4-head tensor the user never gave (0 K/V heads read as
    "as many as q's"); an inf in q under a mask was blamed on the scale."""
    rng = np.random.default_rng(4)
    q = rng.standard_normal((1, 4, 16, 64)).astype(np.float16)
    kv = np.zeros((1, 0, 16, 64), np.float16)
    with pytest.raises(ck.Error, match=r"attention: k and v have no heads \(shape \(1, 0, 16, 64\)\); give them q's 4 heads, "
                                       r"or fewer that divide them"):
        kernels.attention(q, kv, kv)
    o, _ = kernels.attention(q[:, :0], kv, kv)  # no heads at all: an empty result, as torch's
    assert o.shape == (1, 0, 16, 64)
    bad = q.copy()
    bad[0, 0, 0, 0] = np.inf
    for qq, kk, name in ((bad, q, "q"), (q, bad, "k")):
        with pytest.raises(ck.Error, match=f"attention: {name} holds inf or NaN: with a mask, causal, a window or a score_mod"):
            kernels.attention(qq, kk, q, causal=True)
