"""The keyword options of cubekit.kernels, checked before they reach C++.

pybind11 would refuse a value of the wrong type with "incompatible function arguments" and the
signature of an internal class, and would take some wrong values silently (``use_cores=3`` as
True). Every option is checked here instead: a bad one raises ``cubekit.Error`` naming the
kernel, the option, the value given and what the option takes.
"""

import math as _math
import numbers as _numbers
import os as _os

import numpy as _np

from . import _cubekit

INT32 = (-2**31, 2**31 - 1)
INT64 = (-2**63, 2**63 - 1)


def _shown(value):
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def fail(kernel, option, value, expected):
    raise _cubekit.Error(f"{kernel}: {option} must be {expected}, got {_shown(value)} ({type(value).__name__})")


def is_bool(value):
    return isinstance(value, (bool, _np.bool_))


def is_int(value):
    return isinstance(value, (int, _np.integer)) and not is_bool(value)


def is_real(value):
    return isinstance(value, (_numbers.Real, _np.integer, _np.floating)) and not is_bool(value)


def boolean(kernel, option, value, *, none=False):
    """True or False (numpy bools too); with none=True, None (the schedule's choice) as well."""
    if none and value is None:
        return None
    if not is_bool(value):
        fail(kernel, option, value, "True or False" + (" (or None: the schedule's choice)" if none else ""))
    return bool(value)


def integer(kernel, option, value, *, bits=INT64, meaning=""):
    """An int (numpy ints too, not bools or floats) that fits the C++ field (`bits`: INT32 or
    INT64); what values make sense is C++'s to say, with its own message."""
    if not is_int(value):
        fail(kernel, option, value, f"an integer{meaning}")
    if not bits[0] <= int(value) <= bits[1]:
        fail(kernel, option, value, f"an integer that fits in {32 if bits == INT32 else 64} bits{meaning}")
    return int(value)


def real(kernel, option, value):
    """A finite int or float (numpy scalars too), as a float."""
    try:  # an int past float's range (10**400) raised OverflowError here
        finite = is_real(value) and _math.isfinite(float(value))
    except OverflowError:
        finite = False
    if not finite:
        fail(kernel, option, value, "a finite number (an int or a float)")
    return float(value)


def choice(kernel, option, value, choices):
    if not isinstance(value, str) or value not in choices:
        fail(kernel, option, value, " or ".join(repr(c) for c in choices))
    return value


def dtype(kernel, option, value):
    """A dtype name or a numpy type or dtype; C++ checks the name."""
    if isinstance(value, str) or isinstance(value, _np.dtype) or (isinstance(value, type) and issubclass(value, _np.generic)):
        return value
    fail(kernel, option, value, "a dtype: 'f16', 'f32', 's8', 's32', ... or a numpy type such as numpy.float16")


def path(kernel, option, value):
    """None or a file path (str or os.PathLike), as a str."""
    if value is None:
        return None
    if not isinstance(value, (str, _os.PathLike)):
        fail(kernel, option, value, "None or a file path (a str or a pathlib.Path)")
    if _os.fspath(value) == "":
        fail(kernel, option, value, "None (no file) or a file path; an empty one names no file")
    return _os.fspath(value)


def chip(kernel, value):
    """A preset name, a JSON path, a dict or a ChipConfig (C++ reads it)."""
    if isinstance(value, _os.PathLike):
        value = _os.fspath(value)
    if value is None or isinstance(value, (str, dict, _cubekit.ChipConfig)):
        return _cubekit.chip(value)
    fail(kernel, "chip", value, "a preset name, a chip JSON path, a dict or a cubekit.ChipConfig")


def names(kernel, option, value, allowed):
    """A name, names separated by commas (as the CLI takes them: "bias,relu"), a list/tuple of names,
    or None (none), as a list."""
    if value is None:
        return []
    items = [n.strip() for n in value.split(",")] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not all(isinstance(i, str) for i in items):
        fail(kernel, option, value, f"a name or a list of names ({', '.join(allowed)})")
    return list(items)


def axis(kernel, value, ndim, *, many=False):
    """An axis of an ndim array (negative ones count from the end) as a sorted tuple of
    non-negative axes; with many=True also None (every axis) or a tuple of axes."""
    if many and value is None:
        return tuple(range(ndim))
    items = value if many and isinstance(value, tuple) else (value,)
    expected = ("an int, a tuple of ints or None (every axis)" if many else "an int") + \
        f" from {-ndim} to {ndim - 1} (the array has {ndim} dimension{'s' if ndim != 1 else ''})"
    if not all(is_int(a) and -ndim <= int(a) < ndim for a in items):
        fail(kernel, "axis", value, expected)
    axes = tuple(sorted(int(a) % ndim for a in items))
    if len(set(axes)) != len(axes):
        fail(kernel, "axis", value, expected + ", each axis once")
    return axes


# The options every kernel function takes, and how each is checked (matmul's schedule overrides too).
COMMON = ("schedule", "chip", "timing_only", "trace", "raise_on_diagnostics")
SCHEDULE_OVERRIDES = ("tm", "tn", "tk_l0", "tk_l1", "core_group", "l1_copies", "double_buffer", "use_cores", "stagger")


def common(kernel, schedule, chip_, timing_only, trace, raise_on_diagnostics):
    """The checked values of the options every kernel takes."""
    return (choice(kernel, "schedule", schedule, ("default", "naive")), chip(kernel, chip_),
            boolean(kernel, "timing_only", timing_only), path(kernel, "trace", trace),
            boolean(kernel, "raise_on_diagnostics", raise_on_diagnostics))


def schedule_override(kernel, key, value):
    """One of matmul's schedule overrides (SCHEDULE_OVERRIDES), checked."""
    if key in ("double_buffer", "use_cores", "stagger"):
        return boolean(kernel, key, value, none=True)
    return integer(kernel, key, value, bits=INT32 if key == "l1_copies" else INT64, meaning=" (0: the schedule's choice)")
