"""Funcs of per-row values: reductions along a row read by other Funcs, outputs one value per row
through the Funcs they call, rows of several variables -- against numpy, on every chip preset."""
import numpy as np
import pytest

import cubekit as ck
from cubekit import Func, Input, RDom, Var


@pytest.mark.parametrize("chip", ["ascend910", "ascend950pr"])
def test_two_funcs_of_one_per_row_value(chip):
    # F2 = G + P computes in place over G's per-row buffer after F1 spread G over the row: F2 must
    # spread the new value, not reuse G's spread (it did, and dropped P without a diagnostic).
    R, C = 5, 16
    r, c, k = Var("r"), Var("c"), RDom(0, C, "k")
    X, P = Input("X", "f32", [R, C]), Input("P", "f32", [R])
    G = Func("G")
    G[r] = ck.minimum(X[r, k])
    F1, F2, OUT = Func("F1"), Func("F2"), Func("OUT")
    F1[r, c] = G[r]
    F1.bound(c, 0, C)
    F2[r, c] = G[r] + P[r]
    F2.bound(c, 0, C)
    OUT[r, c] = F1[r, c] + F2[r, c]
    x = np.arange(R * C, dtype=np.float32).reshape(R, C) / 8
    p = np.arange(10, 10 + R, dtype=np.float32)
    out, report = OUT.run({"X": x, "P": p}, chip=chip)
    np.testing.assert_allclose(out, np.repeat((2 * x.min(1) + p)[:, None], C, axis=1), rtol=1e-6)
    assert report["diagnostics"] == []


def test_a_row_reduction_may_read_its_row_after_a_per_column_input(rng):
    # sum(Q(k) * Y(r, k)) is sum(Y(r, k) * Q(k)): the row is found wherever the operand reads it
    # (it was taken from the first read only, and Q(k) made it an elementwise Func over rows).
    R, C = 40, 16
    r, k = Var("r"), RDom(0, C, "k")
    Y, Q = Input("Y", "f32", [R, C]), Input("Q", "f32", [C])
    O = Func("O")
    O[r] = ck.sum(Q[k] * Y[r, k])
    y, q = rng.standard_normal((R, C)).astype(np.float32), rng.standard_normal(C).astype(np.float32)
    out, report = O.run({"Y": y, "Q": q})
    np.testing.assert_allclose(out, (y.astype(np.float64) * q).sum(1), rtol=1e-5, atol=1e-5)
    assert report["diagnostics"] == []


@pytest.mark.parametrize("chip", ["ascend910", "ascend910b2", "ascend950pr"])
def test_a_reduction_reads_a_per_row_func_that_reduces(rng, chip):
    # G(r) = sum(X(r, k)) read inside H's reduction is a stage of its own, not a nested reduction
    # (it was refused with "compute the inner one as its own Func", which it already was).
    R, C = 37, 48
    r, k = Var("r"), RDom(0, C, "k")
    X = Input("X", "f32", [R, C])
    G, H = Func("G"), Func("H")
    G[r] = ck.sum(X[r, k])
    H[r] = ck.maximum(X[r, k] + G[r])
    x = rng.standard_normal((R, C)).astype(np.float32)
    out, report = H.run({"X": x}, chip=chip)
    np.testing.assert_allclose(out, (x.astype(np.float64) + x.sum(1, keepdims=True)).max(1), rtol=1e-5, atol=1e-5)
    assert report["diagnostics"] == []


@pytest.mark.parametrize("chip", ["ascend910", "ascend910b2", "ascend950pr"])
def test_a_per_row_output_of_per_row_funcs(rng, chip):
    # F(r) = T(r) / M(r) + P(r), T(r) = sqrt(S(r)) * 2, S and M row reductions: F is per-row through
    # the Funcs it calls (it was taken as a row of R columns, and S's reduction refused with cube advice).
    R, C = 37, 48
    r, k = Var("r"), RDom(0, C, "k")
    X, P = Input("X", "f32", [R, C]), Input("P", "f32", [R])
    S, M, T, F = Func("S"), Func("M"), Func("T"), Func("F")
    S[r] = ck.sum(X[r, k] * X[r, k])
    M[r] = ck.maximum(X[r, k])
    T[r] = ck.sqrt(S[r]) * 2.0
    F[r] = T[r] / M[r] + P[r]
    F.cores([r]).tile_rows(4)
    x, p = rng.standard_normal((R, C)).astype(np.float32), rng.standard_normal(R).astype(np.float32)
    out, report = F.run({"X": x, "P": p}, chip=chip)
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(out, 2 * np.sqrt((x64 ** 2).sum(1)) / x64.max(1) + p, rtol=1e-5, atol=1e-5)
    assert report["diagnostics"] == [] and report["cores"] == 10
    # Rows of two variables: G(b, r) = exp(sum(Y(b, r, k)) / 100).
    b = Var("b")
    Y = Input("Y", "f32", [3, R, C])
    S2, G = Func("S2"), Func("G")
    S2[b, r] = ck.sum(Y[b, r, k])
    G[b, r] = ck.exp(S2[b, r] * 0.01)
    y = rng.standard_normal((3, R, C)).astype(np.float32)
    out, report = G.run({"Y": y}, chip=chip)
    np.testing.assert_allclose(out, np.exp(y.astype(np.float64).sum(2) * 0.01), rtol=1e-5)
    assert report["diagnostics"] == []
