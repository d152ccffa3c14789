"""The ready kernels as one-call functions on numpy arrays.

Each compiles the kernel for the arrays' shapes, runs it on the emulator and returns
``(result, report)``: the result as a numpy array and the report as a dict (cycles, per-pipe
ratios such as ``mac_ratio``, bytes, roofline, diagnostics). ``schedule="naive"`` gives the simple
schedule for comparison; ``chip`` takes a preset name, a JSON path, a dict or a ``ChipConfig``;
``timing_only=True`` skips the data (the result is zeros) and reports cycles only, for tuning;
``trace`` is a path for a Chrome trace.
"""

import numpy as _np

from . import _cubekit


def _chip(chip):
    return _cubekit.chip(chip)


def _array(a, what):
    if not isinstance(a, _np.ndarray):
        raise _cubekit.Error(f"{what}: expected a numpy array, got {type(a).__name__}")
    return _np.ascontiguousarray(a)


def _run(func, inputs, arrays, chip, timing_only, trace):
    named = {i.name: a for i, a in zip(inputs, arrays)}
    return func.run(named, chip=chip, timing_only=timing_only, trace=trace)


def matmul(a, b, *, transpose_a=False, transpose_b=False, out="f32", epilogue=(), bias=None, scale=None,
           schedule="default", chip="ascend910", timing_only=False, trace=None, **overrides):
    """C = A x B on the cube (A: [batch..,] m x k, or k x m with transpose_a; B: k x n, or n x k).

    a, b: float16 (then out is "f32" or "f16") or int8 (out "s32"; b must be given as n x k).
    epilogue: fused on the way out of L0C, a name or a list of "bias" (with bias, float32 of n),
    "scale" (with scale), "relu", "gelu", applied in the order listed: ["bias", "relu"] is
    relu(AB + bias), ["relu", "bias"] is relu(AB) + bias, a step listed twice is applied twice;
    bias= or scale= without their epilogue is an error. overrides: tm, tn, tk_l0, tk_l1, core_group, l1_copies, double_buffer,
    use_cores, stagger (see MatmulOptions). Returns (c, report).
    """
    a, b = _array(a, "a"), _array(b, "b")
    if a.ndim not in (2, 3) or b.ndim != a.ndim:
        raise _cubekit.Error(f"matmul: a and b must both be 2-D (or 3-D, batched), got {a.ndim}-D and {b.ndim}-D")
    o = _cubekit.MatmulOptions()
    o.batch = a.shape[0] if a.ndim == 3 else 0
    o.m, o.k = (a.shape[-1], a.shape[-2]) if transpose_a else (a.shape[-2], a.shape[-1])
    o.n = b.shape[-2] if transpose_b else b.shape[-1]
    o.dtype = a.dtype
    o.out = "s32" if a.dtype == _np.int8 and out == "f32" else out
    o.transpose_a, o.transpose_b = transpose_a, transpose_b
    epilogue = [epilogue] if isinstance(epilogue, str) else list(epilogue)
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
        if not hasattr(o, key):
            raise _cubekit.Error(f"matmul: unknown option '{key}'")
        setattr(o, key, value)
    chip = _chip(chip)
    func, inputs = _cubekit.matmul_func(o, chip)
    arrays = [a, b] + ([_array(bias, "bias")] if "bias" in o.epilogue else [])
    return _run(func, inputs, arrays, chip, timing_only, trace)


SCHEDULE_OVERRIDES = ("tm", "tn", "tk_l0", "tk_l1", "core_group", "l1_copies", "double_buffer", "use_cores", "stagger")


def default_schedule(func, *, schedule="default", chip="ascend910", **overrides):
    """Gives a Func you defined the schedule the ready kernels use, so it compiles without writing one.

    A contraction the cube can do (C[m, n] = sum(A[m, k] * B[k, n]) with casts, transposes, at most
    one batch dimension) gets matmul's default schedule, or the naive one with schedule="naive";
    overrides as in kernels.matmul: tm, tn, tk_l0, tk_l1, core_group, l1_copies, double_buffer,
    use_cores, stagger. Any other Func gets the vector kernels' schedule (its outermost variable
    over the cores, double buffering; use_cores and double_buffer override it). A Func that has a
    schedule already is an error. Returns the Func.

        C = Func("C"); C[m, n] = sum(cast("f32", A[m, k]) * cast("f32", B[k, n]))
        out, report = default_schedule(C).run({"A": a, "B": b})
    """
    o = _cubekit.MatmulOptions()
    o.schedule = schedule
    for key, value in overrides.items():
        if key not in SCHEDULE_OVERRIDES:
            raise _cubekit.Error(f"default_schedule: unknown option '{key}' (the shape and types come from the Func); "
                                 f"the options are {', '.join(SCHEDULE_OVERRIDES)}")
        setattr(o, key, value)
    _cubekit.default_schedule(func, chip, o)
    return func


def _vector(name, arrays, chip, schedule, timing_only, trace, **options):
    x = arrays[0]
    if x.dtype not in (_np.float16, _np.float32):
        raise _cubekit.Error(f"{name}: x is {x.dtype}; the vector kernels take float16 or float32 "
                             f"(convert with x.astype(numpy.float16))")
    o = _cubekit.VectorOptions()
    o.shape, o.dtype, o.schedule = list(x.shape), x.dtype, schedule
    for key, value in options.items():
        setattr(o, key, value)
    func, inputs = _cubekit.vector_func(name, o)
    return _run(func, inputs, arrays, _chip(chip), timing_only, trace)


def add(x, y, *, schedule="default", chip="ascend910", timing_only=False, trace=None):
    """x + y elementwise on the vector unit (float16 or float32). Returns (result, report)."""
    return _vector("add", [_array(x, "x"), _array(y, "y")], chip, schedule, timing_only, trace)


def mul(x, y, *, schedule="default", chip="ascend910", timing_only=False, trace=None):
    """x * y elementwise on the vector unit. Returns (result, report)."""
    return _vector("mul", [_array(x, "x"), _array(y, "y")], chip, schedule, timing_only, trace)


def relu(x, *, schedule="default", chip="ascend910", timing_only=False, trace=None):
    """max(x, 0) elementwise. Returns (result, report)."""
    return _vector("relu", [_array(x, "x")], chip, schedule, timing_only, trace)


def gelu(x, *, schedule="default", chip="ascend910", timing_only=False, trace=None):
    """GELU (tanh approximation, computed in f32). Returns (result, report)."""
    return _vector("gelu", [_array(x, "x")], chip, schedule, timing_only, trace)


def cast(x, to, *, schedule="default", chip="ascend910", timing_only=False, trace=None):
    """x converted to `to` ("f16", "f32", ... or a numpy type). Returns (result, report)."""
    return _vector("cast", [_array(x, "x")], chip, schedule, timing_only, trace, to=to)


def softmax(x, *, schedule="default", chip="ascend910", tile_rows=0, timing_only=False, trace=None):
    """Softmax along the last axis (max, subtract, exp, sum, divide; f32 inside). Returns (result, report)."""
    return _vector("softmax", [_array(x, "x")], chip, schedule, timing_only, trace, tile_rows=tile_rows)


def layernorm(x, gamma, beta, *, eps=1e-5, schedule="default", chip="ascend910", tile_rows=0, timing_only=False, trace=None):
    """Layer normalisation along the last axis with f32 statistics, then * gamma + beta. Returns (result, report)."""
    arrays = [_array(x, "x"), _array(gamma, "gamma"), _array(beta, "beta")]
    return _vector("layernorm", arrays, chip, schedule, timing_only, trace, eps=eps, tile_rows=tile_rows)


def rmsnorm(x, gamma, *, eps=1e-5, schedule="default", chip="ascend910", tile_rows=0, timing_only=False, trace=None):
    """RMS normalisation along the last axis with f32 statistics, then * gamma. Returns (result, report)."""
    return _vector("rmsnorm", [_array(x, "x"), _array(gamma, "gamma")], chip, schedule, timing_only, trace, eps=eps, tile_rows=tile_rows)


names = list(_cubekit.vector_kernel_names()) + ["matmul"]  # the ready kernels
