"""The ready kernels as one-call functions on numpy arrays.

Each compiles the kernel for the arrays' shapes, runs it on the emulator and returns
``(result, report)``: the result as a numpy array and the report as a dict (cycles, per-pipe
ratios such as ``mac_ratio``, bytes, roofline, diagnostics). Every kernel takes:

* ``schedule="naive"``: the simple schedule (one core, no double buffering), for comparison;
* ``chip``: a preset name, a JSON path, a dict or a ``ChipConfig``;
* ``timing_only=True``: no data (the result is zeros), cycles only, for tuning;
* ``trace``: a path for a Chrome trace;
* ``raise_on_diagnostics=True``: raise ``cubekit.Error`` when the emulator's checker reports a
  problem instead of returning it in ``report["diagnostics"]``.

The kernels: matmul, conv2d, attention (flash attention), max_pool2d, avg_pool2d,
adaptive_avg_pool2d and the vector kernels (add, sub, mul, div, maximum, minimum, relu, exp, tanh,
sigmoid, gelu, silu, cast, softmax, layernorm, rmsnorm, sum, max, min, mean); ``names`` lists them.

numpy habits: the elementwise kernels broadcast as numpy does (Python scalars included) and
promote float16 with float32 to float32; ``sum``, ``max``, ``min`` and ``mean`` take ``axis`` and
``keepdims``; ``softmax`` and the norms take ``axis`` (the last by default); an empty array gives
an empty result without launching anything (``report["launched"]`` is False). Work done on the
host rather than by the kernel (a broadcast the vector path cannot read directly, an axis moved
to the last position) is listed in ``report["host"]``. Every bad option raises ``cubekit.Error``
naming the option, the value and what it takes.
"""

import builtins as _builtins

import numpy as _np

from . import _cubekit
from . import _options as _opt
from ._elementwise import binary as _binary, unary as _unary, vector as _vector, array as _array
from ._elementwise import COMMON_DOC as _COMMON_DOC
from ._reductions import reduce as _reduce, along_axis as _along_axis
from ._running import empty_report as _empty_report, raise_diagnostics as _raise_diagnostics, tuned as _tuned
from ._running import running_tuned as _running_tuned

SCHEDULE_OVERRIDES = _opt.SCHEDULE_OVERRIDES


def _run(func, inputs, arrays, chip, timing_only, trace, strict):
    named = {i.name: a for i, a in zip(inputs, arrays)}
    out, report = func.run(named, chip=chip, timing_only=timing_only, trace=trace)
    report["launched"] = True
    report["program"], report["kernel"] = report["kernel"], "matmul"  # as an empty product's report says
    if strict:
        _raise_diagnostics(func.name, {func.name: out}, report)
    return out, report


_EPILOGUES = ("bias", "scale", "relu", "gelu")


def matmul(a, b, *, transpose_a=False, transpose_b=False, out=None, epilogue=(), bias=None, scale=None,
           schedule="default", chip="ascend910", timing_only=False, trace=None, raise_on_diagnostics=False,
           **overrides):
    """C = A x B on the cube (A: [batch..,] m x k, or k x m with transpose_a; B: k x n, or n x k).

    a, b: float16 (then out is "f32", the default, or "f16"), bf16 as numpy.uint16 bit patterns
    (cubekit.bf16_from_float32; out "f32" or "bf16", on the chips whose cube has bf16) or int8 (out
    None or "s32"; b given as n x k, with transpose_b=True).
    epilogue: fused on the way out of L0C, a name, names separated by commas or a list of "bias"
    (with bias, float32 of n), "scale" (with scale), "relu", "gelu" (one of relu and gelu), applied
    in the order listed: ["bias", "relu"] is relu(AB + bias), "relu,bias" is relu(AB) + bias;
    bias= or scale= without their epilogue is an error. overrides: tm, tn, tk_l0, tk_l1, core_group, l1_copies, double_buffer,
    use_cores, stagger (see MatmulOptions). Returns (c, report).

    An empty m, n or batch gives an empty result without a launch; k = 0 gives zeros (numpy's
    empty sum), also without a launch (with a bias epilogue it is an error: say what you mean).
    """
    kernel = "matmul"
    schedule, chip, timing_only, trace, strict = _opt.common(kernel, schedule, chip, timing_only, trace,
                                                             raise_on_diagnostics)
    transpose_a = _opt.boolean(kernel, "transpose_a", transpose_a)
    transpose_b = _opt.boolean(kernel, "transpose_b", transpose_b)
    out = None if out is None else _opt.dtype(kernel, "out", out)
    epilogue = _opt.names(kernel, "epilogue", epilogue, _EPILOGUES)
    if scale is not None:
        scale = _opt.real(kernel, "scale", scale)
    if bias is not None and not isinstance(bias, _np.ndarray):
        _opt.fail(kernel, "bias", bias, "a float32 numpy array of n elements")
    a, b = _array(a, "a"), _array(b, "b")
    if a.ndim not in (2, 3) or b.ndim != a.ndim:
        raise _cubekit.Error(f"matmul: a and b must both be 2-D (or 3-D, batched), got {a.ndim}-D and {b.ndim}-D")
    o = _cubekit.MatmulOptions()
    o.batch = a.shape[0] if a.ndim == 3 else 0
    o.m, o.k = (a.shape[-1], a.shape[-2]) if transpose_a else (a.shape[-2], a.shape[-1])
    o.n = b.shape[-2] if transpose_b else b.shape[-1]
    b_k = b.shape[-1] if transpose_b else b.shape[-2]
    if b_k != o.k:
        raise _cubekit.Error(f"matmul: a {a.shape}{' (transposed)' if transpose_a else ''} has k = {o.k} but b {b.shape}"
                             f"{' (transposed)' if transpose_b else ''} has k = {b_k}; a's columns and b's rows must be as "
                             "many")
    if a.ndim == 3 and a.shape[0] != b.shape[0]:
        raise _cubekit.Error(f"matmul: a {a.shape} and b {b.shape} have batches {a.shape[0]} and {b.shape[0]}; give both "
                             "the same")
    if a.dtype != b.dtype:
        raise _cubekit.Error(f"matmul: a is {a.dtype} and b is {b.dtype}; the cube multiplies one type")
    if a.dtype not in (_np.float16, _np.uint16, _np.int8):  # the C++ message named the Func's tensors, A and C
        raise _cubekit.Error(f"matmul: a and b are {a.dtype}; the cube multiplies float16, bf16 (numpy.uint16 bit "
                             "patterns, on chips with bf16) or int8: convert with a.astype(numpy.float16)")
    o.dtype = "bf16" if a.dtype == _np.uint16 else a.dtype
    if a.dtype == _np.int8 and out not in (None, "s32"):  # it used to give s32 for out="f32", silently
        raise _cubekit.Error(f"matmul: an int8 product is s32 (the INT8 inference mode), not out={out!r}; pass out='s32' "
                             "or leave it out, and dequantise the result")
    o.out = out if out is not None else "s32" if a.dtype == _np.int8 else "f32"
    if a.dtype == _np.int8 and not transpose_b:  # the C++ message named its Func and said "transposed" of a b that was
        raise _cubekit.Error(f"matmul: an int8 b is given as (n, k) with transpose_b=True (the cube reads an int8 B "
                             f"stored transposed); got b {b.shape} with transpose_b=False: pass b as (n, k) (b.T of a "
                             f"(k, n) one) and transpose_b=True")
    o.transpose_a, o.transpose_b = transpose_a, transpose_b
    if bias is not None and "bias" not in epilogue:
        raise _cubekit.Error("matmul: a bias array was given but the epilogue has no 'bias'; add epilogue=['bias', ...]")
    if scale is not None and "scale" not in epilogue:
        raise _cubekit.Error(f"matmul: scale={scale} was given but the epilogue has no 'scale'; add epilogue=['scale', ...]")
    if "bias" in epilogue and bias is None:
        raise _cubekit.Error("matmul: the epilogue has 'bias' but no bias array was given")
    if "scale" in epilogue and scale is None:
        raise _cubekit.Error("matmul: the epilogue has 'scale' but no scale= was given")
    o.epilogue, o.scale, o.schedule = epilogue, 1.0 if scale is None else scale, schedule
    for key, value in overrides.items():
        if key not in SCHEDULE_OVERRIDES:
            raise _cubekit.Error(f"matmul: unknown option '{key}'; the schedule overrides are {', '.join(SCHEDULE_OVERRIDES)}")
        setattr(o, key, _opt.schedule_override(kernel, key, value))
    empty = _empty_matmul(a, b, o, epilogue, chip, timing_only)
    if empty is not None:
        return empty
    func, inputs, tuned = _cubekit.matmul_func(o, chip)
    arrays = [a, b] + ([_array(bias, "bias")] if "bias" in o.epilogue else [])
    return _tuned(_running_tuned(tuned, lambda: _run(func, inputs, arrays, chip, timing_only, trace, strict)), tuned)


def _empty_matmul(a, b, o, epilogue, chip, timing_only):
    """numpy's answer for an empty product, without a launch: an empty result, or zeros for k = 0."""
    if _builtins.min(o.m, o.n, o.k) > 0 and (a.ndim == 2 or o.batch > 0):
        return None
    shape = ((o.batch,) if a.ndim == 3 else ()) + (o.m, o.n)
    if 0 not in shape and "bias" in epilogue:
        raise _cubekit.Error("matmul: k is 0, so A x B is zeros; the bias epilogue would then be the bias itself: "
                             "compute that without a matmul")
    result = _np.zeros(shape, {"f32": _np.float32, "f16": _np.float16, "s32": _np.int32, "bf16": _np.uint16}[o.out])
    report = _empty_report("matmul", shape, chip, timing_only)
    if 0 not in shape:
        report["note"] = "nothing ran: k is 0, so the product is zeros (numpy's empty sum); no kernel was launched"
    return result, report


def default_schedule(func, *, schedule="default", chip="ascend910", **overrides):
    """The schedule the ready kernels use, for a Func you defined, so it compiles without writing one.

    A contraction the cube can do (C[m, n] = sum(A[m, k] * B[k, n]) with casts, transposes, at most
    one batch dimension) gets matmul's default schedule, or the naive one with schedule="naive";
    overrides as in kernels.matmul: tm, tn, tk_l0, tk_l1, core_group, l1_copies, double_buffer,
    use_cores, stagger. Any other Func gets the vector kernels' schedule (its outermost variable
    over the cores, double buffering; use_cores and double_buffer override it). Returns a Schedule
    (the Func is left as it is): pass it to Func.run or compile, or assign it to func.schedule.

        C = Func("C"); C[m, n] = sum(cast("f32", A[m, k]) * cast("f32", B[k, n]))
        out, report = C.run({"A": a, "B": b}, schedule=default_schedule(C))
    """
    kernel = "default_schedule"
    o = _cubekit.MatmulOptions()
    o.schedule = _opt.choice(kernel, "schedule", schedule, ("default", "naive"))
    for key, value in overrides.items():
        if key not in SCHEDULE_OVERRIDES:
            raise _cubekit.Error(f"default_schedule: unknown option '{key}' (the shape and types come from the Func); "
                                 f"the options are {', '.join(SCHEDULE_OVERRIDES)}")
        setattr(o, key, _opt.schedule_override(kernel, key, value))
    return _cubekit.default_schedule(func, _opt.chip(kernel, chip), o)


# ---- elementwise ----

def _doc(f):
    f.__doc__ = f.__doc__.replace("{common}", _COMMON_DOC)
    return f


@_doc
def add(x, y, *, schedule="default", chip="ascend910", timing_only=False, trace=None, raise_on_diagnostics=False):
    """x + y elementwise on the vector unit, broadcast as numpy does. Returns (result, report).

    x, y: float16 or float32 arrays, or one of them a Python (or numpy) number.
    {common}
    """
    return _binary("add", x, y, schedule, chip, timing_only, trace, raise_on_diagnostics)


@_doc
def sub(x, y, *, schedule="default", chip="ascend910", timing_only=False, trace=None, raise_on_diagnostics=False):
    """x - y elementwise on the vector unit, broadcast as numpy does. Returns (result, report).

    x, y: float16 or float32 arrays, or one of them a number (``sub(1.0, x)`` is 1 - x).
    {common}
    """
    return _binary("sub", x, y, schedule, chip, timing_only, trace, raise_on_diagnostics)


@_doc
def mul(x, y, *, schedule="default", chip="ascend910", timing_only=False, trace=None, raise_on_diagnostics=False):
    """x * y elementwise on the vector unit, broadcast as numpy does. Returns (result, report).

    x, y: float16 or float32 arrays, or one of them a number.
    {common}
    """
    return _binary("mul", x, y, schedule, chip, timing_only, trace, raise_on_diagnostics)


@_doc
def div(x, y, *, schedule="default", chip="ascend910", timing_only=False, trace=None, raise_on_diagnostics=False):
    """x / y elementwise on the vector unit (numpy's true_divide), broadcast as numpy does.

    x, y: float16 or float32 arrays, or one of them a number. Dividing by an array divides (numpy's
    quotients, also by a per-row or per-column operand); dividing by a number multiplies by its
    reciprocal where that is a normal number (rounded to the type: within 1 ulp of a division in
    float32, 2 in float16), and divides where it is not. Division by zero gives inf or nan as in
    numpy (without numpy's warning). Returns (result, report).
    {common}
    """
    return _binary("div", x, y, schedule, chip, timing_only, trace, raise_on_diagnostics)


@_doc
def maximum(x, y, *, schedule="default", chip="ascend910", timing_only=False, trace=None, raise_on_diagnostics=False):
    """The larger of x and y elementwise (numpy.maximum), broadcast as numpy does.

    x, y: float16 or float32 arrays, or one of them a number. Returns (result, report).
    {common}
    """
    return _binary("maximum", x, y, schedule, chip, timing_only, trace, raise_on_diagnostics)


@_doc
def minimum(x, y, *, schedule="default", chip="ascend910", timing_only=False, trace=None, raise_on_diagnostics=False):
    """The smaller of x and y elementwise (numpy.minimum), broadcast as numpy does.

    x, y: float16 or float32 arrays, or one of them a number. Returns (result, report).
    {common}
    """
    return _binary("minimum", x, y, schedule, chip, timing_only, trace, raise_on_diagnostics)


def relu(x, *, schedule="default", chip="ascend910", timing_only=False, trace=None, raise_on_diagnostics=False):
    """max(x, 0) elementwise (float16 or float32, any shape). Returns (result, report)."""
    return _unary("relu", x, schedule, chip, timing_only, trace, raise_on_diagnostics)


def gelu(x, *, schedule="default", chip="ascend910", timing_only=False, trace=None, raise_on_diagnostics=False):
    """GELU (tanh approximation, computed in f32) elementwise. Returns (result, report)."""
    return _unary("gelu", x, schedule, chip, timing_only, trace, raise_on_diagnostics)


def exp(x, *, schedule="default", chip="ascend910", timing_only=False, trace=None, raise_on_diagnostics=False):
    """e ** x elementwise (numpy.exp), computed in f32 and returned in x's type (float16 or
    float32; a float16 result above 65504 is inf, as in numpy). Returns (result, report)."""
    return _unary("exp", x, schedule, chip, timing_only, trace, raise_on_diagnostics)


def tanh(x, *, schedule="default", chip="ascend910", timing_only=False, trace=None, raise_on_diagnostics=False):
    """tanh(x) elementwise (numpy.tanh), computed in f32 as 1 - 2 / (e**2x + 1) (finite for every
    x; within about 1e-7 absolute of numpy's) and returned in x's type. Returns (result, report)."""
    return _unary("tanh", x, schedule, chip, timing_only, trace, raise_on_diagnostics)


def sigmoid(x, *, schedule="default", chip="ascend910", timing_only=False, trace=None, raise_on_diagnostics=False):
    """The logistic function 1 / (1 + e**-x) elementwise, computed in f32 and returned in x's
    type. Returns (result, report)."""
    return _unary("sigmoid", x, schedule, chip, timing_only, trace, raise_on_diagnostics)


def silu(x, *, schedule="default", chip="ascend910", timing_only=False, trace=None, raise_on_diagnostics=False):
    """SiLU (swish): x * sigmoid(x) elementwise, computed in f32 and returned in x's type.
    Returns (result, report)."""
    return _unary("silu", x, schedule, chip, timing_only, trace, raise_on_diagnostics)


def cast(x, to, *, schedule="default", chip="ascend910", timing_only=False, trace=None, raise_on_diagnostics=False):
    """x converted to `to` ("f16", "f32", "s32", ... or a numpy type). Returns (result, report)."""
    to = _opt.dtype("cast", "to", to)
    return _unary("cast", x, schedule, chip, timing_only, trace, raise_on_diagnostics, to=to)


# ---- along an axis ----

def softmax(x, *, axis=-1, schedule="default", chip="ascend910", tile_rows=0, timing_only=False, trace=None,
            raise_on_diagnostics=False):
    """Softmax along `axis` (the last by default): max, subtract, exp, sum, divide, f32 inside.

    x: float16 or float32, any rank (a 1-D x is one row). The kernel works along the last axis;
    for another axis the host moves it last before the run and back after (two transposed
    copies, listed in report["host"]). tile_rows: rows per UB tile (0: the schedule's choice).
    Returns (result, report).
    """
    return _along_axis("softmax", [x], [], axis, schedule, chip, tile_rows, timing_only, trace, raise_on_diagnostics)


def layernorm(x, gamma, beta, *, eps=1e-5, axis=-1, schedule="default", chip="ascend910", tile_rows=0,
              timing_only=False, trace=None, raise_on_diagnostics=False):
    """Layer normalisation along `axis` (the last by default) with f32 statistics, then * gamma + beta.

    gamma, beta: 1-D, as long as x's `axis`, of x's type. As softmax, another axis than the last is
    moved on the host (report["host"]). eps: added to the variance. Returns (result, report).
    """
    eps = _opt.real("layernorm", "eps", eps)
    return _along_axis("layernorm", [x], [(gamma, "gamma"), (beta, "beta")], axis, schedule, chip, tile_rows,
                       timing_only, trace, raise_on_diagnostics, eps=eps)


def rmsnorm(x, gamma, *, eps=1e-5, axis=-1, schedule="default", chip="ascend910", tile_rows=0, timing_only=False,
            trace=None, raise_on_diagnostics=False):
    """RMS normalisation along `axis` (the last by default) with f32 statistics, then * gamma.

    gamma: 1-D, as long as x's `axis`, of x's type. As softmax, another axis than the last is moved
    on the host (report["host"]). eps: added to the mean square. Returns (result, report).
    """
    eps = _opt.real("rmsnorm", "eps", eps)
    return _along_axis("rmsnorm", [x], [(gamma, "gamma")], axis, schedule, chip, tile_rows, timing_only, trace,
                       raise_on_diagnostics, eps=eps)


def sum(x, *, axis=None, keepdims=False, schedule="default", chip="ascend910", tile_rows=0, timing_only=False,  # noqa: A001
        trace=None, raise_on_diagnostics=False):
    """The sum of x's elements over `axis` (numpy.sum): None (every axis), an int or a tuple.

    Accumulated in f32 and returned in x's type. The kernel reduces the last axis, one value per
    row; other axes are moved last (and several flattened into one) on the host first, listed
    in report["host"]. The reduced elements of a row must fit UB (26,224 of f16 or f32 on
    ascend910, default schedule): reduce more in steps, e.g. sum(sum(x.reshape(-1, 1000), axis=1)[0])
    for a long 1-D x (kernels return (result, report)). keepdims
    keeps the reduced axes as 1s. An empty axis sums to 0; an empty
    result is returned without a launch. Returns (result, report).
    """
    return _reduce("sum", x, axis, keepdims, schedule, chip, tile_rows, timing_only, trace, raise_on_diagnostics)


def max(x, *, axis=None, keepdims=False, schedule="default", chip="ascend910", tile_rows=0, timing_only=False,  # noqa: A001
        trace=None, raise_on_diagnostics=False):
    """The largest of x's elements over `axis` (numpy.max), exact in x's type; axes and keepdims
    as in sum. An empty axis is an error (it has no maximum). Returns (result, report)."""
    return _reduce("max", x, axis, keepdims, schedule, chip, tile_rows, timing_only, trace, raise_on_diagnostics)


def min(x, *, axis=None, keepdims=False, schedule="default", chip="ascend910", tile_rows=0, timing_only=False,  # noqa: A001
        trace=None, raise_on_diagnostics=False):
    """The smallest of x's elements over `axis` (numpy.min), exact in x's type; axes and keepdims
    as in sum. An empty axis is an error (it has no minimum). Returns (result, report)."""
    return _reduce("min", x, axis, keepdims, schedule, chip, tile_rows, timing_only, trace, raise_on_diagnostics)


def mean(x, *, axis=None, keepdims=False, schedule="default", chip="ascend910", tile_rows=0, timing_only=False,
         trace=None, raise_on_diagnostics=False):
    """The mean of x's elements over `axis` (numpy.mean): the f32 sum divided by the count, in x's
    type; axes and keepdims as in sum. An empty axis gives nan, as numpy. Returns (result, report)."""
    return _reduce("mean", x, axis, keepdims, schedule, chip, tile_rows, timing_only, trace, raise_on_diagnostics)


from ._conv import conv2d, CONV_OVERRIDES  # noqa: E402,F401
from ._attention import attention, ATTENTION_OVERRIDES  # noqa: E402,F401
from ._pool import max_pool2d, avg_pool2d, adaptive_avg_pool2d, POOL_OVERRIDES  # noqa: E402,F401

# Defined apart, shown here: help(cubekit.kernels) lists a module's own functions only.
for _f in (conv2d, attention, max_pool2d, avg_pool2d, adaptive_avg_pool2d):
    _f.__module__ = __name__

# the ready kernels
names = list(_cubekit.vector_kernel_names()) + ["matmul", "conv2d", "attention", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d"]
