"""kernels.max_pool2d, avg_pool2d, adaptive_avg_pool2d: torch.nn.functional's meaning on the
vector unit, over the NC1HWC0 layout the conv path keeps (the host converts NCHW in and out)."""

import numpy as _np

from . import _cubekit
from . import _options as _opt
from ._conv import _pair
from ._elementwise import array as _array
from ._running import empty_report as _empty_report, run_laid_out as _run_laid_out

# The pooling kernels' schedule overrides (Pool2dOptions): output rows per tile, double buffering, cores.
POOL_OVERRIDES = ("rows", "double_buffer", "use_cores")


def _extent(size, pad, dilation, kernel, stride):
    span = size + 2 * pad - dilation * (kernel - 1) - 1
    return span // stride + 1 if span >= 0 else 0


def _run(kernel, x, o, shape, schedule, chip, timing_only, trace, strict, overrides):
    for key, value in overrides.items():
        if key not in POOL_OVERRIDES:
            raise _cubekit.Error(f"{kernel}: unknown option '{key}'; the schedule overrides are {', '.join(POOL_OVERRIDES)}")
        if key == "rows":
            rows = _opt.integer(kernel, key, value, meaning=" (0: the schedule's choice)")
            if rows < 0:  # the C++ message names the CLI's kernel (global_avg_pool2d for adaptive_avg_pool2d)
                _opt.fail(kernel, key, value, "at least 1 (or 0 to let the schedule choose)")
            if rows > 1 and o.global_:
                _opt.fail(kernel, key, value, "at most 1: the global average has one output row")
            setattr(o, key, rows)
        else:
            setattr(o, key, _opt.boolean(kernel, key, value, none=True))
    if 0 in shape:
        return _np.zeros(shape, x.dtype), _empty_report(kernel, shape, chip, timing_only)
    o.n, o.c, o.h, o.w = x.shape
    o.dtype, o.schedule = x.dtype, schedule
    func, inputs = _cubekit.pool2d_func(o, chip)
    return _run_laid_out(kernel, func, {inputs[0].name: x}, chip, timing_only, trace, strict)


def _input(kernel, x):
    x = _array(x, "x")
    if x.ndim != 4:
        raise _cubekit.Error(f"{kernel}: x must be NCHW (4-D), got {x.ndim}-D of shape {x.shape}")
    if x.dtype not in (_np.float16, _np.float32):
        raise _cubekit.Error(f"{kernel}: the vector unit pools float16 and float32, got {x.dtype}: cast x first")
    if x.shape[2] == 0 or x.shape[3] == 0:
        raise _cubekit.Error(f"{kernel}: x has an empty map ({x.shape[2]} x {x.shape[3]}); pooling needs at least one pixel")
    return x


def _window(kernel, x, kernel_size, stride, padding, dilation):
    """(window, stride, padding, dilation, output shape), checked as torch checks them."""
    k = _pair(kernel, "kernel_size", kernel_size, 1)
    s = k if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0) else _pair(kernel, "stride", stride, 1)
    p = _pair(kernel, "padding", padding, 0)
    d = _pair(kernel, "dilation", dilation, 1)
    for axis, kk, pp, dd in zip(("height", "width"), k, p, d):
        if 2 * pp > dd * (kk - 1) + 1:
            raise _cubekit.Error(f"{kernel}: padding {pp} along the {axis} is more than half the window "
                                 f"({dd * (kk - 1) + 1}); pad at most half the window (as torch)")
    n, c, h, w = x.shape
    shape = (n, c) + tuple(_extent(e, pp, dd, kk, ss) for e, pp, dd, kk, ss in zip((h, w), p, d, k, s))
    if 0 in shape[2:]:
        raise _cubekit.Error(f"{kernel}: the {k[0]} x {k[1]} window (dilation {d}) is larger than the {h} x {w} input "
                             f"padded by {p}")
    return k, s, p, d, shape


def _ceil_extent(size, pad, dilation, kernel, stride):
    """torch's output extent with ceil_mode=True: a last window that starts inside the input (or its
    left padding) and runs past it."""
    span = size + 2 * pad - dilation * (kernel - 1) - 1
    out = -(-span // stride) + 1
    return out - 1 if (out - 1) * stride >= size + pad else out


def _no_ceil_mode(kernel, ceil_mode, x, k, s, p, d):
    """ceil_mode=True where it changes the output: refused; where it does not (the windows fit the
    input exactly), the same pooling."""
    if not _opt.boolean(kernel, "ceil_mode", ceil_mode):
        return
    floor = [_extent(e, pp, dd, kk, ss) for e, pp, dd, kk, ss in zip(x.shape[2:], p, d, k, s)]
    ceil = [_ceil_extent(e, pp, dd, kk, ss) for e, pp, dd, kk, ss in zip(x.shape[2:], p, d, k, s)]
    if ceil != floor:
        raise _cubekit.Error(f"{kernel}: ceil_mode=True is not supported where it adds partial windows at the end "
                             f"(here {floor[0]} x {floor[1]} outputs become {ceil[0]} x {ceil[1]}); pad the input or "
                             "use ceil_mode=False")


def _options(kind, k, s, p, d):
    o = _cubekit.Pool2dOptions()
    o.kind = kind
    o.kh, o.kw = k
    o.stride, o.stride_w = s
    o.pad, o.pad_w = p
    o.dilation, o.dilation_w = d
    return o


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False, *,
               schedule="default", chip="ascend910", timing_only=False, trace=None, raise_on_diagnostics=False,
               **overrides):
    """y = max_pool2d(x, kernel_size, ...) on the vector unit, as torch.nn.functional.max_pool2d.

    x: NCHW float16 or float32. kernel_size, stride (default: kernel_size), padding (implicit
    -inf, at most half the window), dilation: an int or a pair (height, width). ceil_mode=True only
    where it changes nothing (the windows fit the input exactly); return_indices is not supported
    (an error says so). The vector unit reads NC1HWC0 (one 32 B
    block per position, so the window's stride is a block stride): a float16 map's conversions are
    CANN's TransData on the vector unit (emulated with the data, checked bit for bit against the
    host's, their cycles in report["transdata"]), a float32 map's run on the host; both listed in
    report["host"]. overrides: rows, double_buffer, use_cores. Returns (y, report).
    """
    kernel = "max_pool2d"
    schedule, chip, timing_only, trace, strict = _opt.common(kernel, schedule, chip, timing_only, trace,
                                                             raise_on_diagnostics)
    if _opt.boolean(kernel, "return_indices", return_indices):
        raise _cubekit.Error(f"{kernel}: return_indices=True is not supported: the kernel computes the maxima only")
    x = _input(kernel, x)
    k, s, p, d, shape = _window(kernel, x, kernel_size, stride, padding, dilation)
    _no_ceil_mode(kernel, ceil_mode, x, k, s, p, d)
    return _run(kernel, x, _options("max", k, s, p, d), shape, schedule, chip, timing_only, trace, strict, overrides)


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None,
               *, schedule="default", chip="ascend910", timing_only=False, trace=None, raise_on_diagnostics=False,
               **overrides):
    """y = avg_pool2d(x, kernel_size, ...) on the vector unit, as torch.nn.functional.avg_pool2d.

    x: NCHW float16 or float32, summed in float32 and divided by the window's size (padding
    counted as zeros: count_include_pad=True). ceil_mode=True only where it changes nothing,
    count_include_pad=False only without padding; divisor_override is not supported (an error says so). Returns (y, report).
    """
    kernel = "avg_pool2d"
    schedule, chip, timing_only, trace, strict = _opt.common(kernel, schedule, chip, timing_only, trace,
                                                             raise_on_diagnostics)
    if divisor_override is not None:
        raise _cubekit.Error(f"{kernel}: divisor_override is not supported: the average divides by the window's size")
    x = _input(kernel, x)
    k, s, p, d, shape = _window(kernel, x, kernel_size, stride, padding, 1)
    _no_ceil_mode(kernel, ceil_mode, x, k, s, p, d)
    if not _opt.boolean(kernel, "count_include_pad", count_include_pad) and any(p):  # without padding: the same
        raise _cubekit.Error(f"{kernel}: count_include_pad=False is not supported with padding: the average divides "
                             "by the whole window, padding included")
    return _run(kernel, x, _options("avg", k, s, p, d), shape, schedule, chip, timing_only, trace, strict, overrides)


def adaptive_avg_pool2d(x, output_size, *, schedule="default", chip="ascend910", timing_only=False, trace=None,
                        raise_on_diagnostics=False, **overrides):
    """y = adaptive_avg_pool2d(x, 1): the average of each channel's map (ResNet's global pool), (N, C, 1, 1).

    Only output_size 1 (or (1, 1)) is supported: other sizes raise an error. The kernel pools C0
    channels at once, holding their whole maps in UB: past about 48 x 48 (f16, 910) they do not fit,
    and the error says so; kernels.mean(x, axis=(2, 3), keepdims=True) computes the same average over
    rows of H x W elements (up to 26,224 a row), for maps of any shape up to that.
    """
    kernel = "adaptive_avg_pool2d"
    schedule, chip, timing_only, trace, strict = _opt.common(kernel, schedule, chip, timing_only, trace,
                                                             raise_on_diagnostics)
    if _pair(kernel, "output_size", output_size, 1) != (1, 1):
        raise _cubekit.Error(f"{kernel}: only output_size=1 (the global average) is supported, got {output_size}")
    x = _input(kernel, x)
    o = _cubekit.Pool2dOptions()
    o.kind, o.global_ = "avg", True
    return _run(kernel, x, o, x.shape[:2] + (1, 1), schedule, chip, timing_only, trace, strict, overrides)
