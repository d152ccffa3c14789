"""Issue 10 from Python: f32 rows past 2032 columns, the epilogue's order, cores() on a loop that
cannot take cores, and schedules written for big shapes run on small ones -- against numpy."""
import numpy as np
import pytest

import cubekit as ck
from cubekit import Func, Input, Level, RDom, RVar, Var, kernels
from conftest import assert_report, gelu_ref, matmul_ref, run_cli

LONG_ROWS = [2033, 2040, 2049, 2056, 3000, 4097]


def softmax_ref(x):
    x = np.asarray(x, np.float64)
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def norm_ref(x, gamma, beta=None, eps=1e-5):
    x = np.asarray(x, np.float64)
    if beta is None:  # rmsnorm
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * gamma
    mu = x.mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + eps) * gamma + beta


@pytest.mark.parametrize("cols", LONG_ROWS)
def test_row_kernels_on_long_f32_rows(cols, rng):
    x = rng.standard_normal((3, cols)).astype(np.float32)
    gamma, beta = rng.standard_normal(cols).astype(np.float32), rng.standard_normal(cols).astype(np.float32)
    y, report = kernels.softmax(x)
    np.testing.assert_allclose(y, softmax_ref(x), rtol=1e-4, atol=1e-7)
    assert report["diagnostics"] == []
    y, report = kernels.layernorm(x, gamma, beta)
    np.testing.assert_allclose(y, norm_ref(x, gamma, beta), rtol=1e-4, atol=1e-4)
    assert report["diagnostics"] == []
    y, report = kernels.rmsnorm(x, gamma)
    np.testing.assert_allclose(y, norm_ref(x, gamma), rtol=1e-4, atol=1e-4)
    assert report["diagnostics"] == []


def test_issue_reproduction_softmax_of_ones():
    y, _ = kernels.softmax(np.ones((3, 2049), np.float32))
    np.testing.assert_allclose(y, np.full((3, 2049), 1 / 2049), rtol=1e-6)


def test_cli_softmax_on_long_f32_rows():
    r = run_cli("kernel", "softmax", "--rows", 3, "--cols", 2049, "--dtype", "f32", check=False)
    assert r.returncode == 0, r.stderr
    assert "PASS" in r.stdout


def test_user_row_reduction_on_long_f32_rows(rng):
    cols = 2049
    xs = rng.standard_normal((4, cols)).astype(np.float32)
    X = Input("X", "f32", [4, cols])
    r, c, k = Var("r"), Var("c"), RDom(0, cols, "k")
    F = Func("F")
    F[r, c] = X[r, c] - ck.sum(X[r, k]) * (1.0 / cols)
    F.cores([r])
    out, report = F.run({"X": xs})
    np.testing.assert_allclose(out, xs - xs.astype(np.float64).mean(1, keepdims=True), rtol=1e-4, atol=1e-5)
    assert report["diagnostics"] == []


# ---- the epilogue in the order written ----

def apply_steps(x, steps, bias, scale):
    x = np.asarray(x, np.float64)
    for step in steps:
        if step == "bias":
            x = x + bias
        elif step == "scale":
            x = x * scale
        elif step == "relu":
            x = np.maximum(x, 0)
        elif step == "gelu":
            x = gelu_ref(x)
    return x


@pytest.mark.parametrize("steps", [["relu", "bias"], ["bias", "relu"], ["bias", "bias"], ["gelu", "bias"],
                                   ["bias", "gelu"], ["relu", "scale", "bias"], ["scale", "bias", "relu"],
                                   ["bias", "scale", "bias"]])
def test_matmul_epilogue_follows_the_order(steps, rng):
    a = rng.uniform(-1, 1, (48, 96)).astype(np.float16)
    b = rng.uniform(-1, 1, (96, 80)).astype(np.float16)
    bias = rng.standard_normal(80).astype(np.float32)
    kwargs = {"scale": -0.5} if "scale" in steps else {}
    c, report = kernels.matmul(a, b, epilogue=steps, bias=bias, **kwargs)
    np.testing.assert_allclose(c, apply_steps(matmul_ref(a, b), steps, bias, -0.5), rtol=1e-5, atol=1e-5)
    assert report["diagnostics"] == []


def test_relu_then_bias_is_not_bias_then_relu(rng):
    a = rng.uniform(-1, 1, (32, 64)).astype(np.float16)
    b = rng.uniform(-1, 1, (64, 32)).astype(np.float16)
    bias = rng.standard_normal(32).astype(np.float32)
    relu_bias, _ = kernels.matmul(a, b, epilogue=["relu", "bias"], bias=bias)
    bias_relu, _ = kernels.matmul(a, b, epilogue=["bias", "relu"], bias=bias)
    assert (relu_bias < 0).any() and not (bias_relu < 0).any()


# ---- cores() on a loop that cannot take cores ----

def test_vector_cores_on_a_loop_the_func_does_not_have():
    X = Input("X", "f32", [8, 64])
    r, c, v = Var("r"), Var("c"), Var("v")
    F = Func("F")
    F[r, c] = X[r, c] / ck.sum(X[r, RDom(0, 64, "k")])
    F.cores([v])
    with pytest.raises(ck.Error, match=r"F\.cores\(v\): v is not a loop of F \(its loops: r, c\); give it r"):
        ck.compile(F)


def test_vector_cores_on_the_innermost_loop():
    X = Input("X", "f32", [8, 64])
    r, c = Var("r"), Var("c")
    F = Func("F")
    F[r, c] = X[r, c] / ck.sum(X[r, RDom(0, 64, "k")])
    F.cores([c])
    with pytest.raises(ck.Error, match=r"F\.cores\(c\): c is F's innermost loop, along its rows; .*give it r"):
        ck.compile(F)


def test_cube_cores_on_a_loop_the_func_does_not_have():
    A, B = Input("A", "f16", [64, 64]), Input("B", "f16", [64, 64])
    m, n, v = Var("m"), Var("n"), Var("v")
    k = RDom(0, 64, "k")
    C = Func("C")
    C[m, n] = ck.sum(ck.cast("f32", A[m, k]) * ck.cast("f32", B[k, n]))
    mo, mi, no, ni = Var("mo"), Var("mi"), Var("no"), Var("ni")
    C.split(m, mo, mi, 32).split(n, no, ni, 32).reorder(k, ni, mi, no, mo).cores([v])
    C.stage(A, Level.L1, no).stage(B, Level.L1, no).stage(A, Level.L0A, no).stage(B, Level.L0B, no).cube(mi, ni, k)
    with pytest.raises(ck.Error, match=r"C\.cores\(v\): v is not a loop of C .*cores take its outermost pure loops "
                                       r"outside the cube \(mo, no\)"):
        ck.compile(C)


# ---- a schedule written for a big shape, on small shapes ----

def readme_schedule(M, N, K, group=1):
    """README.md's C++ schedule, in Python."""
    A, B = Input("A", "f16", [M, K]), Input("B", "f16", [K, N])
    m, n, k = Var("m"), Var("n"), RDom(0, K, "k")
    mo, mi, no, ni = Var("mo"), Var("mi"), Var("no"), Var("ni")
    ko, ki, kio, kii = RVar("ko"), RVar("ki"), RVar("kio"), RVar("kii")
    C = Func("C")
    C[m, n] = ck.sum(ck.cast("f32", A[m, k]) * ck.cast("f32", B[k, n]))
    (C.split(m, mo, mi, 128).split(n, no, ni, 128).split(k, ko, ki, 256).split(ki, kio, kii, 64)
      .reorder(kii, ni, mi, kio, ko, no, mo).cores([mo, no], group)
      .stage(A, Level.L1, ko).stage(B, Level.L1, ko).stage(A, Level.L0A, kio).stage(B, Level.L0B, kio)
      .cube(mi, ni, kii).double_buffer())
    return C


@pytest.mark.parametrize("shape", [(40, 50, 40), (100, 60, 64), (128, 128, 100), (16, 200, 7), (300, 200, 40)])
def test_readme_schedule_on_small_shapes(shape, rng):
    M, N, K = shape
    a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    out, report = readme_schedule(M, N, K).run({"A": a, "B": b})
    np.testing.assert_allclose(out, matmul_ref(a, b), rtol=1e-5, atol=1e-5)
    assert report["diagnostics"] == []


def test_readme_schedule_with_a_group_that_does_not_divide(rng):
    a = rng.uniform(-1, 1, (640, 64)).astype(np.float16)  # 5 m tiles of 128, in groups of 2, 2 and 1
    b = rng.uniform(-1, 1, (64, 384)).astype(np.float16)
    out, report = readme_schedule(640, 384, 64, group=2).run({"A": a, "B": b})
    np.testing.assert_allclose(out, matmul_ref(a, b), rtol=1e-5, atol=1e-5)
    assert report["diagnostics"] == []


def test_matmul_core_group_that_does_not_divide(rng):
    a = rng.uniform(-1, 1, (200, 64)).astype(np.float16)
    b = rng.uniform(-1, 1, (64, 150)).astype(np.float16)
    c, report = kernels.matmul(a, b, core_group=2)
    np.testing.assert_allclose(c, matmul_ref(a, b), rtol=1e-5, atol=1e-5)
    assert_report(report)
    assert report["diagnostics"] == []


def test_matmul_tile_larger_than_the_shape(rng):
    a = rng.uniform(-1, 1, (16, 16)).astype(np.float16)
    c, report = kernels.matmul(a, a, tm=4096, tn=512, tk_l1=1024)
    np.testing.assert_allclose(c, matmul_ref(a, a), rtol=1e-5, atol=1e-5)
    assert report["diagnostics"] == []


def test_a_chain_of_funcs_each_calling_the_last_twice():
    """f_i = f_{i-1} * 0.5 + f_{i-1}, 40 deep: each Func is computed once per tile (the program is
    small), and the compiler reads each Func's definition once. Walks that followed every call
    took 2^N steps: 13 Funcs compiled in 53 s, 60 never finished."""
    X = ck.Input("X", "f32", [16, 32])
    r, c = ck.Var("r"), ck.Var("c")
    f = None
    for i in range(40):
        g = ck.Func(f"f{i}")
        g[r, c] = (X[r, c] * 0.5 + X[r, c]) if f is None else (f[r, c] * 0.5 + f[r, c])
        f = g
    x = np.linspace(-1, 1, 16 * 32, dtype=np.float32).reshape(16, 32)
    out, report = f.run({"X": x}, chip="ascend910b2", raise_on_diagnostics=True)
    np.testing.assert_allclose(out, x * np.float32(1.5) ** 40, rtol=1e-5)
