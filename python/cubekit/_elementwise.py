"""The vector kernels on numpy arrays: running one, elementwise ones with numpy's broadcasting and
type promotion, and empty arrays (no launch)."""

import numpy as _np

from . import _cubekit
from . import _options as _opt
from ._running import empty_report, raise_diagnostics, running_tuned, tuned as tuned_report

COMMON_DOC = """Broadcasting follows numpy. The kernel reads an operand of the result's shape
    directly and the other as one value per row (a column: trailing 1s, e.g. [R, 1] against
    [R, C]), one value per column (a row: leading 1s, e.g. [C] or [1, C]) or a number (a Python
    or numpy scalar, or a one-element array: its value is compiled into the kernel as an
    immediate). Any other broadcast, e.g. an outer one ([R, 1] with [1, C]) or one in the middle
    ([A, 1, C] with [A, B, C]), is materialised on the host: the smaller operand is expanded to
    the result's shape (a copy) before the run, and report["host"] says so. Types follow numpy's
    promotion (numpy.result_type): float16 with float32 gives float32, the float16 operand
    converted in the kernel. An empty result is returned without a launch.
    schedule, chip, timing_only, trace, raise_on_diagnostics: as for every kernel (cubekit.kernels)."""

_FLOATS = (_np.dtype(_np.float16), _np.dtype(_np.float32))


def array(a, what):
    if isinstance(a, _np.generic):  # a numpy scalar: a 0-d array
        a = _np.asarray(a)
    if not isinstance(a, _np.ndarray):
        raise _cubekit.Error(f"{what}: expected a numpy array, got {type(a).__name__}")
    if not a.dtype.isnative:  # the same values in the host's byte order (a '>f2' array is float16 too)
        a = a.astype(a.dtype.newbyteorder("="))
    return a  # strided views stay views: a run copies what it reads, and a timing-only run reads nothing


def float_array(kernel, a, what):
    a = array(a, what)
    if a.dtype == _np.uint16:  # bf16 travels as its bits: astype(float16) would read the bits as numbers
        raise _cubekit.Error(f"{kernel}: {what} is uint16 (bf16 bits?); the vector kernels take float16 or float32: "
                             f"convert bf16 with cubekit.bf16_to_float32({what})")
    if a.dtype not in _FLOATS:
        raise _cubekit.Error(f"{kernel}: {what} is {a.dtype}; the vector kernels take float16 or float32 "
                             f"(convert with {what}.astype(numpy.float32))")
    return a


def vector(name, arrays, shape, dtype, common, host=(), **options):
    """Runs vector kernel `name` over X of `shape` and `dtype` (the arrays in the order of its
    Inputs, each reshaped to its Input's shape); returns (the raw result, report)."""
    schedule, chip, timing_only, trace, strict = common
    o = _cubekit.VectorOptions()
    o.shape, o.dtype, o.schedule = list(shape), dtype, schedule
    for key, value in options.items():
        setattr(o, key, value)
    func, inputs, tuned = _cubekit.vector_func(name, o, chip)
    named = {i.name: a.reshape(i.shape) for i, a in zip(inputs, arrays)}
    out, report = running_tuned(tuned, lambda: func.run(named, chip=chip, timing_only=timing_only, trace=trace))
    report["launched"] = True
    tuned_report((out, report), tuned)
    if host:
        report["host"] = list(host)
    if strict:
        raise_diagnostics(name, {func.name: out}, report)
    return out, report


def empty(name, shape, dtype, chip, timing_only):
    return _np.empty(shape, dtype), empty_report(name, shape, chip, timing_only)


def unary(name, x, schedule, chip, timing_only, trace, strict, **options):
    """An elementwise kernel of one array (relu, gelu, exp, tanh, sigmoid, silu, cast)."""
    common = _opt.common(name, schedule, chip, timing_only, trace, strict)
    x = float_array(name, x, "x")
    if x.size == 0:
        dtype = x.dtype
        if "to" in options:  # checked by C++ as for a run
            o = _cubekit.VectorOptions()
            o.to = options["to"]
            dtype = _to_numpy(o.to)
        return empty(name, x.shape, dtype, common[1], common[2])
    out, report = vector(name, [x], x.shape or (1,), x.dtype, common, **options)
    return out.reshape(x.shape), report


def _to_numpy(t):
    """A dtype as cast() takes it ('f16', numpy.float16, ...) as a numpy dtype."""
    names = {"f16": "float16", "f32": "float32", "s8": "int8", "u8": "uint8", "s16": "int16", "u16": "uint16",
             "s32": "int32"}
    return _np.dtype(names.get(t, t) if isinstance(t, str) else t)


def _operand(kernel, value, what):
    if isinstance(value, _np.ndarray):
        if value.ndim == 0 and value.dtype not in _FLOATS and value.dtype.kind in "fiu":
            return value[()]  # a number to numpy's type rules: float32 x + np.array(2.0) is float32
        return float_array(kernel, value, what)
    if _opt.is_real(value):
        return value
    raise _cubekit.Error(f"{kernel}: {what} must be a numpy array (float16 or float32) or a number, "
                         f"got {type(value).__name__}")


def _constant(v, other):
    """Whether operand v is read as a constant: a number, or a one-element array against an array."""
    return not isinstance(v, _np.ndarray) or (v.size == 1 and isinstance(other, _np.ndarray))


def _described(v):
    """An operand in a message: an array by its dtype and shape, a number as it is."""
    return f"{v.dtype} {v.shape}" if isinstance(v, _np.ndarray) else repr(v)


def binary(name, x, y, schedule, chip, timing_only, trace, strict):
    """An elementwise kernel of two operands (add, sub, mul, div, maximum, minimum), numpy's way."""
    common = _opt.common(name, schedule, chip, timing_only, trace, strict)
    x, y = _operand(name, x, "x"), _operand(name, y, "y")
    if not isinstance(x, _np.ndarray) and not isinstance(y, _np.ndarray):
        raise _cubekit.Error(f"{name}: x and y are both numbers ({x!r}, {y!r}); give at least one numpy array")
    result_type = _np.result_type(x, y)
    if result_type not in _FLOATS:
        raise _cubekit.Error(f"{name}: numpy would compute x ({_described(x)}) and y ({_described(y)}) in {result_type}; the "
                             f"vector kernels compute in float16 or float32: give float16 or float32 arrays, or a number "
                             f"that fits the array's type")
    try:
        shape = _np.broadcast_shapes(_np.shape(x), _np.shape(y))
    except ValueError:
        raise _cubekit.Error(f"{name}: x {_np.shape(x)} and y {_np.shape(y)} do not broadcast (numpy's rule: shapes "
                             f"aligned from the last dimension, each pair of dimensions equal or one of them 1)") from None
    if 0 in shape:
        return empty(name, shape, result_type, common[1], common[2])
    if _constant(y, x) or _constant(x, y):
        first = not _constant(y, x)
        if _constant(y, x) and _constant(x, y) and x.dtype != result_type:  # two one-element arrays: the tensor is
            first = True                                                      # the one of the result's type
        tensor, k = (y, x) if first else (x, y)
        value = float(_np.asarray(k).reshape(-1)[0])
        out, report = vector(name, [tensor], shape or (1,), tensor.dtype, common, scalar=value, scalar_first=first,
                             y_dtype=result_type)
        return out.reshape(shape), report
    host = []
    view = _cubekit.broadcast_view(list(x.shape), list(y.shape))
    if x.shape != y.shape and view is None:  # expand the smaller operand, then the other if still needed
        for what in sorted(("x", "y"), key=lambda w: (x if w == "x" else y).size):
            v = x if what == "x" else y
            if v.shape == shape:
                continue
            v = _np.broadcast_to(v, shape)  # copied when the run reads it (a timing-only run does not)
            host.append(f"{what} {(x if what == 'x' else y).shape} was broadcast to {shape} on the host (a copy): the "
                        f"vector path reads an operand per row, per column or whole, not this broadcast")
            x, y = (v, y) if what == "x" else (x, v)
            if x.shape == y.shape or _cubekit.broadcast_view(list(x.shape), list(y.shape)) is not None:
                break
    options = {"y_dtype": y.dtype}
    if x.shape != y.shape:
        options["y_shape"] = list(y.shape)
    out, report = vector(name, [x, y], x.shape, x.dtype, common, host, **options)
    return out.reshape(shape), report
