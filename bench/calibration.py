"""The calibration suite (calibration/rows.json): runs each row's cubekit command, computes its
metrics from the JSON report and prints model beside hardware with their ratio and whether the row
is within its tolerance. A row whose requirements this build lacks is reported "not run: <reason>".

    bench/run.py calibration [--build DIR] [--cheap] [--check] [--only ID[,ID]]

--cheap runs only the rows marked cheap (timing-only, seconds each); --check exits 1 when a row
that ran leaves its tolerance (the ctest `calibration` runs `--cheap --check`).
"""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROWS = os.path.join(ROOT, "calibration", "rows.json")


def cubekit(build, args):
    return subprocess.run([os.path.join(build, "bin", "cubekit")] + args, capture_output=True, text=True, cwd=ROOT)


def presets(build):
    done = cubekit(build, ["chips", "--json"])
    if done.returncode != 0:
        sys.exit(f"bench/run.py calibration: `cubekit chips --json` failed: {done.stderr.strip()}")
    chips = json.loads(done.stdout)
    return {c["name"]: c for c in (chips if isinstance(chips, list) else [chips])}


def missing(build, chips, requirement, chip):
    """Why `requirement` is not met by this build, or None when it is."""
    if requirement.startswith("chip:"):
        name = requirement[len("chip:"):]
        return None if name in chips else f"this build has no chip preset '{name}' (presets: {', '.join(chips)})"
    if requirement == "split-core matmul":
        if chip not in chips:
            return f"no chip preset '{chip}'"
        if not any(k.get("kind") == "aic" for k in chips[chip].get("kinds", [])):
            return f"'{chip}' is a coupled chip here, not split into cube and vector cores"
        probe = cubekit(build, ["kernel", "matmul", "--m", "64", "--n", "64", "--k", "64", "--timing-only", "--chip", chip])
        if probe.returncode != 0:
            return f"the matmul compiler does not target '{chip}' yet ({probe.stderr.strip().splitlines()[-1:]})"
        return None
    return f"unknown requirement '{requirement}'"


def metrics(report, row, chip):
    seconds = report["microseconds"] * 1e-6
    gm_read = report["bytes"].get("GM->L1", 0) + report["bytes"].get("GM->UB", 0)
    gm_bytes = report["gm_bytes"]  # every path to or from GM (the split chips' L0C->GM too)
    hbm_peak = chip["timing"]["hbm_rate"] * chip["clock_mhz"] * 1e6  # bytes per second
    l2 = report["l2"]
    return {
        "ms": report["microseconds"] / 1e3,
        "tflops": row.get("flops", 0) / seconds / 1e12,
        "mac_ratio": report["ratios"]["mac_ratio"],
        "mte2_ratio": report["ratios"]["mte2_ratio"],
        # A request that finds its line allocated in L2, filled or still filling, is a hit to the
        # hardware's counters: the report's hits plus its merged fills.
        "l2_hit_rate": l2["hit_rate"] + l2.get("merge_rate", 0),
        "mte2_tbps": gm_read / seconds / 1e12,
        # atlaslmimog_0048's "actual bandwidth": the bytes MTE2 moved over the time it was moving them.
        "mte2_busy_tbps": gm_read / (seconds * max(report["ratios"]["mte2_ratio"], 1e-12)) / 1e12,
        "hbm_fraction": gm_bytes / seconds / hbm_peak,
    }


def within(model, check):
    t = check["tolerance"]
    if "relative" in t:
        return abs(model / check["hardware"] - 1) <= t["relative"]
    return abs(model - check["hardware"]) <= t["absolute"]


def tolerance_text(check):
    t = check["tolerance"]
    return f"±{100 * t['relative']:.0f}%" if "relative" in t else f"±{t['absolute']:g}"


def run_row(build, chips, row):
    """(status, lines): status 'pass', 'fail' or 'not run'."""
    for requirement in row.get("requires", []):
        why = missing(build, chips, requirement, row["chip"])
        if why:
            return "not run", [f"  not run: {why}"]
    command = row["command"] + ["--chip", row["chip"]]
    done = cubekit(build, command)
    if done.returncode not in (0, 1) or not done.stdout.strip().startswith("{"):
        return "fail", [f"  FAIL: `cubekit {' '.join(command)}` exited {done.returncode}: {done.stderr.strip()[:400]}"]
    report = json.loads(done.stdout)
    report = report.get("report", report)
    values = metrics(report, row, chips[row["chip"]])
    status, lines = "pass", []
    for check in row["checks"]:
        model, hardware = values[check["metric"]], check["hardware"]
        ok, verdict = within(model, check), "ok"
        miss = check.get("known_miss")
        if not ok and miss and miss["model_within"][0] <= model <= miss["model_within"][1]:
            verdict = f"KNOWN MISS: {miss['why']}"
            status = "known miss" if status == "pass" else status
        elif not ok:
            verdict, status = "OUT OF TOLERANCE", "fail"
        lines.append(f"  {check['metric']:<14} model {model:10.4g}  hardware {hardware:10.4g}  ratio {model / hardware:6.3f}  "
                     f"tolerance {tolerance_text(check):>6}  {verdict}")
    return status, lines


def unknown_rows(only):
    """What is wrong with --only's row ids (a typo would otherwise run nothing and pass), or None."""
    with open(ROWS) as f:
        ids = [r["id"] for r in json.load(f)["rows"]]
    unknown = [i for i in only if i not in ids]
    if not unknown:
        return None
    return f"--only names rows calibration/rows.json does not have: {', '.join(unknown)} (its ids: {', '.join(ids)})"


def main(build, cheap, check, only):
    """`only`: row ids (run.py has checked them with unknown_rows)."""
    with open(ROWS) as f:
        rows = json.load(f)["rows"]
    if only:
        rows = [r for r in rows if r["id"] in only]
    chips = presets(build)
    counts = {"pass": 0, "known miss": 0, "fail": 0, "not run": 0}
    for row in rows:
        print(f"{row['id']} on {row['chip']}: {row['work']}\n  source: {row['source']}\n  command: cubekit "
              f"{' '.join(row['command'])} --chip {row['chip']}", flush=True)
        if cheap and not row.get("cheap"):
            status, lines = "not run", ["  not run: a costly row (minutes of simulation); run without --cheap"]
        else:
            status, lines = run_row(build, chips, row)
        counts[status] += 1
        print("\n".join(lines), flush=True)
    print(f"calibration: {counts['pass']} passed, {counts['known miss']} with a known miss, {counts['fail']} out of tolerance "
          f"or failed, {counts['not run']} not run")
    return 1 if check and counts["fail"] else 0
