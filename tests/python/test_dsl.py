"""The DSL: Var/RVar/RDom/Input/Func, expressions, every schedule primitive, compile/run/reference.

Every Func is checked against numpy; a few also against reference() (Halide on the CPU, which
JIT-compiles, ~1 s each, so it is used sparingly).
"""
import json
import numpy as np
import pytest

import cubekit as ck
from cubekit import Expr, Func, Input, Level, RDom, RVar, Var
from conftest import assert_report, f32, matmul_ref

ROWS, COLS = 8, 64


# ---- the objects ----

def test_variables_and_inputs():
    r, q, k = Var("r"), RVar("q"), RDom(2, 5, "k")
    assert (r.name, q.name, k.name) == ("r", "q", "k")
    assert isinstance(k, RVar)
    assert Var().name != Var().name  # unnamed variables get distinct names
    a = Input("A", "f16", [4, 8])
    assert (a.name, a.dtype, a.shape) == ("A", "f16", [4, 8])
    assert Input("B", np.float32, [3]).dtype == "f32"
    assert Input("C", np.dtype("int8"), [3]).dtype == "s8"
    call = a[r, k]
    assert isinstance(call, Expr) and str(call) == "A(r, k)" and call.dtype == "f16"
    assert str(Input("V", "f32", [4])[r]) == "V(r)"  # one index needs no tuple


def test_func_properties():
    a = Input("A", "f32", [ROWS, COLS])
    r, c = Var("r"), Var("c")
    f = Func("F")
    assert (f.name, f.defined, repr(f)) == ("F", False, "<Func F>")
    f[r, c] = ck.cast("f16", a[r, c])
    assert f.defined and f.dtype == "f16" and f.shape() == [ROWS, COLS]
    g = Func("G")
    g[r, c] = f[r, c] * 2
    assert str(f[r, c]) == "F(r, c)" and g.dtype == "f16"


def test_expression_operators_build_the_tree():
    a, b = Input("A", "f32", [4]), Input("B", "f32", [4])
    i = Var("i")
    x, y = a[i], b[i]
    cases = [  # pairs, not a dict: Expr is unhashable (== builds an expression)
        (x + y, "(A(i) + B(i))"), (x - y, "(A(i) - B(i))"), (x * y, "(A(i) * B(i))"), (x / y, "(A(i) / B(i))"),
        (-x, "-A(i)"), (x + 1, "(A(i) + 1)"), (1 + x, "(1 + A(i))"), (2.5 - x, "(2.5 - A(i))"),
        (2 * x, "(2 * A(i))"), (1 / x, "(1 / A(i))"),
        (x < y, "(A(i) < B(i))"), (x <= 1, "(A(i) <= 1)"), (x > y, "(A(i) > B(i))"), (x >= 0.5, "(A(i) >= 0.5)"),
        (x == y, "(A(i) == B(i))"), (x != y, "(A(i) != B(i))"),
        (ck.min(x, y), "min(A(i), B(i))"), (ck.max(x, 0), "max(A(i), 0)"), (ck.exp(x), "exp(A(i))"),
        (ck.log(x), "log(A(i))"), (ck.sqrt(x), "sqrt(A(i))"), (ck.abs(x), "abs(A(i))"),
        (ck.cast("f16", x), "cast(f16, A(i))"), (ck.select(x < y, x, y), "select((A(i) < B(i)), A(i), B(i))"),
    ]
    for e, text in cases:
        assert isinstance(e, Expr) and str(e) == text and repr(e) == f"<Expr {text}>"
    assert (x + 1).dtype == "f32" and ck.cast(np.float16, x).dtype == "f16"
    # Vars and RVars are integer index expressions.
    k = RDom(0, 4, "k")
    assert str(i + 1) == "(i + 1)" and str(2 * i) == "(2 * i)" and str(i - k) == "(i - k)" and str(1 - k) == "(1 - k)"
    assert (i * 3).dtype == "s32" and Expr(i).dtype == "s32" and str(Expr(k)) == "k"
    assert Expr(1.5).dtype == "f32" and str(Expr(7)) == "7"
    # Reductions.
    assert str(ck.sum(a[k])) == "sum(A(k))" and str(ck.maximum(a[k])) == "maximum(A(k))"
    assert str(ck.minimum(a[k] * 2)) == "minimum((A(k) * 2))"


# ---- vector Funcs: every operator and function, against numpy ----

@pytest.fixture
def xy(rng):
    xs = rng.uniform(0.25, 2.0, (ROWS, COLS)).astype(np.float32)
    ys = rng.uniform(0.25, 2.0, (ROWS, COLS)).astype(np.float32)
    ys[:, ::4] = xs[:, ::4]  # some equal elements for == and !=
    return xs, ys


def xy_func(name="F"):
    return Input("X", "f32", [ROWS, COLS]), Input("Y", "f32", [ROWS, COLS]), Var("r"), Var("c"), Func(name)


def test_arithmetic_operators_run(xy):
    xs, ys = xy
    X, Y, r, c, F = xy_func()
    x, y = X[r, c], Y[r, c]
    F[r, c] = (x + y) * 2.0 - y / 4.0 + 1 - (-x) + 3.0 * x - 1.5 / y + (2 - x) * (x * 0.5)
    expected = (xs + ys) * 2 - ys / 4 + 1 + xs + 3 * xs - 1.5 / ys + (2 - xs) * (xs * 0.5)
    out, report = F.run({"X": xs, "Y": ys})
    assert out.dtype == np.float32 and out.shape == (ROWS, COLS)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
    assert_report(report)
    assert report["pipes"]["V"]["instructions"] > 0 and report["pipes"]["M"]["instructions"] == 0


def test_comparisons_and_select_run(xy):
    xs, ys = xy
    X, Y, r, c, F = xy_func()
    x, y = X[r, c], Y[r, c]
    F[r, c] = (ck.select(x < y, x, y) + ck.select(x <= y, 1.0, 0.0) + ck.select(x > y, 2.0, 0.0)
               + ck.select(x >= y, 4.0, 0.0) + ck.select(x == y, 8.0, 0.0) + ck.select(x != y, 16.0, 0.0))
    expected = (np.where(xs < ys, xs, ys) + (xs <= ys) + 2.0 * (xs > ys) + 4.0 * (xs >= ys) + 8.0 * (xs == ys)
                + 16.0 * (xs != ys))
    out, _ = F.run({"X": xs, "Y": ys})
    np.testing.assert_allclose(out, expected, rtol=1e-6)


def test_math_functions_min_max_and_reference(xy):
    xs, ys = xy
    X, Y, r, c, F = xy_func()
    x, y = X[r, c], Y[r, c]
    F[r, c] = ck.exp(x) + ck.log(y) + ck.sqrt(x) + ck.abs(x - y) + ck.min(x, y) + ck.max(x, 1.0) - ck.min(0.5, y)
    expected = (np.exp(xs.astype(np.float64)) + np.log(ys.astype(np.float64)) + np.sqrt(xs.astype(np.float64))
                + np.abs(xs - ys) + np.minimum(xs, ys) + np.maximum(xs, 1.0) - np.minimum(0.5, ys))
    out, _ = F.run({"X": xs, "Y": ys})
    np.testing.assert_allclose(out, expected, rtol=2e-6)
    # Halide on the CPU agrees.
    host = ck.reference(F, {"X": xs, "Y": ys})
    assert host.dtype == np.float32 and host.shape == (ROWS, COLS)
    np.testing.assert_allclose(host, expected, rtol=2e-6)
    np.testing.assert_allclose(out, host, rtol=2e-6)


def test_casts_run(rng):
    r, c = Var("r"), Var("c")
    h = Input("H", "f16", [ROWS, COLS])
    s = Input("S", np.int8, [ROWS, COLS])
    hs = rng.uniform(-4, 4, (ROWS, COLS)).astype(np.float16)
    ss = rng.integers(-128, 128, (ROWS, COLS)).astype(np.int8)
    up = Func("up")  # f16 -> f32, exact
    up[r, c] = ck.cast("f32", h[r, c]) * 2.0
    np.testing.assert_array_equal(up.run({"H": hs})[0], f32(hs) * 2)
    down = Func("down")  # f32 arithmetic, rounded to f16
    down[r, c] = ck.cast(np.float16, ck.cast("f32", h[r, c]) / 3.0)
    out = down.run({"H": hs})[0]
    assert out.dtype == np.float16
    np.testing.assert_allclose(f32(out), f32(hs) / 3, rtol=1e-3)
    ints = Func("ints")  # s8 -> f16 and on to s32
    ints[r, c] = ck.cast("s32", ck.cast("f16", s[r, c]) * 2.0)
    out = ints.run({"S": ss})[0]
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, ss.astype(np.int32) * 2)


def test_reductions_along_rows_and_reference(xy):
    xs, ys = xy
    X, Y, r, c, F = xy_func()
    k = RDom(0, COLS, "k")
    F[r, c] = X[r, c] - ck.maximum(X[r, k]) + ck.minimum(Y[r, k]) + ck.sum(X[r, k] * Y[r, k])
    dot = (xs.astype(np.float64) * ys).sum(1, keepdims=True)
    expected = xs - xs.max(1, keepdims=True) + ys.min(1, keepdims=True) + dot
    out, _ = F.run({"X": xs, "Y": ys})
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ck.reference(F, {"X": xs, "Y": ys}), expected, rtol=1e-5, atol=1e-5)


def test_funcs_calling_funcs_softmax(rng):
    """A hand-written softmax: four Funcs, per-row and full values, scheduled with cores/tile_rows/double_buffer."""
    xs = rng.standard_normal((ROWS, COLS)).astype(np.float16)
    X = Input("X", "f16", [ROWS, COLS])
    r, c = Var("r"), Var("c")
    k = RDom(0, COLS, "k")
    mx, e, s, out = Func("row_max"), Func("exp_shifted"), Func("row_sum"), Func("softmax")
    mx[r] = ck.cast("f32", ck.maximum(X[r, k]))
    e[r, c] = ck.exp(ck.cast("f32", X[r, c]) - mx[r])
    s[r] = ck.sum(e[r, k])
    out[r, c] = ck.cast("f16", e[r, c] / s[r])
    out.cores([r]).tile_rows(2).double_buffer()
    y, report = out.run({"X": xs})
    ex = np.exp(f32(xs) - f32(xs).max(1, keepdims=True))
    np.testing.assert_allclose(f32(y), ex / ex.sum(1, keepdims=True), atol=1e-3)
    assert_report(report)
    assert report["cores"] == ROWS // 2  # two rows per tile, one tile per core


# ---- vector schedules: cores, double_buffer, tile_rows, bound ----

@pytest.mark.parametrize("schedule", ["none", "cores", "cores+double_buffer", "tile_rows", "tile_rows+cores",
                                      "multi_buffer"])
def test_vector_schedules(schedule, rng):
    xs = rng.standard_normal((ROWS, COLS)).astype(np.float32)
    X = Input("X", "f32", [ROWS, COLS])
    r, c = Var("r"), Var("c")
    k = RDom(0, COLS, "k")
    F = Func("F")
    F[r, c] = X[r, c] / ck.sum(ck.abs(X[r, k]))
    if "cores" in schedule:
        assert F.cores([r]) is F  # every primitive returns the Func, for chaining
    if "double_buffer" in schedule:
        assert F.double_buffer() is F
    if "tile_rows" in schedule:
        assert F.tile_rows(4) is F
    if "multi_buffer" in schedule:  # eight one-row tiles, three copies of each UB tile filled two tiles ahead
        assert F.tile_rows(1).multi_buffer(Level.UB, 3) is F
    out, report = F.run({"X": xs})
    np.testing.assert_allclose(out, xs / np.abs(xs).sum(1, keepdims=True), rtol=1e-5, atol=1e-7)
    assert report["cores"] == {"none": 1, "tile_rows": 1, "tile_rows+cores": 2, "multi_buffer": 1}.get(schedule, report["cores"])


def test_bound_gives_an_extent(rng):
    """bound(): a variable no input implies (here r, broadcasting a per-column input over 4 rows)."""
    zs = rng.standard_normal(COLS).astype(np.float32)
    Z = Input("Z", "f32", [COLS])
    r, c = Var("r"), Var("c")
    H = Func("H")
    H[r, c] = Z[c] * 2.0 + 1.0
    with pytest.raises(ck.Error, match=r"H\.bound\(r, 0, EXTENT\)"):
        H.shape()
    assert H.bound(r, 0, 4) is H
    assert H.shape() == [4, COLS]
    out, _ = H.run({"Z": zs})
    np.testing.assert_allclose(out, np.broadcast_to(zs * 2 + 1, (4, COLS)), rtol=1e-6)


# ---- cube Funcs: split, tile, reorder, cores, stage, cube, store_in, double_buffer, multi_buffer, stagger ----

def matmul_func(m, n, k, batch=0):
    sh = lambda r, c: ([batch] if batch else []) + [r, c]  # noqa: E731
    A, B = Input("A", "f16", sh(m, k)), Input("B", "f16", sh(k, n))
    b, mv, nv = Var("b"), Var("m"), Var("n")
    kd = RDom(0, k, "k")
    C = Func("C")
    if batch:
        C[b, mv, nv] = ck.sum(ck.cast("f32", A[b, mv, kd]) * ck.cast("f32", B[b, kd, nv]))
    else:
        C[mv, nv] = ck.sum(ck.cast("f32", A[mv, kd]) * ck.cast("f32", B[kd, nv]))
    return A, B, C, b, mv, nv, kd


def hand_schedule(C, A, B, m, n, k):
    """As examples/cpp/matmul_schedule.cpp, smaller: split, reorder (a list), cores, stage, cube, double_buffer."""
    mo, mi, no, ni = Var("mo"), Var("mi"), Var("no"), Var("ni")
    ko, ki, kio, kii = RVar("ko"), RVar("ki"), RVar("kio"), RVar("kii")
    C.split(m, mo, mi, 32).split(n, no, ni, 32).split(k, ko, ki, 64).split(ki, kio, kii, 32)
    C.reorder([kii, ni, mi, kio, ko, no, mo])
    C.cores([mo, no])
    C.stage(A, Level.L1, ko).stage(B, Level.L1, ko).stage(A, Level.L0A, kio).stage(B, Level.L0B, kio)
    C.cube(mi, ni, kii)
    C.double_buffer()


def deep_schedule(C, A, B, m, n, k):
    """tile, reorder (varargs), cores with a group, store_in, multi_buffer and stagger."""
    mo, mi, no, ni = Var("mo"), Var("mi"), Var("no"), Var("ni")
    ko, ki, kio, kii = RVar("ko"), RVar("ki"), RVar("kio"), RVar("kii")
    (C.tile(m, n, mo, no, mi, ni, 32, 16).split(k, ko, ki, 64).split(ki, kio, kii, 32)
      .reorder(kii, ni, mi, kio, ko, no, mo).cores([mo, no], 2)
      .stage(A, Level.L1, ko).stage(B, Level.L1, ko).stage(A, Level.L0A, kio).stage(B, Level.L0B, kio)
      .cube(mi, ni, kii).store_in(Level.L0C).double_buffer().multi_buffer(Level.L1, 3).stagger())


def minimal_schedule(C, A, B, m, n, k):
    """One core, the whole k at once: split m and n only."""
    mo, mi, no, ni = Var("mo"), Var("mi"), Var("no"), Var("ni")
    C.split(m, mo, mi, 32).split(n, no, ni, 32).reorder(k, ni, mi, no, mo)
    C.stage(A, Level.L1, no).stage(B, Level.L1, no).stage(A, Level.L0A, no).stage(B, Level.L0B, no).cube(mi, ni, k)


@pytest.mark.parametrize("schedule,shape", [
    (hand_schedule, (64, 64, 128)),
    (hand_schedule, (80, 48, 200)),   # partial tiles in m, n and k
    (deep_schedule, (64, 64, 256)),
    (minimal_schedule, (48, 40, 72)),
], ids=["hand", "hand-partial", "deep", "minimal"])
def test_cube_schedules(schedule, shape, rng):
    M, N, K = shape
    A, B, C, _, m, n, k = matmul_func(M, N, K)
    schedule(C, A, B, m, n, k)
    a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    p = ck.compile(C)
    assert isinstance(p, ck.Program) and p.name == "C"
    assert isinstance(p.compile_ms, float) and p.compile_ms > 0
    assert [t["name"] for t in p.tensors] == ["A", "B", "C"]
    out, report = ck.run(p, {"A": a, "B": b})
    np.testing.assert_allclose(out["C"], matmul_ref(a, b), rtol=1e-5, atol=1e-5)
    assert_report(report)
    assert report["diagnostics"] == []  # the generated synchronisation is clean
    assert report["pipes"]["M"]["instructions"] > 0  # on the cube
    # Func.run compiles and runs the same program.
    c2, report2 = C.run({"A": a, "B": b})
    np.testing.assert_array_equal(c2, out["C"])
    assert report2["cycles"] == report["cycles"]


def test_buffering_directives_change_the_program(rng):
    """double_buffer, multi_buffer and stagger each change the generated program, never the result."""
    a = rng.uniform(-1, 1, (64, 256)).astype(np.float16)
    b = rng.uniform(-1, 1, (256, 64)).astype(np.float16)
    texts, results = {}, {}
    for extra in ("", "double_buffer", "multi_buffer", "stagger"):
        A, B, C, _, m, n, k = matmul_func(64, 64, 256)
        mo, mi, no, ni = Var("mo"), Var("mi"), Var("no"), Var("ni")
        ko, ki = RVar("ko"), RVar("ki")
        C.split(m, mo, mi, 32).split(n, no, ni, 32).split(k, ko, ki, 64).reorder(ki, ni, mi, ko, no, mo).cores([mo, no])
        C.stage(A, Level.L1, ko).stage(B, Level.L1, ko).stage(A, Level.L0A, ko).stage(B, Level.L0B, ko).cube(mi, ni, ki)
        if extra == "double_buffer":
            C.double_buffer()
        elif extra == "multi_buffer":
            C.multi_buffer(Level.L1, 3)
        elif extra == "stagger":
            C.stagger()
        p = ck.compile(C)
        texts[extra] = p.text()
        results[extra] = ck.run(p, {"A": a, "B": b})[0]["C"]
        np.testing.assert_allclose(results[extra], matmul_ref(a, b), rtol=1e-5, atol=1e-5, err_msg=extra)
    assert len(set(texts.values())) == 4


def test_cube_batch_schedule(rng):
    A, B, C, b, m, n, k = matmul_func(32, 32, 64, batch=3)
    C.reorder(k, n, m, b).cores([b])
    C.stage(A, Level.L1, b).stage(B, Level.L1, b).stage(A, Level.L0A, b).stage(B, Level.L0B, b).cube(m, n, k)
    a = rng.uniform(-1, 1, (3, 32, 64)).astype(np.float16)
    bb = rng.uniform(-1, 1, (3, 64, 32)).astype(np.float16)
    out, report = C.run({"A": a, "B": bb})
    np.testing.assert_allclose(out, matmul_ref(a, bb), rtol=1e-5, atol=1e-5)
    assert report["cores"] == 3


def test_cube_and_reference_agree(rng):
    A, B, C, _, m, n, k = matmul_func(32, 48, 64)
    minimal_schedule(C, A, B, m, n, k)
    a = rng.uniform(-1, 1, (32, 64)).astype(np.float16)
    b = rng.uniform(-1, 1, (64, 48)).astype(np.float16)
    host = ck.reference(C, {"A": a, "B": b})
    np.testing.assert_allclose(host, matmul_ref(a, b), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(C.run({"A": a, "B": b})[0], host, rtol=1e-5, atol=1e-5)


def test_epilogue_of(rng):
    """D = f16(relu(0.5 C + bias)) computed on C's way out of L0C; compile D."""
    M, N, K = 64, 64, 128
    A, B, C, _, m, n, k = matmul_func(M, N, K)
    hand_schedule(C, A, B, m, n, k)
    bias = Input("bias", "f32", [N])
    D = Func("D")
    D[m, n] = ck.cast("f16", ck.max(C[m, n] * 0.5 + bias[n], 0.0))
    assert D.epilogue_of(C) is D
    a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    bs = rng.standard_normal(N).astype(np.float32)
    p = ck.compile(D)
    assert [(t["name"], t["role"]) for t in p.tensors] == [("A", "in"), ("B", "in"), ("bias", "in"), ("D", "out")]
    assert "C" not in [t["name"] for t in p.tensors]  # C never goes to GM
    out, report = ck.run(p, {"A": a, "B": b, "bias": bs})
    expected = np.maximum(matmul_ref(a, b) * 0.5 + bs, 0)
    assert out["D"].dtype == np.float16
    np.testing.assert_allclose(f32(out["D"]), expected, rtol=2e-3, atol=1e-3)
    host = ck.reference(D, {"A": a, "B": b, "bias": bs})
    np.testing.assert_allclose(f32(host), expected, rtol=2e-3, atol=1e-3)


def test_timing_only_and_trace_through_func_run(tmp_path, rng):
    A, B, C, _, m, n, k = matmul_func(64, 64, 128)
    hand_schedule(C, A, B, m, n, k)
    a = rng.uniform(-1, 1, (64, 128)).astype(np.float16)
    b = rng.uniform(-1, 1, (128, 64)).astype(np.float16)
    _, full = C.run({"A": a, "B": b}, chip="ascend910", trace=str(tmp_path / "t.json"))
    assert (tmp_path / "t.json").stat().st_size > 0
    # Slices and hot spots name lines of the program `cubekit compile` prints (they all said line 0).
    slices = [e for e in json.loads((tmp_path / "t.json").read_text())["traceEvents"] if e.get("ph") == "X"]
    assert min(e["args"]["line"] for e in slices) > 0 and all(h["line"] > 0 for h in full["hot_spots"])
    _, timing = C.run({}, timing_only=True, chip=ck.chip())
    assert timing["timing_only"] is True and timing["cycles"] == full["cycles"]
    out, timing = C.run({"A": a, "B": b}, timing_only=True)  # checked, not copied: the result is zeros
    assert timing["cycles"] == full["cycles"]
    np.testing.assert_array_equal(out, np.zeros((64, 64), np.float32))
    with pytest.raises(ck.Error, match=r"input 'A': the array is float32 but the tensor is f16"):
        C.run({"A": a.astype(np.float32), "B": b}, timing_only=True)


def test_default_schedule_of_a_contraction_is_matmuls(rng):
    """A product written by hand, with A stored transposed, gets kernels.matmul's schedule: the same cycles."""
    a_t = rng.uniform(-1, 1, (150, 200)).astype(np.float16)  # k x m
    b = rng.uniform(-1, 1, (150, 96)).astype(np.float16)
    A, B = Input("A", "f16", [150, 200]), Input("B", "f16", [150, 96])
    m, n, k = Var("m"), Var("n"), RDom(0, 150, "k")
    C = Func("C")
    C[m, n] = ck.sum(ck.cast("f32", A[k, m]) * ck.cast("f32", B[k, n]))
    s = ck.default_schedule(C)
    assert isinstance(s, ck.Schedule) and len(s) > 3 and len(C.schedule) == 0  # C is left as it is
    out, report = C.run({"A": a_t, "B": b}, schedule=s)
    np.testing.assert_allclose(out, matmul_ref(a_t.T, b), rtol=1e-4, atol=1e-4)
    assert_report(report)
    _, same = ck.kernels.matmul(a_t, b, transpose_a=True, timing_only=True)
    assert report["cycles"] == same["cycles"] and report["cores"] > 1


def test_default_schedule_overrides_and_naive(rng):
    a = rng.uniform(-1, 1, (64, 256)).astype(np.float16)
    b = rng.uniform(-1, 1, (256, 64)).astype(np.float16)
    cycles = {}
    # One Func, two schedules side by side.
    A, B = Input("A", "f16", [64, 256]), Input("B", "f16", [256, 64])
    m, n, k = Var("m"), Var("n"), RDom(0, 256, "k")
    C = Func("C")
    C[m, n] = ck.sum(ck.cast("f32", A[m, k]) * ck.cast("f32", B[k, n]))
    for name, kwargs in [("naive", {"schedule": "naive"}), ("tm32", {"tm": 32, "stagger": False})]:
        out, report = C.run({"A": a, "B": b}, schedule=ck.default_schedule(C, **kwargs))
        np.testing.assert_allclose(out, matmul_ref(a, b), rtol=1e-4, atol=1e-4)
        _, same = ck.kernels.matmul(a, b, timing_only=True, **kwargs)
        assert report["cycles"] == same["cycles"], name
        cycles[name] = report["cycles"]
    assert cycles["naive"] > cycles["tm32"]


def test_default_schedule_of_a_vector_func(rng):
    x = rng.uniform(-2, 2, (128, 512)).astype(np.float16)
    X = Input("X", "f16", [128, 512])
    r, c = Var("r"), Var("c")
    F, G = Func("F"), Func("G")
    F[r, c] = ck.max(X[r, c] * 2 + 1, 0)
    G[r, c] = ck.max(X[r, c] * 2 + 1, 0)
    _, plain = F.run({"X": x})
    G.schedule = ck.default_schedule(G)
    assert G.schedule.calls == ["cores(r)", "double_buffer()"]
    out, report = G.run({"X": x})
    np.testing.assert_allclose(f32(out), np.maximum(f32(x) * 2 + 1, 0), rtol=1e-3, atol=1e-3)
    assert report["cores"] > plain["cores"] and report["cycles"] < plain["cycles"]


def test_default_schedule_errors():
    A, B = Input("A", "f16", [32, 32]), Input("B", "f16", [32, 32])
    m, n, k = Var("m"), Var("n"), RDom(0, 32, "k")
    C = Func("C")
    with pytest.raises(ck.Error, match=r"default_schedule\(C\): define C first"):
        ck.default_schedule(C)
    C[m, n] = ck.sum(ck.cast("f32", A[m, k]) * ck.cast("f32", B[k, n]))
    with pytest.raises(ck.Error, match=r"unknown option 'm' \(the shape and types come from the Func\)"):
        ck.default_schedule(C, m=64)
    with pytest.raises(ck.Error, match=r"C.schedule = cubekit.default_schedule\(C\) in Python"):
        ck.compile(C)
    with pytest.raises(ck.Error, match=r"compile\(C\): schedule= takes a cubekit.Schedule .*not str"):
        ck.compile(C, schedule="default")


def test_a_schedule_value_compiles_beside_the_funcs_own():
    a = np.ones((64, 64), np.float16)
    A, B = Input("A", "f16", [64, 64]), Input("B", "f16", [64, 64])
    m, n, k = Var("m"), Var("n"), RDom(0, 64, "k")
    mo, mi, no, ni = Var("mo"), Var("mi"), Var("no"), Var("ni")
    C = Func("C")
    C[m, n] = ck.sum(ck.cast("f32", A[m, k]) * ck.cast("f32", B[k, n]))
    C.schedule = ck.default_schedule(C, schedule="naive")
    s = ck.Schedule().tile(n, m, no, mo, ni, mi, 32, 32).cores([mo, no])
    s.stage(A, Level.L1, no).stage(B, Level.L1, no).stage(A, Level.L0A, no).stage(B, Level.L0B, no).cube(mi, ni, k)
    assert str(s).startswith(".split(n, no, ni, 32).split(m, mo, mi, 32)")
    assert list(RDom([(0, 2), (0, 3)], "r"))[1].name == "r.y"  # an RDom iterates over its RVars
    D = Func("D")
    D[m, n] = ck.sum(ck.cast("f32", A[m, k]) * ck.cast("f32", B[k, n]))
    D.schedule.double_buffer()  # calls on a Func's schedule add to it
    assert D.schedule.calls == ["double_buffer()"]
    own, _ = C.run({"A": a, "B": a})
    other, report = C.run({"A": a, "B": a}, schedule=s)
    np.testing.assert_array_equal(own, np.full((64, 64), 64, np.float32))
    np.testing.assert_array_equal(other, own)
    assert report["cores"] == 4


# ---- convolution in the DSL: multi-dimensional RDoms, affine reads, boundary conditions ----

def test_conv2d_reference_matches_numpy():
    # torch.nn.functional.conv2d's meaning (stride 2, padding 1, two groups), NCHW, computed by reference().
    n, c, h, w, k, kh, kw, s, p, g = 2, 4, 9, 7, 6, 3, 3, 2, 1, 2
    cg, kg = c // g, k // g
    oh, ow = (h + 2 * p - kh) // s + 1, (w + 2 * p - kw) // s + 1
    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 1, (n, c, h, w)).astype(np.float16)
    wt = rng.uniform(-1, 1, (k, cg, kh, kw)).astype(np.float16)
    I, W = Input("I", "f16", [n, c, h, w]), Input("W", "f16", [k, cg, kh, kw])
    vn, vk, y, xo = Var("n"), Var("k"), Var("y"), Var("x")
    r = RDom([(0, cg), (0, kh), (0, kw)], "r")
    assert (len(r), r.dimensions, r[1].name) == (3, 3, "r.y")
    E = ck.constant_exterior(I, 0)
    O = Func("O")
    O[vn, vk, y, xo] = ck.sum(ck.cast("f32", E[vn, vk // kg * cg + r.x, y * s + r.y - p, xo * s + r.z - p])
                              * ck.cast("f32", W[vk, r.x, r.y, r.z]))
    O.bound(y, 0, oh).bound(xo, 0, ow)
    got = ck.reference(O, {"I": x, "W": wt})
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (p, p), (p, p)))
    want = np.zeros((n, k, oh, ow))
    for kk in range(k):
        gi = kk // kg
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, gi * cg:(gi + 1) * cg, i:i + s * oh:s, j:j + s * ow:s]
                want[:, kk] += np.einsum("nchw,c->nhw", patch, wt[kk, :, i, j].astype(np.float64))
    assert got.shape == (n, k, oh, ow) and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_reads_outside_the_input_are_refused():
    A = Input("A", "f32", [8])
    i = Var("i")
    F = Func("F")
    F[i] = A[i + 1]
    F.bound(i, 0, 8)
    with pytest.raises(ck.Error, match=r"the read `A\(\(i \+ 1\)\)` can leave A.*constant_exterior"):
        ck.reference(F, {"A": np.zeros(8, np.float32)})
    with pytest.raises(ck.Error, match="RDom r has 2 dimensions; r.z is not one of them"):
        RDom([(0, 2), (0, 3)], "r").z + 1


@pytest.mark.parametrize("dtype,cols", [("f32", 8), ("f32", 16), ("f32", 32), ("f32", 64), ("f16", 16), ("f16", 64),
                                        ("f16", 128), ("f32", 24)])
@pytest.mark.parametrize("rows", [13, 35, 128])
def test_short_row_reductions_match_numpy(rng, dtype, cols, rows):
    """Rows of 1, 2, 4 or 8 whole 32 B blocks reduce 8 rows a repeat (the blocks folded, then vcgmax
    and the like); other widths as before. Max and min exactly, sums within the dtype's rounding."""
    np_type = np.float16 if dtype == "f16" else np.float32
    x = rng.uniform(-4, 4, (rows, cols)).astype(np_type)
    X = Input("X", dtype, [rows, cols])
    r, k = Var("r"), RDom(0, cols, "k")
    for name, reduce, want, exact in [("mx", ck.maximum, x.max(1), True), ("mn", ck.minimum, x.min(1), True),
                                      ("sm", ck.sum, x.astype(np.float64).sum(1), False)]:
        F = Func(name)
        F[r] = reduce(X[r, k])
        out, report = F.run({"X": x}, raise_on_diagnostics=True)
        if exact:
            np.testing.assert_array_equal(out, want.astype(np_type))
        else:
            np.testing.assert_allclose(out.astype(np.float64), want, rtol=2e-3 if dtype == "f16" else 1e-5, atol=0.05 if dtype == "f16" else 1e-4)


def test_an_input_is_a_key_as_its_name():
    X = ck.Input("X", "f32", [2, 6])
    r, c = ck.Var("r"), ck.Var("c")
    g = ck.Func("G")
    g[r, c] = X[r, c] * 2.0
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    np.testing.assert_array_equal(g.run({X: x})[0], x * 2)
    np.testing.assert_array_equal(ck.reference(g, {X: x}), x * 2)
    with pytest.raises(ck.Error, match="input 'X' is given twice"):
        g.run({X: x, "X": x})


def test_numbers_and_levels_the_types_cannot_hold_are_refused():
    c = ck.Var("c")
    with pytest.raises(ck.Error, match=r"0.5 is not a whole number, and c is s32"):
        c * 0.5  # it was c * 0: an index X[r, c * 0.5] read X[r, 0]
    assert (c * 2.0).dtype == "s32"
    g = ck.Func("G")
    with pytest.raises(ck.Error, match=r"G.multi_buffer: Level\(99\) is not a buffer level"):
        g.multi_buffer(ck.Level(99), 2)  # it crashed with std::bad_alloc
