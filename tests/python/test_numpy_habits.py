"""cubekit.kernels with numpy's habits, numpy as the reference: broadcasting of every kind (Python
scalars, one-element arrays, rows, columns, leading 1s, rank mismatch, outer and middle
broadcasts), f16/f32 promotion, the elementwise functions, reductions with axis and keepdims,
axis for softmax and the norms, empty arrays, raise_on_diagnostics, where."""
import json

import numpy as np
import pytest

import cubekit as ck
from cubekit import kernels
from conftest import assert_report, run_cli

TYPES = [np.float16, np.float32]
BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "maximum": np.maximum,
          "minimum": np.minimum}


def tolerance(dtype, op="add"):
    """f16 / f32 results rounded once (division by a broadcast operand: a reciprocal and a multiply)."""
    eps = 2.0**-10 if np.dtype(dtype) == np.float16 else 2.0**-23
    return (4 if op == "div" else 1) * eps


def check_like_numpy(op, x, y, out, report):
    want = BINARY[op](x, y)
    assert out.dtype == want.dtype and out.shape == want.shape, (out.dtype, want.dtype, out.shape, want.shape)
    exact = BINARY[op](np.asarray(x, np.float64), np.asarray(y, np.float64))
    np.testing.assert_allclose(out.astype(np.float64), exact, rtol=tolerance(want.dtype, op), atol=1e-30)
    assert report["launched"] and report["diagnostics"] == []


def operands(rng, shape, dtype):
    a = rng.uniform(0.5, 2.0, shape) * rng.choice([-1, 1], shape)  # away from 0, so division is tame
    return np.asarray(a).astype(dtype)


# (name, x shape, y shape, whether the host materialises a broadcast)
BROADCASTS = [
    ("same", (7, 33), (7, 33), False),
    ("odd-1d", (1001,), (1001,), False),
    ("row", (7, 33), (33,), False),
    ("row-2d", (7, 33), (1, 33), False),
    ("column", (7, 33), (7, 1), False),
    ("row-first", (33,), (7, 33), False),
    ("leading-1s", (1, 1, 7, 33), (5, 1, 7, 33), False),
    ("rank-mismatch", (3, 5, 40), (5, 40), False),
    ("column-3d", (3, 5, 40), (3, 5, 1), False),
    ("outer", (7, 1), (1, 33), True),
    ("middle", (3, 1, 40), (3, 5, 40), True),
]


@pytest.mark.parametrize("dtype", TYPES, ids=["f16", "f32"])
@pytest.mark.parametrize("case", BROADCASTS, ids=[b[0] for b in BROADCASTS])
@pytest.mark.parametrize("op", list(BINARY))
def test_binary_broadcasts_as_numpy(rng, op, case, dtype):
    _, xs, ys, host = case
    x, y = operands(rng, xs, dtype), operands(rng, ys, dtype)
    out, report = getattr(kernels, op)(x, y)
    check_like_numpy(op, x, y, out, report)
    assert ("host" in report) == host, report.get("host")
    if not host:  # the broadcast operand is read once per core at most, not expanded
        cores = report["cores"]
        assert report["bytes"]["GM->UB"] <= x.nbytes + y.nbytes * max(cores, 1) + 64 * cores


@pytest.mark.parametrize("dtype", TYPES, ids=["f16", "f32"])
@pytest.mark.parametrize("op", list(BINARY))
def test_scalars_on_either_side(rng, op, dtype):
    x = operands(rng, (9, 45), dtype)
    for y in (2.5, -3, np.float32(0.75), np.array([1.5], dtype), np.array(0.25, np.float32)):
        out, report = getattr(kernels, op)(x, y)
        check_like_numpy(op, x, y, out, report)
        out, report = getattr(kernels, op)(y, x)
        check_like_numpy(op, y, x, out, report)
        assert "host" not in report


def test_f16_with_f32_promotes_like_numpy(rng):
    x, y = operands(rng, (6, 50), np.float16), operands(rng, (50,), np.float32)
    for op in BINARY:
        out, report = getattr(kernels, op)(x, y)
        assert out.dtype == np.float32
        check_like_numpy(op, x, y, out, report)


def test_two_one_element_operands_promote_like_numpy():
    # numpy reads a 0-d array as a scalar: its type yields to the array's where the kinds agree
    for x, y in [(np.array(1.5, np.float32), np.ones((1,), np.float16)),
                 (np.ones((1,), np.float16), np.array(1.5, np.float32)),
                 (np.ones((1,), np.float32), np.array(1.5, np.float16))]:
        for op in ("add", "minimum"):
            out, _ = getattr(kernels, op)(x, y)
            want = getattr(np, op)(x, y)
            assert out.dtype == want.dtype and out.shape == want.shape
            np.testing.assert_array_equal(out, want)


def test_shapes_that_do_not_broadcast():
    with pytest.raises(ck.Error, match=r"^sub: x \(4, 16\) and y \(3,\) do not broadcast \(numpy's rule"):
        kernels.sub(np.ones((4, 16), np.float16), np.ones(3, np.float16))
    with pytest.raises(ck.Error, match=r"^add: x and y are both numbers"):
        kernels.add(1.0, 2.0)
    with pytest.raises(ck.Error, match=r"^mul: y must be a numpy array \(float16 or float32\) or a number, got list"):
        kernels.mul(np.ones(4, np.float16), [1, 2, 3, 4])


UNARY = {
    "exp": np.exp, "tanh": np.tanh,
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "silu": lambda x: x / (1 + np.exp(-x)),
}


@pytest.mark.parametrize("dtype", TYPES, ids=["f16", "f32"])
@pytest.mark.parametrize("shape", [(13,), (7, 33), (2, 3, 129), ()], ids=["1d", "2d", "3d", "0d"])
@pytest.mark.parametrize("name", list(UNARY))
def test_elementwise_functions(rng, name, shape, dtype):
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    out, report = getattr(kernels, name)(x)
    assert out.dtype == x.dtype and out.shape == x.shape
    want = UNARY[name](x.astype(np.float64))
    tol = 2e-3 if dtype == np.float16 else 2e-6
    np.testing.assert_allclose(out.astype(np.float64), want, rtol=tol, atol=tol)
    assert report["launched"] and report["diagnostics"] == []


def test_extreme_inputs_stay_finite(rng):
    x = np.array([-100, -30, -1e-4, 0, 1e-4, 30, 100], np.float32)
    np.testing.assert_allclose(kernels.tanh(x)[0], np.tanh(x), atol=1e-6)
    np.testing.assert_allclose(kernels.sigmoid(x)[0], 1 / (1 + np.exp(-x.astype(np.float64))), atol=1e-7)
    assert np.all(np.isfinite(kernels.silu(x)[0]))


@pytest.mark.parametrize("dtype", TYPES, ids=["f16", "f32"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1, 2, (0, 2), (1, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("name", ["sum", "max", "min", "mean"])
def test_reductions_like_numpy(rng, name, axis, keepdims, dtype):
    x = rng.uniform(-1, 1, (3, 5, 77)).astype(dtype)
    out, report = getattr(kernels, name)(x, axis=axis, keepdims=keepdims)
    want = getattr(np, name)(x, axis=axis, keepdims=keepdims)
    assert out.dtype == want.dtype and out.shape == want.shape
    if name in ("max", "min"):
        np.testing.assert_array_equal(out, want)  # exact
    else:
        exact = getattr(np, name)(x.astype(np.float64), axis=axis, keepdims=keepdims)
        tol = 2e-3 if dtype == np.float16 else 1e-5
        np.testing.assert_allclose(out.astype(np.float64), exact, rtol=tol, atol=tol * (77 if name == "sum" else 1))
    assert_report(report)
    last = axis in (-1, 2, (1, 2), None)
    assert ("host" in report) == (not last), report.get("host")


def test_reduction_of_a_1d_and_0d_array(rng):
    v = rng.standard_normal(1000).astype(np.float32)
    s, report = kernels.sum(v)
    assert s.shape == () and s == pytest.approx(float(v.astype(np.float64).sum()), rel=1e-5)
    assert report["launched"]
    m, _ = kernels.max(np.array(3.5, np.float16))
    assert m.shape == () and m == 3.5


@pytest.mark.parametrize("name", ["softmax", "layernorm", "rmsnorm"])
@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_axis_for_softmax_and_the_norms(rng, name, axis):
    x = rng.standard_normal((6, 5, 40)).astype(np.float32)
    n = x.shape[axis]
    g, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    xd = np.moveaxis(x.astype(np.float64), axis, -1)
    if name == "softmax":
        out, report = kernels.softmax(x, axis=axis)
        e = np.exp(xd - xd.max(-1, keepdims=True))
        want = e / e.sum(-1, keepdims=True)
    elif name == "layernorm":
        out, report = kernels.layernorm(x, g, b, axis=axis)
        want = (xd - xd.mean(-1, keepdims=True)) / np.sqrt(xd.var(-1, keepdims=True) + 1e-5) * g + b
    else:
        out, report = kernels.rmsnorm(x, g, axis=axis)
        want = xd / np.sqrt((xd ** 2).mean(-1, keepdims=True) + 1e-5) * g
    assert out.shape == x.shape and out.dtype == x.dtype
    np.testing.assert_allclose(out, np.moveaxis(want, -1, axis), rtol=1e-4, atol=1e-5)
    assert ("host" in report) == (axis in (0, 1))


def test_softmax_of_a_vector(rng):
    v = rng.standard_normal(300).astype(np.float16)
    out, _ = kernels.softmax(v)
    e = np.exp(v.astype(np.float64) - v.max())
    np.testing.assert_allclose(out.astype(np.float64), e / e.sum(), atol=1e-3)


# ---- empty arrays: an empty result, no launch ----

E = np.zeros((0, 5), np.float16)
EMPTY_CALLS = {
    "add": lambda **kw: kernels.add(E, np.ones(5, np.float32), **kw), "sub": lambda **kw: kernels.sub(E, 1.0, **kw),
    "mul": lambda **kw: kernels.mul(np.ones((3, 0), np.float32), np.ones((1, 0), np.float32), **kw),
    "div": lambda **kw: kernels.div(2, E, **kw),
    "maximum": lambda **kw: kernels.maximum(E, E, **kw),
    "minimum": lambda **kw: kernels.minimum(E, E, **kw),
    "relu": lambda **kw: kernels.relu(E, **kw),
    "gelu": lambda **kw: kernels.gelu(E, **kw),
    "exp": lambda **kw: kernels.exp(E, **kw),
    "tanh": lambda **kw: kernels.tanh(E, **kw),
    "sigmoid": lambda **kw: kernels.sigmoid(E, **kw),
    "silu": lambda **kw: kernels.silu(E, **kw),
    "cast": lambda **kw: kernels.cast(E, "f32", **kw), "softmax": lambda **kw: kernels.softmax(E, **kw),
    "layernorm": lambda **kw: kernels.layernorm(E, np.ones(5, np.float16), np.ones(5, np.float16), **kw),
    "rmsnorm": lambda **kw: kernels.rmsnorm(E, np.ones(5, np.float16), **kw),
    "sum": lambda **kw: kernels.sum(E, axis=1, **kw),
    "max": lambda **kw: kernels.max(E, axis=1, **kw),
    "min": lambda **kw: kernels.min(E, axis=-1, **kw),
    "mean": lambda **kw: kernels.mean(E, axis=1, keepdims=True, **kw),
    "matmul": lambda **kw: kernels.matmul(np.zeros((0, 16), np.float16), np.ones((16, 8), np.float16), **kw),
    "conv2d": lambda **kw: kernels.conv2d(
        np.zeros((0, 4, 6, 6), np.float16), np.ones((8, 4, 3, 3), np.float16), padding=1, **kw),
    "max_pool2d": lambda **kw: kernels.max_pool2d(np.zeros((2, 0, 6, 6), np.float16), 3, 2, 1, **kw),
    "avg_pool2d": lambda **kw: kernels.avg_pool2d(np.zeros((0, 3, 6, 6), np.float32), 2, **kw),
    "adaptive_avg_pool2d": lambda **kw: kernels.adaptive_avg_pool2d(np.zeros((0, 3, 7, 7), np.float16), 1, **kw),
    "attention": lambda **kw: kernels.attention(
        np.zeros((1, 2, 0, 16), np.float16), *(np.ones((1, 2, 8, 16), np.float16),) * 2, **kw),
}
EMPTY_WANT = {
    "add": np.add(E, np.ones(5, np.float32)), "sub": E - 1.0, "mul": np.ones((3, 0), np.float32), "div": 2 / E,
    "cast": E.astype(np.float32), "sum": E.sum(axis=1), "max": np.zeros((0,), np.float16),
    "min": np.zeros((0,), np.float16), "mean": E.mean(axis=1, keepdims=True), "matmul": np.zeros((0, 8), np.float32),
    "conv2d": np.zeros((0, 8, 6, 6), np.float32), "max_pool2d": np.zeros((2, 0, 3, 3), np.float16),
    "avg_pool2d": np.zeros((0, 3, 3, 3), np.float32), "adaptive_avg_pool2d": np.zeros((0, 3, 1, 1), np.float16),
    "attention": np.zeros((1, 2, 0, 16), np.float16),
}


@pytest.mark.parametrize("name", sorted(EMPTY_CALLS))
def test_empty_arrays_give_empty_results_without_a_launch(name):
    assert set(EMPTY_CALLS) == set(kernels.names)
    out, report = EMPTY_CALLS[name]()
    want = EMPTY_WANT.get(name, E)
    assert out.shape == want.shape and out.dtype == want.dtype, (out.shape, out.dtype)
    assert report["launched"] is False and report["cycles"] == 0 and "nothing ran" in report["note"]
    assert report["timing_only"] is False
    # The mode asked for is the report's, launched or not.
    assert EMPTY_CALLS[name](timing_only=True)[-1]["timing_only"] is True


def test_empty_axes_reduce_as_numpy():
    x = np.zeros((4, 0), np.float32)
    s, report = kernels.sum(x, axis=1)
    np.testing.assert_array_equal(s, np.zeros(4, np.float32))
    assert report["launched"] is False
    m, _ = kernels.mean(x, axis=1)
    assert m.shape == (4,) and np.all(np.isnan(m))
    with pytest.raises(ck.Error, match=r"^max: axis 1 of x \(4, 0\) is empty, and an empty set has no maximum"):
        kernels.max(x, axis=1)
    c, _ = kernels.matmul(np.ones((8, 0), np.float16), np.ones((0, 16), np.float16))
    np.testing.assert_array_equal(c, np.zeros((8, 16), np.float32))


# ---- raise_on_diagnostics, where, help, the CLI ----

RACY = """.kernel racy
.tensor X f16 [16] in
.tensor Z f16 [16] out
    copy_gm_ub ub[0], X[0], len=1
    copy_ub_gm Z[0], ub[0], len=1
    end
"""


def test_run_raises_on_diagnostics_when_asked():
    p = ck.assemble(RACY)
    x = np.ones(16, np.float16)
    outputs, report = ck.run(p, {"X": x})
    assert report["diagnostics"]
    with pytest.raises(ck.Error, match=r"^run of racy: the emulator's checks found \d+ problems?: ") as info:
        ck.run(p, {"X": x}, raise_on_diagnostics=True)
    assert info.value.report["diagnostics"] == report["diagnostics"] and "Z" in info.value.outputs


def test_where_is_select():
    assert ck.where is ck.select
    x = ck.Input("X", "f32", [4, 32])
    r, c = ck.Var("r"), ck.Var("c")
    f = ck.Func("F")
    f[r, c] = ck.where(x[r, c] > 0, x[r, c], x[r, c] * 0.5)
    a = np.linspace(-1, 1, 128, dtype=np.float32).reshape(4, 32)
    out, _ = f.run({"X": a})
    np.testing.assert_array_equal(out, np.where(a > 0, a, a * np.float32(0.5)))


def test_help_of_the_new_kernels_is_useful():
    for name in ("sub", "div", "maximum", "minimum", "exp", "tanh", "sigmoid", "silu", "sum", "max", "min", "mean"):
        doc = getattr(kernels, name).__doc__
        assert doc and "Returns (result, report)" in doc, name
    assert "broadcast" in kernels.sub.__doc__ and "report[\"host\"]" in kernels.sub.__doc__
    assert "axis" in kernels.mean.__doc__ and "keepdims" in kernels.sum.__doc__


@pytest.mark.parametrize("args", [
    ["sub", "--rows", 7, "--cols", 33, "--y-shape", 33],
    ["div", "--shape", "3,5,40", "--y-shape", "3,5,1", "--dtype", "f32"],
    ["add", "--shape", "3, 5, 40", "--y-shape", " 3,5,1 "],  # blanks around items, as a quoted list may have
    ["mul", "--rows", 9, "--cols", 70, "--scalar", 0.5],
    ["maximum", "--rows", 9, "--cols", 70, "--y-dtype", "f32"],
    ["mean", "--rows", 9, "--cols", 300], ["tanh", "--shape", 1000], ["silu", "--rows", 4, "--cols", 77],
])
def test_the_cli_runs_the_new_kernels_against_halide(args):
    r = run_cli("kernel", *args, "--json")
    report = json.loads(r.stdout)
    assert report["check"]["pass"] and report["diagnostics"] == []


def test_an_operand_promoted_to_float64_is_described_whole():
    """The message names each operand by its dtype and shape (it once cut an array's repr at 40
    characters, mid-row) and says what to give instead."""
    with pytest.raises(ck.Error, match=r"add: numpy would compute x \(float16 \(2, 4\)\) and y \(1e\+300\) in float64; "
                                       r"the vector kernels compute in float16 or float32: give float16 or float32 arrays"):
        ck.kernels.add(np.ones((2, 4), np.float16), 1e300)


def test_bf16_bits_to_a_vector_kernel_say_how_to_convert():
    """A uint16 array (bf16 as its bits) is converted with bf16_to_float32; the message once said
    astype(numpy.float16), which reads the bits as numbers."""
    x = ck.bf16_from_float32(np.ones(8, np.float32))
    with pytest.raises(ck.Error, match=r"x is uint16 \(bf16 bits\?\); the vector kernels take float16 or float32: convert "
                                       r"bf16 with cubekit.bf16_to_float32\(x\)"):
        kernels.relu(x)


def test_a_0d_array_of_another_type_is_a_number():
    # numpy: float32 x + np.array(2.0) is float32 (a 0-d array is a number to its type rules).
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    for y in (np.array(2.0), np.array(3), np.array(2.5, np.float64)):
        want = x + y
        got, report = kernels.add(x, y)
        assert got.dtype == want.dtype == np.float32
        np.testing.assert_array_equal(got, want)
        got, _ = kernels.sub(y, x)
        np.testing.assert_array_equal(got, y - x)

