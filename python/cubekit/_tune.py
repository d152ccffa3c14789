"""cubekit.tune: search a kernel's schedules on timing-only emulated cycles (tune/ in C++).

    best = cubekit.tune("matmul", m=1024, n=1024, k=1024, chip="ascend910b2", budget=64)
    best["params"], best["cycles"], best["default_cycles"], best["speedup"]
    layers = cubekit.tune(suite="bert-large", budget=32)

The best schedule lands in the tuning database (db=, else cubekit.tuning_db(): $CUBEKIT_TUNING_DB or
~/.cache/cubekit/tuning.db), and the kernels (cubekit.kernels.matmul, ...) take it from then on
for the same problem on the same chip: their report then says report["schedule"] == "tuned".
"""

import os as _os

from . import _cubekit
from . import _options as _opt
from ._attention import score_mod_option

_OPTIONS = {"matmul": "MatmulOptions", "conv2d": "Conv2dOptions", "attention": "AttentionOptions"}
# The schedule's own fields: the tuner sets them, a problem does not.
_SCHEDULE_FIELDS = {"schedule", "tm", "tn", "tk_l0", "tk_l1", "core_group", "l1_copies", "double_buffer", "use_cores",
                    "stagger", "rows", "channels", "images", "tile_q", "tile_kv", "preload", "tile_rows", "copies", "use_tuned"}


def tune(kernel=None, *, suite=None, batch=None, chip="ascend910", budget=None, time=None, seed=0, exhaustive=False,
         threads=0, db=None, **problem):
    """Tunes one problem (kernel= and its shape as the options' fields: m, n, k, dtype, ... for
    matmul; n, c, h, w, k, kh, kw, stride, pad, ... for conv2d; batch, heads, seq_q, dim, ... for
    attention; shape, dtype, ... for a vector kernel) or every layer of suite= ("resnet50",
    "bert-large") at batch= (default 8; with a kernel, batch= is its problem's batch). budget: candidates per problem (default 64; a space no larger is
    enumerated); time: seconds after which no new candidate starts (alone, the only limit); the
    same seed gives the same search. chip: as the kernels' (default "ascend910").
    Returns a dict (one problem) or a list of dicts (a suite): params, cycles, default_cycles,
    speedup, evaluated and space (both counting the default schedule), strategy, stopped_by_time,
    ... (tools/README.md, `cubekit tune --json`)."""
    where = "tune"
    if (kernel is None) == (suite is None):
        raise _cubekit.Error("tune: give a kernel (tune('matmul', m=..., n=..., k=...)) or suite= "
                             f"({' or '.join(_cubekit.tune_suites())}), one of the two")
    # time alone: the time is the only limit; budget with it: both are.
    budget = (0 if time is not None else 64) if budget is None else _opt.integer(where, "budget", budget)
    seed = _opt.integer(where, "seed", seed)
    if seed < 0:
        _opt.fail(where, "seed", seed, "0 or more")
    threads = _opt.integer(where, "threads", threads)
    exhaustive = _opt.boolean(where, "exhaustive", exhaustive)
    seconds = 0.0 if time is None else _opt.real(where, "time", time)
    if time is not None and seconds <= 0:
        _opt.fail(where, "time", time, "a positive number of seconds")
    if db is not None and not isinstance(db, (str, _os.PathLike)):
        raise _cubekit.Error(f"tune: db must be a file name (str or path), 'off', or None for cubekit.tuning_db(); got "
                             f"{type(db).__name__} {db!r}")
    if db is not None and _os.fspath(db) == "":
        raise _cubekit.Error("tune: db='' names no file; give the tuning database's file, 'off', or None for "
                             "cubekit.tuning_db()")
    db = "" if db is None else _os.fspath(db)
    if suite is not None:
        if problem:
            raise _cubekit.Error(f"tune: suite= takes no problem options, got {', '.join(problem)}")
        return _cubekit._tune_suite(str(suite), _opt.integer(where, "batch", 8 if batch is None else batch), chip,
                                    budget, seconds, seed, exhaustive, threads, db)
    if not isinstance(kernel, str) or kernel not in _cubekit.tune_kernels():
        raise _cubekit.Error(f"tune: no kernel {kernel!r} to tune; the tunable kernels are "
                             f"{', '.join(_cubekit.tune_kernels())}")
    options = getattr(_cubekit, _OPTIONS.get(kernel, "VectorOptions"))()
    fields = sorted(n for n in dir(options) if not n.startswith("_") and n not in _SCHEDULE_FIELDS)
    if batch is not None:  # the problem's batch (matmul's, conv2d's images are n, attention's)
        problem = {"batch": batch, **problem}
    for key, value in problem.items():
        if key in _SCHEDULE_FIELDS and hasattr(options, key):
            raise _cubekit.Error(f"tune: {key} is a schedule parameter, which the tuner chooses; give the problem only "
                                 f"({', '.join(fields)})")
        if key not in fields:
            raise _cubekit.Error(f"tune: {kernel} has no option '{key}'; its options are {', '.join(fields)}")
        if key == "score_mod":  # a function; the field reads back whether one is set
            options.score_mod = score_mod_option(value)
        else:
            _set_field(kernel, options, key, value)
    # As the CLI: an s8 contraction's result is s32 unless out= says otherwise, and an s8 matmul's
    # B is stored (n, k) (the cube's 8-bit fractals need k contiguous in both operands).
    if kernel in ("matmul", "conv2d") and str(options.dtype) == "s8":
        if "out" not in problem:
            options.out = "s32"
        if kernel == "matmul" and "transpose_b" not in problem:
            options.transpose_b = True
    return _cubekit._tune_problem(kernel, options, chip, budget, seconds, seed, exhaustive, threads, db)


def _set_field(kernel, options, key, value):
    """options.key = value, type-checked as the kernels check their options: the field's own type
    (a bool is no integer, 64.5 no int), a cubekit.Error naming the option otherwise."""
    where = f"tune {kernel}"
    current = getattr(options, key)
    if isinstance(current, bool):
        value = _opt.boolean(where, key, value)
    elif isinstance(current, int):
        value = _opt.integer(where, key, value)
    elif isinstance(current, float):
        value = _opt.real(where, key, value)
    elif isinstance(value, tuple):
        value = list(value)
    try:
        setattr(options, key, value)
    except TypeError:
        _opt.fail(where, key, value, f"a {type(current).__name__} as the {kernel} kernel takes it")

