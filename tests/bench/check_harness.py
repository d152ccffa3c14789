#!/usr/bin/python3
"""Runs bench/run.py on the smoke suite into a fresh directory and checks what it wrote: the JSON's
schema (every record with its kind's fields, numbers where numbers belong), the Markdown table's
rows, and that both plots are PNG images."""

import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")

COMMON = {"kernel": str, "shape": str, "implementation": str, "kind": str, "host_seconds": float, "flops": float,
          "bytes": float, "arithmetic_intensity": float}
EMULATOR = {"cycles": float, "tflops": float, "mac_ratio": float, "vec_ratio": float, "efficiency": float,
            "gm_bytes": float, "compile_ms": float, "cores_used": float, "pipes": dict}
HOST = {"host_tflops": float}
CHECK = {"emulation_seconds": float, "check_seconds": float, "check_over_emulation": float}


def check(record):
    fields = dict(COMMON, **{"emulator": EMULATOR, "check": CHECK}.get(record["kind"], HOST))
    for key, kind in fields.items():
        assert key in record, f"{record.get('kernel')}/{record.get('implementation')}: no '{key}'"
        value = record[key]
        assert isinstance(value, (int, float)) if kind is float else isinstance(value, kind), f"'{key}' is {value!r}"
    assert record["kind"] in ("emulator", "host", "check")
    if record["kind"] == "emulator":
        assert record["cycles"] > 0 and 0 <= record["efficiency"] <= 1.0001
        assert set(record["pipes"]) == {"S", "MTE2", "MTE1", "M", "FIX", "V", "MTE3"}


def main():
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([sys.executable, os.path.join(ROOT, "bench", "run.py"), "smoke", "--out", out, "--build", BUILD,
                        "--repetitions", "1", "--min-time", "0.01"], check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(out, "results.json")) as f:
            results = json.load(f)
        assert results["suite"] == "smoke"
        for key in ("name", "cores", "clock_mhz", "peak_tflops", "vector_peak_tflops", "hbm_gbps"):
            assert key in results["chip"], f"chip has no '{key}'"
        records = results["results"]
        for r in records:
            check(r)
        implementations = {(r["kernel"], r["implementation"]) for r in records}
        for wanted in [("matmul", "default"), ("matmul", "naive"), ("matmul", "halide_cpu"), ("matmul", "cpp_loop"),
                       ("softmax", "default"), ("softmax", "halide_cpu"), ("matmul", "check_f16"), ("softmax", "check_f16")]:
            assert wanted in implementations, f"no {wanted} in the results"
        with open(os.path.join(out, "results.md")) as f:
            table = f.read()
        assert "| 128x128x128 |" in table and "naive / default" in table, "the matmul table is missing"
        assert "| softmax | 64x256 |" in table and "of HBM peak" in table, "the vector table is missing"
        assert "| matmul | 128x128x128 | f16 |" in table and "check / emulation" in table, "the check table is missing"
        for plot in ("roofline.png", "pipes.png"):
            with open(os.path.join(out, plot), "rb") as f:
                assert f.read(8) == b"\x89PNG\r\n\x1a\n", f"{plot} is not a PNG"
        # Bad arguments: one line saying what was wrong, before any work (they were tracebacks, or
        # a silent pass: a calibration --only with a typo ran nothing and exited 0).
        run = lambda *a: subprocess.run([sys.executable, os.path.join(ROOT, "bench", "run.py"), *a], capture_output=True, text=True)
        for args, message in [(["smoke", "--build", os.path.join(out, "none")], "has no bin/cubekit: build it first"),
                              (["smoke", "--build", BUILD, "--repetitions", "0"], "--repetitions must be at least 1, got 0"),
                              (["smoke", "--build", BUILD, "--out", os.path.join(out, "results.json", "x")], "--out"),
                              (["resnet50", "--build", BUILD, "--chips", "nosuch"], "'nosuch' is not a preset"),
                              (["calibration", "--build", BUILD, "--only", "stream_add_91O"], "does not have: stream_add_91O"),
                              (["smoke", "--build", BUILD, "--chip", "nochip"], "'nochip' is neither a preset"),
                              # an option of another suite did nothing
                              (["resnet50", "--build", BUILD, "--repetitions", "5"],
                               "--repetitions: the resnet50 suite takes no such option; it is for matmul, vector, check, "
                               "smoke, all and emulator"),
                              (["emulator", "--build", BUILD, "--cheap"], "--cheap: the emulator suite takes no such option; "
                               "it is for calibration"),
                              (["resnet50", "--build", BUILD, "--standard-only"], "give both")]:
            done = run(*args)
            assert done.returncode == 2, f"{args}: exit {done.returncode}, not 2 (a bad argument's, as argparse's)"
            assert message in done.stderr and "Traceback" not in done.stderr, f"{args}: {done.stderr[-500:]}"
        print(f"harness: {len(records)} records, table and plots checked")


if __name__ == "__main__":
    main()
