"""kernels.conv2d: torch.nn.functional.conv2d's meaning on the cube (an implicit GEMM by load3d)."""

import numpy as _np

from . import _cubekit
from . import _options as _opt
from ._elementwise import array as _array
from ._running import empty_report as _empty_report, run_laid_out as _run_laid_out, tuned as _tuned
from ._running import running_tuned as _running_tuned

# conv2d's schedule overrides (Conv2dOptions): output rows and channels per tile, input channels
# per L1 fill, L1 copies, images stacked per tile, double buffering, cores.
CONV_OVERRIDES = ("rows", "tn", "channels", "l1_copies", "images", "double_buffer", "use_cores")
_OUT = {"f32": _np.float32, "f16": _np.float16, "s32": _np.int32, "bf16": _np.uint16}


def _pair(kernel, option, value, least):
    """An int, or a pair of ints (height, width), each at least `least`."""
    expected = f"an integer or a pair of integers (height, width), at least {least}"
    pair = (value, value) if _opt.is_int(value) else value
    if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(_opt.is_int(v) for v in pair)
            and all(least <= int(v) < 2**31 for v in pair)):
        _opt.fail(kernel, option, value, expected)
    return int(pair[0]), int(pair[1])


def _padding(kernel, padding, kernel_hw, dilation, stride):
    """torch's padding: an int, a pair, 'valid' (none) or 'same' (stride 1: the output as big as the input)."""
    if not isinstance(padding, str):
        return _pair(kernel, "padding", padding, 0)
    if padding == "valid":
        return 0, 0
    if padding != "same":
        _opt.fail(kernel, "padding", padding, "an integer, a pair of integers, 'valid' or 'same'")
    if stride != (1, 1):
        raise _cubekit.Error(f"{kernel}: padding='same' needs stride 1 (as in torch), got stride={stride}")
    pads = []
    for k, d in zip(kernel_hw, dilation):
        total = d * (k - 1)
        if total % 2:
            raise _cubekit.Error(f"{kernel}: padding='same' with a {k}-wide kernel and dilation {d} pads unevenly "
                                 f"({total} in all); the cube pads both sides alike: give padding as numbers")
        pads.append(total // 2)
    return tuple(pads)


def _extent(size, pad, dilation, kernel, stride):
    span = size + 2 * pad - dilation * (kernel - 1) - 1
    return span // stride + 1 if span >= 0 else 0


def conv2d(x, w, *, stride=1, padding=0, dilation=1, groups=1, bn=None, relu=False, residual=None, out=None,
           schedule="default", chip="ascend910", timing_only=False, trace=None, raise_on_diagnostics=False,
           subsampled=0, **overrides):
    """y = conv2d(x, w) on the cube, as torch.nn.functional.conv2d computes it (no bias: give bn).

    x: NCHW, float16 (out "f32", the default, or "f16"), bf16 as numpy.uint16 bit patterns
    (cubekit.bf16_from_float32; out "f32" or "bf16", on the chips whose cube has bf16) or int8
    (then the result is s32, the INT8 inference mode: out None or "s32"). w: (K, C / groups, KH, KW) of x's type. stride, padding, dilation: an int or a pair
    (height, width); padding also 'valid' or 'same'. The cube reads NC1HWC0 feature maps and
    FRACTAL_Z weights: a 16-bit feature map's conversions (float16, bf16; the output's when it is
    f16 or bf16) are CANN's TransData on the vector unit (emulated with the data, checked bit for
    bit against the host's conversion, their cycles in report["transdata"]); the others' (int8 maps,
    an f32 or s32 output) and the weights' run on the host; all listed in report["host"]. Fused on
    the way out of L0C (not for int8: its s32 result has no epilogue), in this order:
    bn=(scale, shift) (float32 arrays of K: y * scale + shift, inference batch norm), residual=
    (an array shaped as the output, of the output's type: + residual), relu=True. overrides:
    rows, tn, channels, l1_copies, images, double_buffer, use_cores (see Conv2dOptions).
    Returns (y, report), y NCHW. subsampled=s (2 or more; out "f16"): the kernel also writes
    y[:, :, ::s, ::s], the input of a strided 1x1 convolution that follows (the strided-write
    fusion), and returns (y, y_subsampled, report).

    An empty batch, channel count or output gives an empty result without a launch; no input
    channels (or an input of padding only) gives zeros, also without a launch.
    """
    kernel = "conv2d"
    schedule, chip, timing_only, trace, strict = _opt.common(kernel, schedule, chip, timing_only, trace,
                                                             raise_on_diagnostics)
    stride = _pair(kernel, "stride", stride, 1)
    dilation = _pair(kernel, "dilation", dilation, 1)
    groups = _opt.integer(kernel, "groups", groups)
    relu = _opt.boolean(kernel, "relu", relu)
    out = None if out is None else _opt.dtype(kernel, "out", out)
    if bn is not None and not (isinstance(bn, (tuple, list)) and len(bn) == 2
                               and all(isinstance(v, _np.ndarray) for v in bn)):
        _opt.fail(kernel, "bn", bn, "a pair (scale, shift) of float32 numpy arrays, one value per output channel")
    if residual is not None and not isinstance(residual, _np.ndarray):
        _opt.fail(kernel, "residual", residual, "a numpy array shaped as the output")
    checked = {}
    for key, value in overrides.items():
        if key not in CONV_OVERRIDES:
            raise _cubekit.Error(f"{kernel}: unknown option '{key}'; the schedule overrides are {', '.join(CONV_OVERRIDES)}")
        if key in ("double_buffer", "use_cores"):
            checked[key] = _opt.boolean(kernel, key, value, none=True)
        else:
            checked[key] = _opt.integer(kernel, key, value, bits=_opt.INT32 if key == "l1_copies" else _opt.INT64,
                                        meaning=" (0: the schedule's choice)")
    x, w = _array(x, "x"), _array(w, "w")
    if x.ndim != 4 or w.ndim != 4:
        raise _cubekit.Error(f"{kernel}: x must be NCHW and w (K, C / groups, KH, KW), 4-D both; got {x.ndim}-D and {w.ndim}-D")
    if x.dtype != w.dtype:
        raise _cubekit.Error(f"{kernel}: x is {x.dtype} and w is {w.dtype}; the cube multiplies one type")
    if groups < 1:
        raise _cubekit.Error(f"{kernel}: groups must be at least 1, got {groups}")
    pad = _padding(kernel, padding, w.shape[2:], dilation, stride)
    n, c, h, wd = x.shape
    k = w.shape[0]
    if c % groups:
        raise _cubekit.Error(f"{kernel}: groups={groups} must divide the input channels (x has {c})")
    if w.shape[1] * groups != c:
        raise _cubekit.Error(f"{kernel}: w has {w.shape[1]} input channels per group and groups={groups}, but x has "
                             f"{c} channels (w must be (K, C / groups, KH, KW))")
    if k % groups:
        raise _cubekit.Error(f"{kernel}: groups={groups} must divide the output channels ({k})")
    if x.dtype == _np.int8 and out not in (None, "s32"):
        raise _cubekit.Error(f"{kernel}: an int8 convolution gives s32 (the INT8 inference mode), not out={out!r}; pass "
                             "out='s32' or leave it out, and dequantise the result")
    if out is None:
        out = "s32" if x.dtype == _np.int8 else "f32"
    shape = (n, k) + tuple(_extent(e, p, d, kk, s) for e, p, d, kk, s in zip((h, wd), pad, dilation, w.shape[2:], stride))
    if h > 0 and wd > 0 and 0 in shape[2:]:
        raise _cubekit.Error(f"{kernel}: the {w.shape[2]} x {w.shape[3]} kernel (dilation {dilation}) is larger than the "
                             f"{h} x {wd} input padded by {pad}")
    if bn is not None:
        for part, v in zip(("scale", "shift"), bn):
            if v.shape != (k,):
                raise _cubekit.Error(f"{kernel}: bn's {part} has shape {v.shape}; it needs ({k},): {k} elements, one "
                                     "per output channel")
    if residual is not None and residual.shape != shape:
        raise _cubekit.Error(f"{kernel}: residual has shape {residual.shape}; it must be shaped as the output, {shape}")
    want = {"f32": _np.float32, "f16": _np.float16, "bf16": _np.uint16, "s32": _np.int32}.get(str(out))
    if residual is not None and want is not None and residual.dtype.newbyteorder("=") != _np.dtype(want):  # either byte order
        raise _cubekit.Error(f"{kernel}: residual is {residual.dtype}; it is added to the output, which is {out} "
                             f"(out=): give residual as {_np.dtype(want).name}"
                             f"{' (bf16 bit patterns)' if want is _np.uint16 else ''}, or out= of its type")
    subsampled = _opt.integer(kernel, "subsampled", subsampled, meaning=" (0: no second output)")
    empty = _empty_conv(shape, c, h, wd, w.shape[2:], out, bn, residual, relu, chip, timing_only)
    if empty is not None:
        if subsampled > 1:
            return empty[0], empty[0][:, :, ::subsampled, ::subsampled].copy(), empty[1]
        return empty

    o = _cubekit.Conv2dOptions()
    o.n, o.c, o.h, o.w, o.k, o.kh, o.kw = n, c, h, wd, k, w.shape[2], w.shape[3]
    o.stride, o.stride_w = stride
    o.pad, o.pad_w = pad
    o.dilation, o.dilation_w = dilation
    o.groups, o.dtype, o.out, o.schedule = groups, "bf16" if x.dtype == _np.uint16 else x.dtype, out, schedule
    arrays = []
    if bn is not None:
        o.epilogue = o.epilogue + ["bn"]
        arrays += [_np.ascontiguousarray(v, dtype=_np.float32) for v in bn]
    if residual is not None:
        o.epilogue = o.epilogue + ["residual"]
        arrays.append(residual)
    if relu:
        o.epilogue = o.epilogue + ["relu"]
    for key, value in checked.items():
        setattr(o, key, value)
    o.subsampled = subsampled
    func, inputs, sub, tuned = _cubekit.conv2d_func(o, chip)
    named = {i.name: a for i, a in zip(inputs, [x, w] + arrays)}
    if sub is None:
        return _tuned(_running_tuned(tuned, lambda: _run_laid_out("conv2d", func, named, chip, timing_only, trace, strict)), tuned)
    y, report = _tuned(_running_tuned(tuned, lambda: _run_laid_out("conv2d", func, named, chip, timing_only, trace, strict, also=[sub])),
                       tuned)
    return y, report.pop("also")[sub.name], report


def _empty_conv(shape, c, h, wd, kernel_hw, out, bn, residual, relu, chip, timing_only):
    """numpy's answer without a launch: an empty result, or zeros when nothing is summed."""
    if 0 not in shape and c > 0 and h > 0 and wd > 0:
        return None
    if 0 in kernel_hw:
        raise _cubekit.Error(f"conv2d: the kernel is {kernel_hw[0]} x {kernel_hw[1]}; it needs at least one row and column")
    result = _np.zeros(shape, _OUT[out])
    report = _empty_report("conv2d", shape, chip, timing_only)
    if 0 in shape:
        return result, report
    if bn is not None or residual is not None or relu:
        raise _cubekit.Error("conv2d: the input is empty, so the convolution is zeros; the epilogue would then be "
                             "computed on zeros: compute that without a convolution")
    report["note"] = "nothing ran: the input has no channels or no pixels, so the convolution is zeros; no kernel was launched"
    return result, report
