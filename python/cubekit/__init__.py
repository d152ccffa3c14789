"""cubekit: kernels for Ascend-style AI Cores, prototyped, compiled and emulated from Python.

The pieces, as in C++ (see the README and docs/ of the repository):

* chips: ``chips()``, ``chip(name)``, ``ChipConfig`` (``to_dict`` / ``from_dict`` / JSON);
* programs: ``assemble(text)``, ``load(path)``, ``Builder``, ``Program.text()``, and
  ``run(program, inputs)`` on the emulator, which returns ``(outputs, report)`` with numpy arrays
  (fp16 as ``numpy.float16``; bf16, which numpy lacks, as ``numpy.uint16`` bit patterns, converted
  by ``bf16_from_float32`` / ``bf16_to_float32``) and the report as a dict; ``trace=path`` writes a Chrome trace;
  ``raise_on_diagnostics=True`` (also for ``Func.run`` and the kernels) raises ``cubekit.Error``
  when the checker finds a problem instead of returning it in the report;
* the cube's convolution layouts: ``nchw_to_nc1hwc0``, ``nc1hwc0_to_nchw``, ``kchw_to_fractal_z``
  (numpy in and out, as CANN's TransData; what ``load3d`` and the GEMM's B operand read);
* the DSL: ``Var``, ``RVar``, ``RDom`` (also multi-dimensional: ``RDom([(0, C), (0, KH)])``, ``r.x``, ``r.y``),
  ``Input``, ``constant_exterior(input, value)`` (reads outside the shape give the value), ``Func``
  (define with ``f[m, n] = ...``),
  expressions with Python operators, ``cast``, ``min``, ``max``, ``exp``, ``log``, ``sqrt``,
  ``abs``, ``select`` (also ``where``), ``sum``, ``maximum``, ``minimum``, every schedule primitive as a ``Func``
  method, ``Level``; ``compile(func)``, ``Func.run(inputs)``, ``reference(func, inputs)`` (Halide);
* ``cubekit.kernels``: the ready kernels as one-call functions, e.g. ``kernels.matmul(a, b)``,
  ``kernels.conv2d(x, w, ...)``, ``kernels.max_pool2d(x, 3, 2, 1)``, with numpy's (and for conv
  and pooling torch's) habits (broadcasting, axis, keepdims, empty arrays: see its help);
  ``default_schedule(func)`` gives a Func you defined the schedule those kernels use, as a
  ``Schedule`` value (``Func.run(inputs, schedule=s)``, ``compile(func, schedule=s)``; a Func's own
  schedule is ``func.schedule``);
* the tuner: ``tune("matmul", m=..., n=..., k=..., budget=64)`` or ``tune(suite="bert-large")``
  searches schedules on emulated cycles and keeps the best in the tuning database
  (``set_tuning_db(path)``, ``tuning_db()``), which the kernels then use (``report["schedule"] ==
  "tuned"``).

Every error is a ``cubekit.Error`` carrying cubekit's message (what was wrong, where, what to do);
a call with arguments a function does not take (a misspelt keyword, an array where a dict goes)
raises ``cubekit.ArgumentsError``, both a ``cubekit.Error`` and a ``TypeError``, naming what it
takes and what it got.
"""

from ._cubekit import __version__  # noqa: F401  (as `cubekit --version` says)
from ._cubekit import (  # noqa: F401
    Builder,
    ChipConfig,
    Error,
    Expr,
    Exterior,
    Func,
    Input,
    InternalError,
    Level,
    Operand,
    Program,
    RDom,
    RVar,
    Schedule,
    Var,
    abs,
    assemble,
    bf16_from_float32,
    bf16_to_float32,
    cast,
    chip,
    chips,
    compile,
    constant_exterior,
    exp,
    flag,
    imm,
    kchw_to_fractal_z,
    kw,
    load,
    log,
    mask_bits,
    mask_count,
    mask_counter,
    max,
    maximum,
    mem,
    min,
    nc1hwc0_to_nchw,
    nchw_to_nc1hwc0,
    minimum,
    name,
    num,
    reference,
    select,
    set_tuning_db,
    tuning_db,
    sqrt,
    sum,
    x,
)
from ._running import run  # noqa: E402  (raise_on_diagnostics; also adds it to Func.run)
from . import kernels  # noqa: F401,E402
from .kernels import default_schedule  # noqa: F401,E402
from ._tune import tune  # noqa: F401,E402

from ._arguments import ArgumentsError, checked_calls  # noqa: E402

checked_calls(globals(), [Builder, ChipConfig, Expr, Func, Input, Program, RDom, RVar, Schedule, Var])
del checked_calls

where = select  # numpy's name: where(condition, if_true, if_false)

__all__ = [n for n in dir() if not n.startswith("_")]
