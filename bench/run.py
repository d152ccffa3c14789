#!/usr/bin/python3
"""Runs a benchmark suite and makes what a kernel author reads: results.json, a Markdown table and
two plots (a roofline of emulated TFLOPS against arithmetic intensity under the chip's compute and
bandwidth ceilings, and the per-pipe utilisation of every emulated implementation).

    bench/run.py [SUITE] [--chip NAME] [--out DIR] [--build DIR] [--repetitions N]

SUITE emulator runs bench/emulator.py (the emulator's own speed and memory: whole `cubekit kernel`
processes, functional with every check and timing-only, and mmad beside OpenBLAS). SUITE attention runs bench/attention.py (BERT-Large's self-attention fused against the unfused
chain; --long the 910B2's long sequences beside the board). SUITE calibration runs calibration/rows.json instead (bench/calibration.py: model beside the
published hardware figures, with --cheap, --check and --only). SUITE is matmul (square 512-4096 and the GEMMs of BERT-Large at sequence 512), vector (4096 x 4096
f16 kernels), check (what `cubekit kernel` runs after compiling: the full emulation and the golden
check against Halide, side by side, for those kernels and their f32, s8 and epilogue variants), smoke
(tiny, for the tests) or all. Host times are medians over the repetitions, after a warm-up; emulated
cycles are exact.
"""

import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The bench compares the schedules it names (the default, the naive one, published tilings): a tuned
# schedule from the user's database would change what "default" means. Set CUBEKIT_TUNING_DB to
# measure with one.
os.environ.setdefault("CUBEKIT_TUNING_DB", "off")
PIPES = ["S", "MTE2", "MTE1", "M", "FIX", "V", "MTE3"]  # FIX: the split chips' way out of L0C


def run_suite(build, suite, chip, repetitions, min_time, raw_path):
    """Runs kernels_bench, its console output as the progress; returns its JSON."""
    command = [os.path.join(build, "bin", "kernels_bench"), f"--suite={suite}", f"--chip={chip}",
               f"--benchmark_repetitions={repetitions}", "--benchmark_report_aggregates_only=true",
               f"--benchmark_out={raw_path}", "--benchmark_out_format=json"]
    if min_time:
        command.append(f"--benchmark_min_time={min_time}")
    print(f"running {suite} on {chip}: {' '.join(command)}", flush=True)
    done = subprocess.run(command)
    if done.returncode != 0:
        sys.exit(f"bench/run.py: kernels_bench failed (exit {done.returncode})")
    with open(raw_path) as f:
        return json.load(f)


def chip_info(build, chip):
    """The chip's parameters and its ceilings: cube peak TFLOPS (f16) and HBM bandwidth."""
    c = next((p for p in cubekit_chips(build) if p["name"] == chip), None)
    if c is None:
        with open(chip) as f:
            c = json.load(f)
    clock_hz = c["clock_mhz"] * 1e6
    f16 = next(f for f in c["cube"] if f["input"] == "f16")
    macs = f16["m0"] * f16["k0"] * f16["n0"]
    # split chips: `cores` cube cores, each with vector_cores_per_cube vector cores
    vector_cores = c["cores"] * c["vector_cores_per_cube"] if c.get("vector_cores_per_cube") else c["cores"]
    return {"name": c["name"], "cores": c["cores"], "vector_cores": vector_cores, "clock_mhz": c["clock_mhz"],
            "peak_tflops": 2 * macs * c["cores"] * clock_hz / 1e12,
            # one simple f16 operation per lane per cycle: a 256 B repeat is 128 lanes
            "vector_peak_tflops": c["vector_repeat_bytes"] / 2 / c["timing"]["vector_simple_cycles"] * vector_cores * clock_hz / 1e12,
            "hbm_gbps": c["timing"]["hbm_rate"] * clock_hz / 1e9}


def results_of(raw):
    """One record per benchmark (its median when repeated)."""
    records = []
    for b in raw["benchmarks"]:
        if b.get("aggregate_name", "median") != "median" or b.get("error_occurred"):
            continue
        kernel, shape, implementation = b["run_name"].split("/")[:3]
        seconds = b["real_time"] * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
        r = {"kernel": kernel, "shape": shape, "implementation": implementation, "kind": b.get("label", ""),
             "host_seconds": seconds, "flops": b["flops"], "bytes": b["bytes"],
             "arithmetic_intensity": b["flops"] / b["bytes"]}
        if r["kind"] == "emulator":
            for key in ["cycles", "tflops", "mac_ratio", "vec_ratio", "efficiency", "gm_bytes", "compile_ms", "cores_used"]:
                r[key] = b[key]
            r["pipes"] = {p: b[f"pipe_{p}"] for p in PIPES}
        elif r["kind"] == "check":
            r["emulation_seconds"], r["check_seconds"] = b["emulation_s"], b["check_s"]
            r["check_over_emulation"] = b["check_over_emulation"]
        else:
            r["host_tflops"] = b["flops"] / seconds / 1e12
        records.append(r)
    return records


def group(records):
    out = {}
    for r in records:
        out.setdefault((r["kernel"], r["shape"]), {})[r["implementation"]] = r
    return out


def markdown(chip, records):
    lines = [f"# cubekit benchmarks on {chip['name']}", "",
             (f"{chip['cores']} cores" if chip["vector_cores"] == chip["cores"]
              else f"{chip['cores']} cube cores and {chip['vector_cores']} vector cores") +
             f" at {chip['clock_mhz']:.0f} MHz: cube peak {chip['peak_tflops']:.0f} TFLOPS (f16), "
             f"HBM {chip['hbm_gbps']:.0f} GB/s. Emulated cycles are exact; host times are medians on this machine.", ""]
    groups = group(records)

    def cell(r, key, form):
        return format(r[key], form) if r else "-"

    matmuls = [(k, g) for k, g in groups.items() if k[0] == "matmul" and any(r["kind"] != "check" for r in g.values())]
    if matmuls:
        lines += ["## matmul (f16 -> f32)", "",
                  "| m x n x k | default cycles | naive cycles | naive / default | default TFLOPS | mac_ratio | efficiency "
                  "| emulator host s | Halide CPU host s | C++ loop host s | compile ms |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        for (kernel, shape), g in matmuls:
            d, n, h, loop = (g.get(k) for k in ("default", "naive", "halide_cpu", "cpp_loop"))
            ratio = f"{n['cycles'] / d['cycles']:.1f}x" if d and n else "-"
            lines.append(f"| {shape} | {cell(d, 'cycles', ',.0f')} | {cell(n, 'cycles', ',.0f')} | {ratio} | "
                         f"{cell(d, 'tflops', '.1f')} | {cell(d, 'mac_ratio', '.3f')} | {cell(d, 'efficiency', '.3f')} | "
                         f"{cell(d, 'host_seconds', '.3f')} | {cell(h, 'host_seconds', '.3f')} | "
                         f"{cell(loop, 'host_seconds', '.3f')} | {cell(d, 'compile_ms', '.1f')} |")
        lines.append("")
    checks = [r for r in records if r["kind"] == "check"]
    if checks:
        lines += ["## the golden check beside the emulation it checks", "",
                  "| kernel | shape | variant | emulation host s | check host s | check / emulation |",
                  "|---|---|---|---|---|---|"]
        for r in checks:
            lines.append(f"| {r['kernel']} | {r['shape']} | {r['implementation'].removeprefix('check_')} | "
                         f"{r['emulation_seconds']:.3f} | {r['check_seconds']:.3f} | {r['check_over_emulation']:.2f} |")
        lines.append("")
    vectors = [(k, g) for k, g in groups.items() if k[0] != "matmul" and "default" in g]
    if vectors:
        lines += ["## vector kernels (f16)", "",
                  "| kernel | shape | default cycles | naive cycles | naive / default | GB/s of GM | of HBM peak "
                  "| roofline efficiency | vec_ratio | emulator host s | Halide CPU host s | C++ loop host s |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for (kernel, shape), g in vectors:
            d, n, h, loop = (g.get(k) for k in ("default", "naive", "halide_cpu", "cpp_loop"))
            ratio = f"{n['cycles'] / d['cycles']:.1f}x" if n else "-"
            gbps = d["gm_bytes"] / (d["cycles"] / (chip["clock_mhz"] * 1e6)) / 1e9
            lines.append(f"| {kernel} | {shape} | {cell(d, 'cycles', ',.0f')} | {cell(n, 'cycles', ',.0f')} | {ratio} | "
                         f"{gbps:.0f} | {gbps / chip['hbm_gbps']:.3f} | {cell(d, 'efficiency', '.3f')} | {cell(d, 'vec_ratio', '.3f')} | "
                         f"{cell(d, 'host_seconds', '.3f')} | {cell(h, 'host_seconds', '.3f')} | {cell(loop, 'host_seconds', '.3f')} |")
        lines.append("")
    if all(r["kind"] == "check" for r in records):  # the check suite: its own table above
        return "\n".join(lines) + "\n"
    lines += ["## Every implementation", "",
              "| kernel | shape | implementation | cycles | TFLOPS | mac_ratio | vec_ratio | efficiency | GM bytes | host s |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for (kernel, shape), g in groups.items():
        for name, r in g.items():
            if r["kind"] == "emulator":
                lines.append(f"| {kernel} | {shape} | {name} | {r['cycles']:,.0f} | {r['tflops']:.2f} | {r['mac_ratio']:.3f} | "
                             f"{r['vec_ratio']:.3f} | {r['efficiency']:.3f} | {r['gm_bytes']:,.0f} | {r['host_seconds']:.4f} |")
            elif r["kind"] == "check":
                continue  # in the table above
            else:
                lines.append(f"| {kernel} | {shape} | {name} (host) | - | {r['host_tflops']:.3f} | - | - | - | - | "
                             f"{r['host_seconds']:.4f} |")
    return "\n".join(lines) + "\n"


def plots(chip, records, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    emulated = [r for r in records if r["kind"] == "emulator"]
    fig, ax = plt.subplots(figsize=(8, 5.5))
    intensities = [r["arithmetic_intensity"] for r in emulated] or [1]
    lo, hi = min(intensities) / 2, max(intensities) * 2
    ridge = chip["peak_tflops"] * 1e12 / (chip["hbm_gbps"] * 1e9)
    xs = [lo, min(max(ridge, lo), hi), hi]
    ax.plot(xs, [min(chip["peak_tflops"], x * chip["hbm_gbps"] / 1e3) for x in xs], "k-", label="roofline (HBM, cube peak)")
    ax.plot([lo, hi], [chip["vector_peak_tflops"]] * 2, "k--", linewidth=0.8, label="vector peak (f16, simple ops)")
    markers = {"default": "o", "naive": "x", "no_double_buffer": "s", "copies_3": "P", "one_core": "v", "tile_128": "^",
               "tile_rows_1": "d"}
    for name in sorted({r["implementation"] for r in emulated}):
        pts = [r for r in emulated if r["implementation"] == name]
        ax.scatter([r["arithmetic_intensity"] for r in pts], [r["tflops"] for r in pts], marker=markers.get(name, "."), label=name)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (FLOP / byte of the tensors, each read or written once)")
    ax.set_ylabel("emulated TFLOPS")
    ax.set_title(f"cubekit on {chip['name']}: roofline")
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "roofline.png"), dpi=110)
    plt.close(fig)

    labels = [f"{r['kernel']} {r['shape']}\n{r['implementation']}" for r in emulated]
    fig, ax = plt.subplots(figsize=(max(8, 0.45 * len(emulated) + 2), 5.5))
    width = 0.8 / len(PIPES)
    for i, p in enumerate(PIPES):
        ax.bar([j + i * width for j in range(len(emulated))], [r["pipes"][p] for r in emulated], width, label=p)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(emulated))])
    ax.set_xticklabels(labels, rotation=90, fontsize=6)
    ax.set_ylabel("busy / cycles (over the cores used)")
    ax.set_ylim(0, 1.05)
    ax.set_title(f"cubekit on {chip['name']}: per-pipe utilisation")
    ax.legend(ncol=6, fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "pipes.png"), dpi=110)
    plt.close(fig)


KERNEL_SUITES = ("matmul", "vector", "check", "smoke", "all")
# The options each suite takes, apart from --build (every suite's) and --chip and --out (said below):
# an option given to a suite that does not take it did nothing (`resnet50 --repetitions 5` timed nothing
# five times, `emulator --cheap` ran every row).
SUITE_OPTIONS = {"repetitions": KERNEL_SUITES + ("emulator",), "min_time": KERNEL_SUITES,
                 "cheap": ("calibration",), "check": ("calibration",), "only": ("calibration",),
                 "batch": ("resnet50",), "chips": ("resnet50", "attention"), "long": ("attention",),
                 "resnet_check": ("resnet50",), "standard_only": ("resnet50",), "peer": ("emulator",)}


def check_arguments(parser, args):
    """Bad arguments end here, in one line, before any work: not in a traceback after it."""
    for option, suites in SUITE_OPTIONS.items():
        if getattr(args, option) is not None and args.suite not in suites:
            parser.error(f"--{option.replace('_', '-')}: the {args.suite} suite takes no such option; it is for "
                         + (" and ".join(suites) if len(suites) < 3 else ", ".join(suites[:-1]) + " and " + suites[-1]))
    if args.standard_only and not args.resnet_check:
        parser.error("--standard-only: it chooses the layers of --resnet-check; give both")
    defaults = {"repetitions": 3, "min_time": 0, "only": "", "batch": 32, "chips": "ascend910,ascend910b2,ascend950pr",
                "cheap": False, "check": False, "long": False, "resnet_check": False, "standard_only": False}
    for option, value in defaults.items():
        if getattr(args, option) is None:
            setattr(args, option, value)
    own_chips = args.suite in ("resnet50", "attention", "emulator", "calibration")
    if args.chip is not None and own_chips:
        parser.error(f"--chip: {args.suite} chooses its chips ("
                     + ("--chips" if args.suite in ("resnet50", "attention") else "the emulator's bench runs on the 910"
                        if args.suite == "emulator" else "each calibration row names its own") + ")")
    if args.out is not None and args.suite in ("resnet50", "attention", "calibration"):
        parser.error(f"--out: {args.suite} prints its tables (redirect them to a file)")
    args.chip = args.chip or "ascend910"
    args.out = args.out or os.path.join(ROOT, "build", "bench")
    if args.repetitions < 1:
        parser.error(f"--repetitions must be at least 1, got {args.repetitions}")
    if args.min_time < 0:
        parser.error(f"--min-time must be 0 (Google Benchmark's default) or more seconds, got {args.min_time}")
    if args.batch < 1:
        parser.error(f"--batch must be at least 1, got {args.batch}")
    needs = ["cubekit"] + (["kernels_bench"] if args.suite in ("matmul", "vector", "check", "smoke", "all") else [])
    for program in needs:
        if not os.path.isfile(os.path.join(args.build, "bin", program)):
            parser.error(f"--build {args.build} has no bin/{program}: build it first (scripts/setup.sh), or give the "
                         "build directory with --build")
    if args.suite in ("matmul", "vector", "check", "smoke", "all", "emulator"):
        if os.path.exists(args.out) and not os.path.isdir(args.out):
            parser.error(f"--out {args.out} is a file, not a directory")
        try:
            os.makedirs(args.out, exist_ok=True)
        except OSError as e:
            parser.error(f"--out {args.out}: cannot make the directory ({e.strerror})")
    if args.suite in ("matmul", "vector", "check", "smoke", "all") and not os.path.isfile(args.chip):
        presets = [p["name"] for p in cubekit_chips(args.build)]
        if args.chip not in presets:
            parser.error(f"--chip: '{args.chip}' is neither a preset ({', '.join(presets)}) nor a chip JSON file")
    if args.suite == "calibration" and args.only:
        import calibration
        if why := calibration.unknown_rows([i.strip() for i in args.only.split(",") if i.strip()]):
            parser.error(why)
    if args.suite in ("resnet50", "attention"):
        chips = [c for c in args.chips.split(",") if c.strip()]
        if not chips:
            parser.error(f"--chips names no chip ({args.chips!r}); give presets separated by commas")
        presets = [p["name"] for p in cubekit_chips(args.build)]
        for chip in chips:
            if chip.strip() not in presets:
                parser.error(f"--chips: '{chip}' is not a preset ({', '.join(presets)}); {args.suite} runs on the presets")


def cubekit_chips(build):
    """The presets, as `cubekit chips --json` gives them."""
    out = subprocess.run([os.path.join(build, "bin", "cubekit"), "chips", "--json"], capture_output=True, text=True, check=True)
    presets = json.loads(out.stdout)
    return presets if isinstance(presets, list) else [presets]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("suite", nargs="?", default="matmul",
                        choices=["matmul", "vector", "check", "smoke", "all", "calibration", "resnet50", "attention", "emulator"])
    parser.add_argument("--chip", default=None,
                        help="chip preset or JSON config (matmul, vector, check, smoke, all; default ascend910); resnet50 "
                             "and attention take --chips, the emulator's own bench runs on the 910, calibration on each row's")
    parser.add_argument("--out", default=None,
                        help="where the results go (matmul, vector, check, smoke, all, emulator; default build/bench); "
                             "resnet50, attention and calibration print their tables")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"), help="the build directory")
    parser.add_argument("--repetitions", type=int, default=None,
                        help="matmul, vector, check, smoke, all, emulator: host-time repetitions (their median is kept; default 3)")
    parser.add_argument("--min-time", type=float, default=None,
                        help="matmul, vector, check, smoke, all: seconds each benchmark runs at least (Google Benchmark's default when 0)")
    parser.add_argument("--cheap", action="store_const", const=True, default=None, help="calibration: only the rows marked cheap")
    parser.add_argument("--check", action="store_const", const=True, default=None,
                        help="calibration: exit 1 when a row leaves its tolerance")
    parser.add_argument("--only", default=None, help="calibration: these row ids only (comma-separated)")
    parser.add_argument("--batch", type=int, default=None, help="resnet50: images per forward pass (default 32)")
    parser.add_argument("--chips", default=None, help="resnet50, attention: the presets to run on (default ascend910,ascend910b2,ascend950pr)")
    parser.add_argument("--long", action="store_const", const=True, default=None,
                        help="attention: also the 910B2's long sequences beside the board")
    parser.add_argument("--resnet-check", action="store_const", const=True, default=None,
                        help="resnet50: each distinct layer at batch 1 against Halide instead of timing")
    parser.add_argument("--standard-only", action="store_const", const=True, default=None,
                        help="resnet50 --resnet-check: not the variants")
    parser.add_argument("--peer", default=None,
                        help="emulator: a directory of another emulator's programs for the same work, timed beside cubekit's")
    args = parser.parse_args()
    check_arguments(parser, args)
    if args.suite == "resnet50":
        import resnet50
        sys.exit(resnet50.main(args.build, args.batch, [c.strip() for c in args.chips.split(",") if c.strip()], args.resnet_check,
                               not args.standard_only))
    if args.suite == "attention":
        import attention
        sys.exit(attention.main(args.build, [c.strip() for c in args.chips.split(",") if c.strip()], args.long))
    if args.suite == "emulator":
        import emulator
        sys.exit(emulator.main(args.build, args.repetitions, args.out, args.peer))
    if args.suite == "calibration":
        import calibration
        sys.exit(calibration.main(args.build, args.cheap, args.check, [i.strip() for i in args.only.split(",") if i.strip()]))
    os.makedirs(args.out, exist_ok=True)
    suites = ["matmul", "vector", "check"] if args.suite == "all" else [args.suite]
    records = []
    for suite in suites:
        raw = os.path.join(args.out, f"raw_{suite}.json")
        records += results_of(run_suite(args.build, suite, args.chip, args.repetitions, args.min_time, raw))
    chip = chip_info(args.build, args.chip)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump({"chip": chip, "suite": args.suite, "results": records}, f, indent=1)
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write(markdown(chip, records))
    plots(chip, records, args.out)
    print(f"wrote {args.out}/results.json, results.md, roofline.png and pipes.png")


if __name__ == "__main__":
    main()
