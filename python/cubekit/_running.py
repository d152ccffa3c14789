"""Running on the emulator from Python: ``run`` and ``Func.run`` with ``raise_on_diagnostics``,
and the report of a kernel that had nothing to do (an empty array)."""

import re as _re

from . import _cubekit
from ._options import INT32, boolean, integer, path


def _checked(what, kwargs):
    """The keyword options of run / Func.run checked as the kernels' are (pybind11 would say
    "incompatible function arguments"); options this does not know pass through to C++."""
    for key in ("timing_only", "checks"):
        if key in kwargs:
            kwargs[key] = boolean(what, key, kwargs[key])
    for key in ("blocks", "threads"):
        if key in kwargs:
            kwargs[key] = integer(what, key, kwargs[key], bits=INT32)
    if "trace" in kwargs:
        kwargs["trace"] = path(what, "trace", kwargs["trace"])
    return kwargs


def raise_diagnostics(what, outputs, report):
    """Raises cubekit.Error listing the checker's diagnostics of a run, if it has any; the error
    carries the run's ``outputs`` and ``report`` as attributes."""
    problems = report.get("diagnostics") or []
    if not problems:
        return
    shown = "; ".join(p.get("text", str(p)) for p in problems[:5])
    more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
    err = _cubekit.Error(f"{what}: the emulator's checks found {len(problems)} problem{'s' if len(problems) != 1 else ''}: "
                         f"{shown}{more}; the report has them all (error.report), or run with "
                         f"raise_on_diagnostics=False to get them returned")
    err.outputs, err.report = outputs, report
    raise err


def _layout_hint(program, message):
    """For a shape refused on a tensor a compiled Func holds in another layout (a conv's NC1HWC0 or
    FRACTAL_Z): what converts it."""
    match = _re.match(r"input '([^']*)': the array has shape", message)
    for layout in (getattr(program, "layouts", None) or []) if match else []:
        if layout.startswith(match.group(1) + ":"):
            helper = "kchw_to_fractal_z" if "FRACTAL_Z" in layout else "nchw_to_nc1hwc0"
            return (f"the program holds {layout}: convert the array with cubekit.{helper}, or run the Func with "
                    f"Func.run, which converts its arrays")
    return None


def run(program, inputs=None, *args, raise_on_diagnostics=False, **kwargs):
    """Runs a program on the emulator: ``(outputs, report)``.

    raise_on_diagnostics: raise cubekit.Error when the checker reports a problem (a race, a read
    of unwritten memory, a missing flag, ...) instead of returning it in report["diagnostics"];
    the error's ``.report`` and ``.outputs`` hold the run. The other arguments are those of the
    extension's run, below.

    """
    strict = boolean("run", "raise_on_diagnostics", raise_on_diagnostics)
    try:
        outputs, report = _cubekit.run(program, {} if inputs is None else inputs, *args, **_checked("run", kwargs))
    except _cubekit.Error as e:
        hint = _layout_hint(program, str(e))
        if hint:
            raise _cubekit.Error(f"{e}; {hint}") from None
        raise
    if strict:
        raise_diagnostics(f"run of {program.name}", outputs, report)
    return outputs, report


run.__doc__ += _cubekit.run.__doc__ or ""

_func_run = _cubekit.Func.run


def _run_func(self, inputs, *args, raise_on_diagnostics=False, **kwargs):
    strict = boolean(f"{self.name}.run", "raise_on_diagnostics", raise_on_diagnostics)
    out, report = _func_run(self, inputs, *args, **_checked(f"{self.name}.run", kwargs))
    if strict:
        raise_diagnostics(f"{self.name}.run", {self.name: out}, report)
    return out, report


_run_func.__doc__ = """Compiles and runs the Func on the emulator: (result as a numpy array, report dict).

inputs: numpy arrays by Input name; chip: a preset name, JSON path, dict or ChipConfig;
timing_only: cycles only; trace: a path for a Chrome trace. raise_on_diagnostics: raise
cubekit.Error when the checker reports a problem instead of returning it in
report["diagnostics"] (the error's .report and .outputs hold the run).

""" + (_func_run.__doc__ or "")
_run_func.__name__ = "run"
_cubekit.Func.run = _run_func


def run_laid_out(kernel, func, named, chip, timing_only, trace, strict, also=()):
    """Ready kernel `kernel`'s Func run on numpy arrays whose program keeps some in the cube's layouts:
    (result, report), report["host"] listing each conversion (a 16-bit feature map's on the vector
    unit, TransData emulated with the data and checked against the host's conversion; the rest on
    the host). report["kernel"] names the ready kernel, as an empty input's report does, and
    report["program"] the program (its output's name)."""
    y, report = func.run(named, chip=chip, timing_only=timing_only, trace=trace, also=list(also))
    report["launched"] = True
    report["program"], report["kernel"] = report["kernel"], kernel
    report["host"] = (report.get("host", []) + [f"host conversion (not emulated): {c}" for c in report.get("host_conversions", [])]
                      + [f"TransData {t['layout']} ({t['direction']}): {t['cycles']} cycles on the vector unit (emulated"
                         f"{', the same bits as the host' if t['checked'] else ', timing-only'})"
                         for t in report.get("transdata", [])])
    if strict:
        raise_diagnostics(func.name, {func.name: y, **report.get("also", {})}, report)
    return y, report


def empty_report(kernel, shape, chip, timing_only):
    """The report of a kernel given an empty array: nothing was compiled or launched (`timing_only`: the
    mode the call asked for)."""
    pipes = ("S", "MTE1", "MTE2", "MTE3", "M", "FIX", "V")
    return {
        "kernel": kernel, "launched": False,
        "note": f"nothing ran: the result is empty (shape {tuple(shape)}), so no kernel was compiled or launched",
        "chip": chip.name, "clock_mhz": chip.clock_mhz, "cycles": 0, "microseconds": 0.0, "blocks": 0, "cores": 0,
        "instructions": 0, "timing_only": bool(timing_only), "race_checks": False, "diagnostics": [], "hot_spots": [], "per_core": [],
        "bytes": {}, "gm_bytes": 0, "l2": {"hbm_bytes": 0, "hit_lines": 0, "merged_lines": 0, "miss_lines": 0, "hit_rate": 0.0,
               "merge_rate": 0.0},
        "pipes": {p: {"busy_cycles": 0, "flag_stall_cycles": 0, "instructions": 0, "ratio": 0.0} for p in pipes},
        "ratios": {k: 0.0 for k in ("mac_ratio", "vec_ratio", "mte1_ratio", "mte2_ratio", "mte3_ratio", "scalar_ratio",
                                    "fixpipe_ratio")},
        "roofline": {"bound_cycles": 0, "cube_cycles": 0, "vector_cycles": 0, "hbm_cycles": 0, "efficiency": 0.0,
                     "limiter": "none"},
    }


def running_tuned(tuned_schedule, run):
    """run(); a cubekit.Error it raises while a schedule from the tuning database is in use says so,
    and what to do (a stale or edited entry read as the caller's own mistake)."""
    try:
        return run()
    except _cubekit.Error as e:
        if tuned_schedule is None:
            raise
        params = " ".join(f"{k}={v}" for k, v in sorted(tuned_schedule.get("params", {}).items())) or "(the default)"
        raise _cubekit.Error(f"{e} (this kernel's schedule, {params}, came from the tuning database: if it is at fault, "
                             "tune the problem again (cubekit.tune), or leave the database out: "
                             "cubekit.set_tuning_db('off'))") from e


def tuned(result, tuned_schedule):
    """Marks a kernel's report with the tuned schedule it took from the tuning database, if any:
    report["schedule"] is "tuned" and report["tuned"] says which (params, cycles when tuned, the
    default's, the database). Returns `result` ((..., report))."""
    if tuned_schedule is not None:
        report = result[-1]
        report["schedule"] = "tuned"
        report["tuned"] = tuned_schedule
    return result
