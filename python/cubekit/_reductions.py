"""Kernels along an axis on numpy arrays: the reductions (sum, max, min, mean) and the row
kernels (softmax, layernorm, rmsnorm). The vector path works along the last axis; another axis is
moved last on the host (a transposed copy), which report["host"] lists."""

import math as _math

import numpy as _np

from . import _cubekit
from . import _options as _opt
from ._elementwise import array, empty, float_array, vector


def _tile_rows(kernel, tile_rows):
    return _opt.integer(kernel, "tile_rows", tile_rows, meaning=" (0: the schedule's choice)")


def reduce(name, x, axis, keepdims, schedule, chip, tile_rows, timing_only, trace, strict):
    """sum / max / min / mean of x over `axis` (None, an int or a tuple), numpy's way."""
    common = _opt.common(name, schedule, chip, timing_only, trace, strict)
    keepdims = _opt.boolean(name, "keepdims", keepdims)
    tile_rows = _tile_rows(name, tile_rows)
    x = float_array(name, x, "x")
    full = x.shape or (1,)  # a 0-d array reduces as one element
    axes = _opt.axis(name, axis, len(full), many=True)
    kept = [d for i, d in enumerate(full) if i not in axes]
    out_shape = tuple(1 if i in axes else d for i, d in enumerate(full)) if keepdims else tuple(kept)
    if x.ndim == 0:
        out_shape = ()
    count = _math.prod(full[i] for i in axes)
    if _math.prod(kept) == 0:
        return empty(name, out_shape, x.dtype, common[1], common[2])
    if count == 0:
        if name in ("max", "min"):
            raise _cubekit.Error(f"{name}: axis {axis} of x {x.shape} is empty, and an empty set has no "
                                 f"{'maximum' if name == 'max' else 'minimum'} (numpy raises too)")
        result, report = empty(name, out_shape, x.dtype, common[1], common[2])
        result.fill(0 if name == "sum" else _np.nan)  # numpy: the empty sum is 0, the empty mean nan
        report["note"] = f"nothing ran: the reduced axes are empty, so the {name} is {result.flat[0]} (as numpy)"
        return result, report
    host = []
    moved = len(full) - len(axes)
    view = x.reshape(full)
    if axes != tuple(range(moved, len(full))):
        view = _np.moveaxis(view, axes, range(moved, len(full)))  # copied when the run reads it
        host.append(f"axes {axes} of x {x.shape} were moved last on the host (a transposed copy): the kernel reduces "
                    f"the last axis")
    out, report = vector(name, [view], kept + [count], x.dtype, common, host, tile_rows=tile_rows)
    return out.reshape(out_shape), report


def along_axis(name, xs, extras, axis, schedule, chip, tile_rows, timing_only, trace, strict, **options):
    """softmax / layernorm / rmsnorm along `axis`; `extras` are (array, name) per the last axis."""
    common = _opt.common(name, schedule, chip, timing_only, trace, strict)
    tile_rows = _tile_rows(name, tile_rows)
    x = float_array(name, xs[0], "x")
    if x.ndim == 0:
        raise _cubekit.Error(f"{name}: x is 0-d (a single number); give at least 1 dimension")
    (ax,) = _opt.axis(name, axis, x.ndim)
    others = [array(a, what) for a, what in extras]
    for a, (_, what) in zip(others, extras):
        if a.shape != (x.shape[ax],):
            raise _cubekit.Error(f"{name}: {what} has shape {a.shape}; it must be 1-D, as long as axis {ax} of x "
                                 f"{x.shape}: ({x.shape[ax]},)")
    if x.size == 0:
        return empty(name, x.shape, x.dtype, common[1], common[2])
    host = []
    moved = _np.moveaxis(x, ax, -1)
    if ax != x.ndim - 1:  # copied when the run reads it
        host.append(f"axis {ax} of x {x.shape} was moved last on the host before the run and back after (transposed "
                    f"copies): the kernel works along the last axis")
    shape = moved.shape if moved.ndim >= 2 else (1,) + moved.shape  # a 1-D x is one row
    out, report = vector(name, [moved] + others, shape, x.dtype, common, host, tile_rows=tile_rows, **options)
    out = out.reshape(moved.shape)
    if ax == x.ndim - 1:
        return out, report
    back = _np.moveaxis(out, -1, ax)
    return (back if common[2] else _np.ascontiguousarray(back)), report  # timing-only: zeros, not copied
