"""The numerics at the edges of the ranges: what the kernels compute and what the Halide reference
(cubekit.reference) says there, against numpy."""
import numpy as np
import pytest

import cubekit as ck


@pytest.mark.parametrize("chip", ["ascend910", "ascend910b2"])
def test_divisions_whose_reciprocal_overflows(chip):
    """x / c, c / x and x / w (w per row) where 1 / c, 1 / x or 1 / w is past f16's range (or 1 / c in
    its subnormals) but the quotient is not: as numpy divides, not inf or a percent off."""
    X, W = ck.Input("X", "f16", [2, 16]), ck.Input("W", "f16", [2])
    r, c = ck.Var("r"), ck.Var("c")
    x = np.full((2, 16), 0.1, np.float16)
    w = np.array([1e-5, 2.0], np.float16)
    cases = [(lambda: X[r, c] / 1e-5, lambda: x / np.float16(1e-5)),
             (lambda: X[r, c] / 3000.0, lambda: x / np.float16(3000.0)),
             (lambda: 0.25 / (X[r, c] * 1e-4), lambda: np.float16(0.25) / (x * np.float16(1e-4))),
             (lambda: X[r, c] / W[r], lambda: x / w[:, None])]
    for k, (expr, want) in enumerate(cases):
        F = ck.Func(f"F{k}")
        F[r, c] = expr()
        out, _ = F.run({"X": x, "W": w} if k == 3 else {"X": x}, chip=chip, raise_on_diagnostics=True)
        np.testing.assert_allclose(out.astype(np.float64), want().astype(np.float64), rtol=2e-3, err_msg=f"case {k}")


def test_the_reference_exp_and_log_at_their_edges():
    """ck.reference follows numpy at exp's and log's edges: NaN, infinities, subnormal results and inputs
    (Halide's own gave exp(inf) 0 and log(NaN) 89)."""
    x = np.array([np.nan, np.inf, -np.inf, 1.0, -100.0, 88.7, 89.0, 1e-40, 0.0, -1.0], np.float32)
    X, i = ck.Input("X", "f32", [x.size]), ck.Var("i")
    E, L = ck.Func("E"), ck.Func("L")
    E[i] = ck.exp(X[i])
    L[i] = ck.log(X[i])
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(ck.reference(E, {"X": x}), np.exp(x), rtol=1e-6, atol=1e-45)
        np.testing.assert_allclose(ck.reference(L, {"X": x}), np.log(x), rtol=1e-6)
