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


@pytest.mark.parametrize("chip", ["ascend910", "ascend950pr"])
def test_f32_divisions_by_a_divisor_whose_reciprocal_overflows(chip):
    """f32 x / w with w per row or per column, and c / x, where w or x is below 2.9e-39 (1 / w
    overflows f32) but the quotients are not: numpy's quotients (a reciprocal and a multiply gave
    [nan, inf, inf] for [0, 1e-38, 3e-39] / 1e-39)."""
    X, R, C = ck.Input("X", "f32", [2, 4]), ck.Input("R", "f32", [2]), ck.Input("C", "f32", [4])
    r, c = ck.Var("r"), ck.Var("c")
    x = np.array([[0.0, 1e-38, 2.0, 3e-39], [1.0, 2.0, 3.0, 4.0]], np.float32)
    rows, cols = np.array([1e-39, 2.0], np.float32), np.array([1e-39, 2.9e-39, 1e-38, 4.0], np.float32)
    cases = [(lambda: X[r, c] / R[r], lambda: x / rows[:, None]),
             (lambda: X[r, c] / C[c], lambda: x / cols[None, :]),
             (lambda: 3e-39 / X[r, c], lambda: np.float32(3e-39) / x)]
    with np.errstate(divide="ignore", over="ignore"):
        for k, (expr, want) in enumerate(cases):
            F = ck.Func(f"F{k}")
            F[r, c] = expr()
            given = [{"X": x, "R": rows}, {"X": x, "C": cols}, {"X": x + np.float32(1e-39)}][k]
            out, _ = F.run(given, chip=chip, raise_on_diagnostics=True)
            expect = want() if k < 2 else np.float32(3e-39) / (x + np.float32(1e-39))
            np.testing.assert_allclose(out, expect, rtol=2e-7, err_msg=f"case {k}")


@pytest.mark.parametrize("dtype", ["f16", "f32"])
def test_layernorm_and_mean_of_constant_rows(dtype):
    """A row of one value has that mean exactly and normalises to 0 (numpy, torch): the mean was
    sum * (1 / n), 1000.00006 for rows of 1000, and each normalised element -0.019."""
    np_t = np.float16 if dtype == "f16" else np.float32
    x = np.concatenate([np.full((2, 7), 1000.0), np.full((1, 7), 32750.0 if dtype == "f16" else 1e6)]).astype(np_t)
    y, _ = ck.kernels.layernorm(x, np.ones(7, np_t), np.zeros(7, np_t), chip="ascend910")
    np.testing.assert_array_equal(y.astype(np.float32), np.zeros((3, 7), np.float32))
    m, _ = ck.kernels.mean(x.astype(np.float32), axis=-1, chip="ascend910b2")
    np.testing.assert_array_equal(m, x.astype(np.float32).mean(axis=-1))


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
