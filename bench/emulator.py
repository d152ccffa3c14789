"""The emulator's own speed (issue 14): whole `cubekit kernel` processes, as a user runs them.

For GEMM 128^3-2048^3 (f16 -> f32) and add and softmax 1024^2-4096^2 (f16), on ascend910 (32
cores), each command runs functional with every emulator check on (`--no-check`: data, race,
initialisation, sync, bounds; no Halide reference) and timing-only (`--timing-only`), once to warm
up and then `repetitions` times in turn, each measured by build/bin/peak_rss (bench/peak_rss.cpp);
the table has the median wall seconds and the largest peak resident memory (MB) of each, the ratio
functional / timing-only, and mmad's throughput beside OpenBLAS sgemm in one run of build/bin/mmad_bench. Host seconds are noisy on a shared machine: read the ratios.

`--peer DIR` times another emulator's executables in the same run, each repetition beside
cubekit's: DIR holds one program a row, named gemm_128 .. gemm_2048, add_1024, add_4096,
softmax_1024, softmax_4096, each doing that work once as a whole process (issue 14 compared
PTO-ISA's CPU simulation, built from its repository; neither its code nor its build is part of
cubekit). The table then gives its median and cubekit's functional run over it.
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (label, `cubekit kernel` arguments, the peer's program for the same work)
WORK = [
    ("matmul 128^3", ["matmul", "--m", "128", "--n", "128", "--k", "128"], "gemm_128"),
    ("matmul 512^3", ["matmul", "--m", "512", "--n", "512", "--k", "512"], "gemm_512"),
    ("matmul 1024^3", ["matmul", "--m", "1024", "--n", "1024", "--k", "1024"], "gemm_1024"),
    ("matmul 2048^3", ["matmul", "--m", "2048", "--n", "2048", "--k", "2048"], "gemm_2048"),
    ("add 1024^2 f16", ["add", "--rows", "1024", "--cols", "1024"], "add_1024"),
    ("add 4096^2 f16", ["add", "--rows", "4096", "--cols", "4096"], "add_4096"),
    ("softmax 1024^2 f16", ["softmax", "--rows", "1024", "--cols", "1024"], "softmax_1024"),
    ("softmax 4096^2 f16", ["softmax", "--rows", "4096", "--cols", "4096"], "softmax_4096"),
]
MODES = [("functional", "--no-check"), ("timing-only", "--timing-only")]


def timed(command, build):
    """Wall seconds and peak resident MB of one process, measured by build/bin/peak_rss: Python's own
    wait4 would report at least Python's peak (Linux carries it into the program a child execs)."""
    # stderr to a file, not a pipe: a child writing more than a pipe holds would wait for a reader
    # while peak_rss waits for it.
    with tempfile.TemporaryFile() as stderr, tempfile.NamedTemporaryFile("r") as measured:
        done = subprocess.run([os.path.join(build, "bin", "peak_rss"), measured.name] + command,
                              stdout=subprocess.DEVNULL, stderr=stderr, cwd=ROOT)
        stderr.seek(0)
        err = stderr.read().decode(errors="replace")[-4000:]
        fields = measured.read().split()
    if done.returncode != 0 or len(fields) != 3 or fields[2] != "0":
        sys.exit(f"bench/run.py emulator: `{' '.join(command)}` failed:\n{err}")
    return float(fields[0]), int(fields[1]) / 1024


def mmad_rates(build, out):
    """Emulated fp16 mmad and OpenBLAS sgemm in MAC/s (medians of 3, one run of mmad_bench)."""
    binary = os.path.join(build, "bin", "mmad_bench")
    raw = os.path.join(out, "mmad_bench.json")
    done = subprocess.run([binary, f"--benchmark_out={raw}", "--benchmark_out_format=json", "--benchmark_repetitions=3",
                           "--benchmark_report_aggregates_only=true"], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"bench/run.py emulator: mmad_bench failed:\n{done.stderr}")
    with open(raw) as f:
        benchmarks = json.load(f)["benchmarks"]
    rates = {}
    for b in benchmarks:
        if b.get("aggregate_name") == "median":
            rates[b["run_name"].split("/")[0]] = b["MAC/s"]
    return {"emulated_mmad": rates["BM_EmulatedMmadF16"], "openblas_sgemm": rates["BM_OpenblasSgemm"]}


def main(build, repetitions, out, peer=None):
    cubekit = os.path.join(build, "bin", "cubekit")
    if not os.access(os.path.join(build, "bin", "peak_rss"), os.X_OK):
        sys.exit(f"bench/run.py emulator: {build}/bin/peak_rss is missing; build it (ninja -C {build} peak_rss)")
    if peer:
        missing = [p for _, _, p in WORK if not os.access(os.path.join(peer, p), os.X_OK)]
        if missing:
            sys.exit(f"bench/run.py emulator: --peer {peer} has no executable {', '.join(missing)} "
                     "(one program a row: gemm_128 .. softmax_4096)")
    rows = []
    for label, args, peer_program in WORK:
        row = {"work": label}
        commands = {mode: [cubekit, "kernel"] + args + [flag, "--chip", "ascend910"] for mode, flag in MODES}
        if peer:
            commands["peer"] = [os.path.join(peer, peer_program)]
        runs = {mode: [] for mode in commands}
        for command in commands.values():  # a warm-up: the first run of a command pays for the cold caches
            timed(command, build)
        for _ in range(repetitions):  # in turn, so that a slow spell of the machine hits every command
            for mode, command in commands.items():
                runs[mode].append(timed(command, build))
        for mode, got in runs.items():
            row[mode] = {"seconds": statistics.median(s for s, _ in got), "peak_mb": max(m for _, m in got)}
        rows.append(row)
        print(f"{label}: functional {row['functional']['seconds']:.3f} s, {row['functional']['peak_mb']:.0f} MB; "
              f"timing-only {row['timing-only']['seconds']:.3f} s, {row['timing-only']['peak_mb']:.0f} MB"
              + (f"; peer {row['peer']['seconds']:.3f} s" if peer else ""), flush=True)
    os.makedirs(out, exist_ok=True)
    mmad = mmad_rates(build, out)
    head = "| work | functional s (every emulator check, --no-check: no Halide reference) | peak MB | timing-only s | peak MB | functional / timing-only |"
    lines = [head + (" peer s | functional / peer |" if peer else ""), "|---" * (6 + (2 if peer else 0)) + "|"]
    for r in rows:
        f, t = r["functional"], r["timing-only"]
        line = (f"| {r['work']} | {f['seconds']:.3f} | {f['peak_mb']:.0f} | {t['seconds']:.3f} | {t['peak_mb']:.0f} | "
                f"{f['seconds'] / t['seconds']:.1f}x |")
        if peer:
            line += f" {r['peer']['seconds']:.3f} | {f['seconds'] / r['peer']['seconds']:.2f} |"
        lines.append(line)
    text = "\n".join(lines) + "\n"
    text += (f"\nmmad (256^3 fp16, mmad_bench, medians of 3): emulated {mmad['emulated_mmad'] / 1e9:.1f} GMAC/s, "
             f"OpenBLAS sgemm {mmad['openblas_sgemm'] / 1e9:.1f} GMAC/s: "
             f"{mmad['emulated_mmad'] / mmad['openblas_sgemm']:.2f}x\n")
    print("\n" + text)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "emulator.json"), "w") as f:
        json.dump({"repetitions": repetitions, "peer": peer, "rows": rows, "mmad": mmad}, f, indent=1)
    with open(os.path.join(out, "emulator.md"), "w") as f:
        f.write(text)
    return 0
