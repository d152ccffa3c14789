"""The example scripts of examples/python run (with --small) and print what they promise."""
import json
import os
import re
import subprocess
import sys

from conftest import SOURCE_DIR

EXAMPLES = SOURCE_DIR / "examples" / "python"


def run_example(name, *args):
    r = subprocess.run([sys.executable, str(EXAMPLES / name), *map(str, args)], capture_output=True, text=True,
                       timeout=120, env=dict(os.environ))
    assert r.returncode == 0, f"{name} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}"
    return r.stdout


def test_elementwise_kernel():
    out = run_example("elementwise_kernel.py", "--small")
    lines = out.splitlines()
    assert lines[0].startswith("scale-shift-sigmoid, 16 x 256 f16")
    timed = [line for line in lines if re.search(r"\d+ cycles on +\d+ core", line)]
    assert len(timed) == 2 and all(line.rstrip().endswith("PASS") for line in timed)
    assert "the same result bit for bit" in out


def test_elementwise_kernel_other_shape():
    out = run_example("elementwise_kernel.py", "--rows", 4, "--cols", 128)
    assert out.startswith("scale-shift-sigmoid, 4 x 128 f16") and out.count("PASS") == 2


def test_compare_matmul_schedules():
    out = run_example("compare_matmul_schedules.py", "--small")
    assert "128 x 128 x 256" in out
    table = {}
    for line in out.splitlines():
        # name, cycles, us, cores, mac_ratio, speedup, check
        m = re.match(r"\s+(default|naive|l1_copies=2, stagger=False)\s+(\d+)\s+([\d.]+)\s+(\d+)\s+([\d.]+)"
                     r"\s+([\d.]+)x\s+(\w+)$", line)
        if m:
            table[m.group(1)] = (int(m.group(2)), int(m.group(4)), float(m.group(5)), m.group(7))
    assert set(table) == {"default", "naive", "l1_copies=2, stagger=False"}
    assert all(row[3] == "PASS" for row in table.values())
    assert all(0 < row[2] <= 1 for row in table.values())  # mac_ratio
    assert table["naive"][1] == 1 and table["default"][1] > 1  # cores
    assert table["naive"][0] > table["default"][0]  # cycles


def test_compare_matmul_schedules_with_a_shape():
    out = run_example("compare_matmul_schedules.py", 64, 32, 48)
    assert "64 x 32 x 48" in out and out.count("PASS") == 3


def test_write_trace(tmp_path):
    path = tmp_path / "trace.json"
    out = run_example("write_trace.py", path, "--small")
    trace = json.loads(path.read_text())
    assert f"wrote {path}" in out and "ui.perfetto.dev" in out and "PASS" in out
    assert len(trace["traceEvents"]) == int(re.search(r"(\d+) events", out).group(1))
    assert trace["otherData"]["cycles"] == int(re.search(r"(\d+) cycles", out).group(1))
    # Without a path it writes /tmp/cubekit_trace.json (not run here: the test leaves /tmp alone).
    assert "default: /tmp/cubekit_trace.json" in run_example("write_trace.py", "--help")
