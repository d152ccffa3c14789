"""Every option of every kernel function, given a value of the wrong type or out of the C++ field's
range, raises cubekit.Error naming the kernel, the option, the value and what it takes (never
pybind11's "incompatible function arguments", never a silent conversion such as use_cores=3)."""
import inspect
import pathlib
import re

import numpy as np
import pytest

import cubekit as ck
from cubekit import kernels

X = np.ones((4, 16), np.float16)
G = np.ones(16, np.float16)
A16 = np.ones((16, 16), np.float16)


def _contraction():
    a, b = ck.Input("A", "f16", [16, 16]), ck.Input("B", "f16", [16, 16])
    m, n, k = ck.Var("m"), ck.Var("n"), ck.RDom(0, 16, "k")
    c = ck.Func("C")
    c[m, n] = ck.sum(ck.cast("f32", a[m, k]) * ck.cast("f32", b[k, n]))
    return c


# kernel name -> a call with good arrays, taking the options as keywords
CALLS = {
    "matmul": lambda **kw: kernels.matmul(A16, A16, **kw),
    "default_schedule": lambda **kw: kernels.default_schedule(_contraction(), **kw),
    "cast": lambda **kw: kernels.cast(X, "f32", **kw),
    "layernorm": lambda **kw: kernels.layernorm(X, G, G, **kw),
    "rmsnorm": lambda **kw: kernels.rmsnorm(X, G, **kw),
    "attention": lambda **kw: kernels.attention(*(np.ones((1, 1, 16, 16), np.float16),) * 3, **kw),
    "conv2d": lambda **kw: kernels.conv2d(np.ones((1, 4, 6, 6), np.float16), np.ones((8, 4, 3, 3), np.float16), **kw),
    "max_pool2d": lambda **kw: kernels.max_pool2d(np.ones((1, 4, 6, 6), np.float16), 3, 2, 1, **kw),
    "avg_pool2d": lambda **kw: kernels.avg_pool2d(np.ones((1, 4, 6, 6), np.float16), 2, **kw),
    "adaptive_avg_pool2d": lambda **kw: kernels.adaptive_avg_pool2d(np.ones((1, 4, 6, 6), np.float16), 1, **kw),
}
for _name in ("add", "sub", "mul", "div", "maximum", "minimum"):
    CALLS[_name] = (lambda f: lambda **kw: f(X, X, **kw))(getattr(kernels, _name))
for _name in ("relu", "gelu", "exp", "tanh", "sigmoid", "silu", "softmax", "sum", "max", "min", "mean"):
    CALLS[_name] = (lambda f: lambda **kw: f(X, **kw))(getattr(kernels, _name))

# option -> (what kind of value it takes, extra keywords it needs to be read)
KINDS = {
    "schedule": "choice", "chip": "chip", "timing_only": "bool", "trace": "path", "raise_on_diagnostics": "bool",
    "transpose_a": "bool", "transpose_b": "bool", "out": "dtype", "to": "dtype", "epilogue": "names",
    "bias": "array", "scale": "real", "eps": "real", "tile_rows": "int", "keepdims": "bool", "axis": "axis",
    "tm": "int", "tn": "int", "tk_l0": "int", "tk_l1": "int", "core_group": "int", "l1_copies": "int32",
    "double_buffer": "optbool", "use_cores": "optbool", "stagger": "optbool",
    "stride": "pair", "dilation": "pair", "padding": "padding", "groups": "int", "bn": "bn", "relu": "bool",
    "residual": "array", "rows": "int", "channels": "int", "images": "int", "subsampled": "int",
    "causal": "bool", "tile_q": "int", "tile_kv": "int", "preload": "int", "softcap": "real", "score_mod": "function", "alibi": "bool", "window": "int", "return_lse": "bool", "attn_mask": "array",
}
NEEDS = {"bias": {"epilogue": ["bias"]}, "scale": {"epilogue": ["scale"]}}

BAD = {
    "bool": [3, 0, 1.0, "yes", None, [True]],
    "optbool": [3, 1, 0.5, "on", [True]],
    "int": [16.5, 2**70, -2**70, "16", True, None, np.float32(16), [16]],
    "int32": [16.5, 2**40, "2", False],
    "real": ["a", np.array([1.0, 2.0]), float("nan"), float("inf"), True, [1.0]],
    "choice": [1, None, ["default"]],
    "dtype": [1.5, [1], None, {"f16": 1}],
    "path": [5, ["t.json"], 1.5],
    "chip": [5, 1.5, ["ascend910"]],
    "names": [5, ["bias", 3], {"bias"}],
    "array": ["a", 1.0, [1.0] * 16],
    "axis": [1.5, "0", 7, -9, [0], (0, 0)],
    "pair": [0, 1.5, "2", (1,), (1, 2, 3), [1.5, 1], None, True, 2**40],
    "padding": ["full", 1.5, (1,), None, True, -1],
    "bn": [1.0, "a", (np.ones(8, np.float32),), [1, 2]],
    "function": [1, "s", [None]],
}


def options_of(kernel):
    """The keyword options of a kernel function (and matmul's schedule overrides)."""
    f = kernels.default_schedule if kernel == "default_schedule" else getattr(kernels, kernel)
    names = [p.name for p in inspect.signature(f).parameters.values() if p.kind == p.KEYWORD_ONLY]
    if kernel in ("matmul", "default_schedule"):
        names += list(kernels.SCHEDULE_OVERRIDES)
    if kernel == "conv2d":
        names += list(kernels.CONV_OVERRIDES)
    if kernel == "attention":
        names += list(kernels.ATTENTION_OVERRIDES)
    if kernel.endswith("pool2d"):
        names += list(kernels.POOL_OVERRIDES)
    return names


def test_every_option_of_every_kernel_has_a_kind():
    for kernel in CALLS:
        for option in options_of(kernel):
            assert option in KINDS, f"{kernel}({option}=...) is not covered by this test"
    assert set(CALLS) == set(kernels.names) | {"default_schedule"}


# conv2d's and matmul's out may be None (f32 for float16 and bf16, s32 for int8).
OPTIONAL = {("conv2d", "out"), ("matmul", "out")}
CASES = [(kernel, option, bad) for kernel in CALLS for option in options_of(kernel) for bad in BAD[KINDS[option]]
         if not ((kernel, option) in OPTIONAL and bad is None)]


@pytest.mark.parametrize("kernel,option,bad", CASES, ids=[f"{k}-{o}-{i}" for k, o, b in CASES
                                                          for i in [repr(b)[:20]]])
def test_bad_option_names_option_value_and_expectation(kernel, option, bad):
    kwargs = dict(NEEDS.get(option, {}) if kernel in ("matmul", "default_schedule") else {}, **{option: bad})
    with pytest.raises(ck.Error) as info:
        CALLS[kernel](**kwargs)
    message = str(info.value)
    assert "incompatible function arguments" not in message
    assert message.startswith(f"{kernel}: {option} must be "), message
    assert f"got {repr(bad)[:20]}" in message or "..." in message, message
    assert type(bad).__name__ in message, message


def test_good_values_of_every_kind_are_taken(tmp_path):
    c, report = kernels.matmul(A16, A16, use_cores=np.bool_(False), double_buffer=None, tm=np.int64(16), tn=16,
                               core_group=np.int32(1), scale=np.float32(0.5), epilogue="scale",
                               trace=pathlib.Path(tmp_path / "t.json"), timing_only=False, raise_on_diagnostics=True)
    assert report["cores"] == 1 and (tmp_path / "t.json").exists()
    np.testing.assert_allclose(c, 0.5 * (A16.astype(np.float32) @ A16.astype(np.float32)))
    out, _ = kernels.layernorm(X, G, G, eps=np.float64(1e-3), axis=np.int64(-1), tile_rows=np.int16(2))
    assert out.shape == X.shape
    s, _ = kernels.sum(X, axis=(np.int8(0), 1), keepdims=np.True_)
    assert s.shape == (1, 1) and float(s) == 64.0


def test_use_cores_3_is_not_true():
    with pytest.raises(ck.Error, match=r"^matmul: use_cores must be True or False \(or None: the schedule's choice\), "
                                       r"got 3 \(int\)$"):
        kernels.matmul(A16, A16, use_cores=3)


def test_the_issue_examples():
    for kwargs, pattern in [({"epilogue": "scale", "scale": np.ones(3)}, r"scale must be a finite number"),
                            ({"epilogue": "scale", "scale": "2"}, r"scale must be a finite number .* got '2' \(str\)"),
                            ({"tm": 16.5}, r"tm must be an integer \(0: the schedule's choice\), got 16\.5 \(float\)"),
                            ({"tm": 2**70}, r"tm must be an integer that fits in 64 bits")]:
        with pytest.raises(ck.Error, match=pattern):
            kernels.matmul(A16, A16, **kwargs)
    with pytest.raises(ck.Error, match=r"^layernorm: eps must be a finite number \(an int or a float\), got 'a' \(str\)$"):
        kernels.layernorm(X, G, G, eps="a")


def test_run_and_func_run_options():
    f = ck.Func("F")
    xi = ck.Input("X", "f16", [4, 16])
    r, c = ck.Var("r"), ck.Var("c")
    f[r, c] = xi[r, c] * 2
    with pytest.raises(ck.Error, match=r"^F\.run: raise_on_diagnostics must be True or False, got 'yes' \(str\)$"):
        f.run({"X": X}, raise_on_diagnostics="yes")
    out, report = f.run({"X": X}, raise_on_diagnostics=True)  # a clean run returns
    np.testing.assert_array_equal(out, X * 2)


@pytest.mark.parametrize("option,bad", [("timing_only", "a"), ("timing_only", 2), ("trace", 5), ("trace", ""), ("threads", 1.5),
                                        ("blocks", 2**40), ("checks", None)])
def test_run_options_of_the_wrong_type(option, bad):
    p = ck.assemble(""".kernel copy
.tensor X f16 [16] in
.tensor Z f16 [16] out
    end
""")
    with pytest.raises(ck.Error, match=rf"^run: {option} must be .*, got {re.escape(repr(bad))} \({type(bad).__name__}\)$"):
        ck.run(p, {"X": np.ones(16, np.float16)}, **{option: bad})
    if option != "blocks":
        f = ck.Func("F")
        xi = ck.Input("X", "f16", [4, 16])
        r, c = ck.Var("r"), ck.Var("c")
        f[r, c] = xi[r, c] * 2
        with pytest.raises(ck.Error, match=rf"^F\.run: {option} must be "):
            f.run({"X": X}, **{option: bad})
