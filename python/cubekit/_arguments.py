"""Calls with arguments of the wrong kind, said in cubekit's words.

pybind11 refuses them with a TypeError "incompatible function arguments" that prints every
argument's repr: a numpy array of a few thousand elements became pages of digits, and a misspelt
keyword (``f.run(inputs, bound=...)``) was not named. ``checked_calls`` wraps the extension's
functions and the public methods of its classes so that such a call raises ``ArgumentsError`` (a
``cubekit.Error`` and a ``TypeError``) naming the function, what it takes, and what it got, arrays
by dtype and shape. Every other error passes through unchanged.
"""

import functools
import inspect
import re

import numpy as np

from . import _cubekit


class ArgumentsError(_cubekit.Error, TypeError):
    """A call whose arguments the function does not take (both a cubekit.Error and a TypeError)."""


def _described(value, depth=0):
    """A short description of an argument: arrays by dtype and shape, containers shallowly."""
    if isinstance(value, np.ndarray):
        return f"numpy {value.dtype} array of shape {tuple(value.shape)}"
    if depth == 0 and isinstance(value, dict):
        items = ", ".join(f"{k!r}: {_described(v, 1)}" for k, v in list(value.items())[:6])
        return "{" + items + (", ..." if len(value) > 6 else "") + "}"
    if depth == 0 and isinstance(value, (list, tuple)) and len(value) <= 6:
        inner = ", ".join(_described(v, 1) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
    if type(value).__module__ == _cubekit.__name__ and isinstance(getattr(value, "name", None), str):
        return f"{type(value).__name__} {value.name}"
    text = repr(value)
    return text if len(text) <= 40 else f"{type(value).__name__} {text[:37]}..."


def _signatures(message):
    """The signatures pybind11 lists as supported, without the module's prefix."""
    listed = message.split("supported:", 1)[-1].split("Invoked with", 1)[0]
    found = [re.sub(r"^\s*\d+\.\s*", "", line).strip() for line in listed.splitlines() if line.strip()]
    return [s.replace("cubekit._cubekit.", "") for s in found]


def _parameters(signature):
    """The parameter names of one signature, e.g. "(func: Func, inputs: dict) -> numpy.ndarray"."""
    return re.findall(r"[(,]\s*\**(\w+):", signature)


def _refused(what, message, args, kwargs, extra):
    signatures = _signatures(message)
    known = ({p for s in signatures for p in _parameters(s)} | set(extra)) - {"self"}
    unknown = [k for k in kwargs if k not in known]
    given = ", ".join([_described(a) for a in args] + [f"{k}={_described(v)}" for k, v in kwargs.items()])
    takes = " or ".join(signatures) if signatures else "(see its help)"
    if unknown and known:
        return ArgumentsError(f"{what}: unknown keyword {', '.join(repr(k) for k in unknown)}; it takes "
                              f"{', '.join(sorted(known))} (see help)")
    return ArgumentsError(f"{what}: these arguments do not match what it takes: got ({given}); it takes {takes}")


def _wrapped(fn, what, method=False):
    """fn, raising ArgumentsError for the calls pybind11 refuses; `what` names it in messages (a
    method's owner is the object's own name where it has one, e.g. "F.run")."""
    name = getattr(fn, "__name__", what)
    # A Python function's own keywords (Func.run's raise_on_diagnostics), besides the extension's.
    extra = [p.name for p in inspect.signature(fn).parameters.values() if p.kind == p.KEYWORD_ONLY] \
        if type(fn).__name__ == "function" else []

    @functools.wraps(fn)
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except TypeError as e:
            if isinstance(e, ArgumentsError) or not str(e).startswith(f"{name}(): incompatible "):
                raise
            shown, title = args, what
            if method and args:
                own = getattr(args[0], "name", None)
                shown, title = args[1:], f"{own}.{name}" if isinstance(own, str) and own else what
            raise _refused(title, str(e), shown, kwargs, extra) from None
    return call


def checked_calls(namespace, classes):
    """Wraps the public functions of `namespace` (a module's dict) and the public methods of
    `classes` in place."""
    for key, value in list(namespace.items()):
        if not key.startswith("_") and type(value).__name__ in ("builtin_function_or_method", "function"):
            namespace[key] = _wrapped(value, key)
    for cls in classes:
        for key, value in list(vars(cls).items()):
            if key.startswith("_"):
                continue
            if isinstance(value, staticmethod):
                setattr(cls, key, staticmethod(_wrapped(value.__func__, f"{cls.__name__}.{key}")))
            elif type(value).__name__ in ("instancemethod", "function"):
                setattr(cls, key, _wrapped(value, f"{cls.__name__}.{key}", method=True))
