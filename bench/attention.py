"""Flash attention on the emulator (bench/run.py attention), timing-only.

    bench/run.py attention [--chips ascend910,ascend910b2,ascend950pr] [--long]

BERT-Large's self-attention (batch 8, 16 heads, sequence 512, head dim 64, f16) as one fused
kernel (`cubekit kernel attention`) beside the unfused chain a framework without fusion runs, three
kernels through GM: S = Q K^T / sqrt(64) as a batched matmul with the scale fused (S in f16), the
row softmax over S (f16), and O = P V as a batched matmul (f16). Per chip: cycles, microseconds,
GM bytes (every transfer to or from GM), HBM bytes (what of them L2 did not keep), mac_ratio and vec_ratio (on a split chip the cube cores'
and the vector cores' own; the chain's weighted by each kernel's cycles), and the speedup.

--long adds the long sequences of the 910B2 (batch 1, 1 head, S0 = S1 = 1K..32K, head dim 128):
the published kernel's tiling (128 query rows a tile, 128 keys a cube tile), cubekit's default
schedule, and the board's time for the published kernel (hw-native-sys/pto-isa
kernels/manual/common/flash_atten/README.md), with TFLOPS at 4 S^2 128 operations, and where the
cycles go (the cube cores' mac and fixpipe ratios, the vector cores' vec ratio); and, from the
Chrome trace of one cube core and its vector cores running one query tile against 1K and 32K keys,
how much of the run the cube side (M or FIX) and a vector core's V pipe are busy, and both at once;
and the published tiling at S = 1K and 8K with the cube's preload (the key tiles it computes S
ahead of the vector cores, flash()'s third argument; the published kernel's qkPreloadNum is 4)
from 1 to 8, and with its scores softcapped (s -> 50 tanh(s / 50), Gemma 2's; a score modifier the
vector cores evaluate on each S tile); and ALiBi at S = 4K over 8 heads, computed from the scores'
indices on the vector cores against the same bias read from HBM as an additive mask; and sliding
windows of 4K and 1K keys over S = 16K, causal, against the whole causal kernel.
"""

import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BERT = {"batch": 8, "heads": 16, "seq": 512, "dim": 64}
PUBLISHED_US = {1024: 20.96, 2048: 32.46, 4096: 88.90, 8192: 292.63, 16384: 909.06, 32768: 3262.65}


def cubekit(build, args):
    """The JSON report of a timing-only cubekit command."""
    command = [os.path.join(build, "bin", "cubekit")] + args + ["--timing-only", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        sys.exit(f"bench/run.py attention: `{' '.join(command)}` failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return json.loads(done.stdout)


def gm_bytes(report):
    return report["gm_bytes"]


def ratios(report):
    """mac_ratio and vec_ratio: on a split chip those of the cores that have the pipe."""
    kinds = report.get("kinds", {})
    mac = kinds["aic"]["ratios"]["mac_ratio"] if "aic" in kinds else report["ratios"]["mac_ratio"]
    vec = kinds["aiv"]["ratios"]["vec_ratio"] if "aiv" in kinds else report["ratios"]["vec_ratio"]
    return mac, vec


def summary(reports):
    """One row for a chain of kernels run one after another."""
    cycles = sum(r["cycles"] for r in reports)
    mac = sum(ratios(r)[0] * r["cycles"] for r in reports) / cycles
    vec = sum(ratios(r)[1] * r["cycles"] for r in reports) / cycles
    return {"cycles": cycles, "us": sum(r["microseconds"] for r in reports), "gm_bytes": sum(gm_bytes(r) for r in reports),
            "hbm_bytes": sum(r["l2"]["hbm_bytes"] for r in reports), "mac_ratio": mac, "vec_ratio": vec}


def bert_large(build, chip):
    b, h, s, d = BERT["batch"], BERT["heads"], BERT["seq"], BERT["dim"]
    fused = cubekit(build, ["kernel", "attention", "--batch", str(b), "--heads", str(h), "--seq-q", str(s), "--dim", str(d),
                            "--chip", chip])
    heads = str(b * h)
    chain = [
        cubekit(build, ["kernel", "matmul", "--batch", heads, "--m", str(s), "--n", str(s), "--k", str(d), "--transpose-b",
                        "--out", "f16", "--epilogue", "scale", "--scale", str(d ** -0.5), "--chip", chip]),
        cubekit(build, ["kernel", "softmax", "--rows", str(b * h * s), "--cols", str(s), "--dtype", "f16", "--chip", chip]),
        cubekit(build, ["kernel", "matmul", "--batch", heads, "--m", str(s), "--n", str(d), "--k", str(s), "--out", "f16",
                        "--chip", chip]),
    ]
    return summary([fused]), summary(chain)


def long_sequences(build):
    rows = []
    for s, board_us in PUBLISHED_US.items():
        shape = ["kernel", "attention", "--batch", "1", "--heads", "1", "--seq-q", str(s), "--dim", "128", "--chip", "ascend910b2"]
        published = cubekit(build, shape + ["--tile-q", "128", "--tile-kv", "128"])
        default = cubekit(build, shape)
        tflops = lambda us: 4 * s * s * 128 / (us * 1e-6) / 1e12
        aic, aiv = published["kinds"]["aic"]["ratios"], published["kinds"]["aiv"]["ratios"]
        rows.append((s, board_us, tflops(board_us), published["microseconds"], published["microseconds"] / board_us,
                     tflops(published["microseconds"]), default["microseconds"], tflops(default["microseconds"]),
                     f'{default["tiles"]["q"]} x {default["tiles"]["kv"]}', aic["mac_ratio"], aic["fixpipe_ratio"], aiv["vec_ratio"]))
    return rows


PRELOADS = (1, 2, 3, 4, 6, 8)


def preloads(build):
    """The published tiling at S = 1K and 8K on the 910B2 with each preload: us and where the cycles go."""
    rows = []
    for s in (1024, 8192):
        for p in PRELOADS:
            r = cubekit(build, ["kernel", "attention", "--seq-q", str(s), "--dim", "128", "--tile-q", "128", "--tile-kv", "128",
                                "--preload", str(p), "--chip", "ascend910b2"])
            aic, aiv = r["kinds"]["aic"]["ratios"], r["kinds"]["aiv"]["ratios"]
            rows.append((s, p, r["microseconds"], aic["mac_ratio"], aic["fixpipe_ratio"], aiv["vec_ratio"]))
    return rows


def softcapped(build, s):
    """The published tiling at S on the 910B2 with and without a softcap of 50: us and vec_ratio."""
    out = []
    for cap in ([], ["--softcap", "50"]):
        r = cubekit(build, ["kernel", "attention", "--seq-q", str(s), "--dim", "128", "--tile-q", "128", "--tile-kv", "128",
                            "--chip", "ascend910b2"] + cap)
        out.append((r["microseconds"], r["kinds"]["aiv"]["ratios"]["vec_ratio"]))
    return out


def alibi_biased(build):
    """8 heads, S = 4K, causal, on the 910B2: plain, ALiBi computed from the score's indices on the
    vector cores, and the same bias read as an additive (heads, S, S) mask: us, GM MB, vec_ratio."""
    shape = ["kernel", "attention", "--seq-q", "4096", "--heads", "8", "--dim", "128", "--causal", "--chip", "ascend910b2"]
    out = []
    for name, extra in (("plain", []), ("ALiBi, computed", ["--alibi"]), ("the bias as a mask", ["--mask", "8,4096,4096"])):
        r = cubekit(build, shape + extra)
        out.append((name, r["microseconds"], gm_bytes(r) / 1e6, r["kinds"]["aiv"]["ratios"]["vec_ratio"]))
    return out


def windowed(build):
    """S = 16K, causal, head dim 128, on the 910B2, with sliding windows of 4K and 1K keys: us, GM MB."""
    shape = ["kernel", "attention", "--seq-q", "16384", "--dim", "128", "--causal", "--chip", "ascend910b2"]
    out = []
    for window in (0, 4096, 1024):
        r = cubekit(build, shape + (["--window", str(window)] if window else []))
        out.append((window, r["microseconds"], gm_bytes(r) / 1e6))
    return out


SYNC = ("set_flag", "wait_flag", "barrier", "set_cross", "wait_cross")


def busy_intervals(trace, pid, pipes):
    """The union of the intervals (us) in which any of `pipes` of core `pid` runs an instruction."""
    names = {e["tid"]: e["args"]["name"] for e in trace if e.get("ph") == "M" and e.get("name") == "thread_name" and e["pid"] == pid}
    spans = sorted((e["ts"], e["ts"] + e["dur"]) for e in trace
                   if e.get("ph") == "X" and e["pid"] == pid and names.get(e["tid"]) in pipes and not e["name"].startswith(SYNC))
    out = []
    for a, b in spans:
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def overlap(build, seq_kv):
    """One query tile of 128 rows against seq_kv keys on one group: the cube side's and a vector
    core's busy time and their overlap, as fractions of the run."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "trace.json")
        report = cubekit(build, ["kernel", "attention", "--seq-q", "128", "--seq-kv", str(seq_kv), "--dim", "128", "--tile-q", "128",
                                 "--tile-kv", "128", "--chip", "ascend910b2", "--trace", path])
        with open(path) as f:
            data = json.load(f)
    trace = data["traceEvents"] if isinstance(data, dict) else data
    cube, vec = busy_intervals(trace, 0, ("M", "FIX")), busy_intervals(trace, 1, ("V",))
    both, i, j = 0.0, 0, 0
    while i < len(cube) and j < len(vec):
        both += max(0.0, min(cube[i][1], vec[j][1]) - max(cube[i][0], vec[j][0]))
        if cube[i][1] < vec[j][1]:
            i += 1
        else:
            j += 1
    run = report["microseconds"]
    total = lambda iv: sum(b - a for a, b in iv)
    return run, total(cube) / run, total(vec) / run, both / run


def main(build, chips, long):
    print(f"BERT-Large self-attention: batch {BERT['batch']}, {BERT['heads']} heads, sequence {BERT['seq']}, "
          f"head dim {BERT['dim']}, f16 (timing-only)\n")
    print("| chip | implementation | cycles | us | GM bytes | HBM bytes | mac_ratio | vec_ratio | speedup |")
    print("|---|---|---|---|---|---|---|---|---|")
    for chip in chips:
        fused, chain = bert_large(build, chip)
        for name, r in (("fused (flash)", fused), ("unfused (QK^T, softmax, PV)", chain)):
            speedup = chain["cycles"] / r["cycles"]
            print(f"| {chip} | {name} | {r['cycles']:,} | {r['us']:.1f} | {r['gm_bytes']:,} | {r['hbm_bytes']:,} | {r['mac_ratio']:.3f} | "
                  f"{r['vec_ratio']:.3f} | {speedup:.2f}x |")
    if long:
        print("\nLong sequences on ascend910b2: batch 1, 1 head, S0 = S1 = S, head dim 128, f16 "
              "(published tiling: 128 x 128 tiles; the board: pto-isa's kernel)\n")
        print("| S | board us | board TFLOPS | model us (published tiling) | model / board | model TFLOPS | "
              "default us | default TFLOPS | default tiles | aic mac_ratio | aic fixpipe_ratio | aiv vec_ratio |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for row in long_sequences(build):
            s, bus, btf, mus, ratio, mtf, dus, dtf, sched, mac, fix, vec = row
            print(f"| {s} | {bus:.2f} | {btf:.1f} | {mus:.2f} | {ratio:.3f} | {mtf:.1f} | {dus:.2f} | {dtf:.1f} | {sched} | "
                  f"{mac:.3f} | {fix:.3f} | {vec:.3f} |")
        print("\nOne cube core and its two vector cores, 128 queries (the trace of core 0 and of vector core 1):\n")
        print("| keys | us | cube side (M or FIX) busy | vector core V busy | both at once |")
        print("|---|---|---|---|---|")
        for keys in (1024, 32768):
            run, cube, vec, both = overlap(build, keys)
            print(f"| {keys} | {run:.2f} | {cube:.0%} | {vec:.0%} | {both:.0%} |")
        print("\nThe cube's preload (published tiling, ascend910b2; 4 is the published kernel's and the default):\n")
        print("| S | preload | us | / preload 4 | aic mac_ratio | aic fixpipe_ratio | aiv vec_ratio |")
        print("|---|---|---|---|---|---|---|")
        rows = preloads(build)
        for s, p, us, mac, fix, vec in rows:
            base = next(r[2] for r in rows if r[0] == s and r[1] == 4)
            print(f"| {s} | {p} | {us:.2f} | {us / base:.3f} | {mac:.3f} | {fix:.3f} | {vec:.3f} |")
        (plain, pvec), (capped, cvec) = softcapped(build, 8192)
        print(f"\nSoftcapped scores (50 tanh(s / 50)) at S = 8192, published tiling: {capped:.2f} us against {plain:.2f} "
              f"({capped / plain:.2f}x; aiv vec_ratio {cvec:.3f} against {pvec:.3f})")
        print("\nALiBi (8 heads, S = 4096, causal, default schedule), from the scores' indices or as a mask from HBM:\n")
        print("| scores | us | GM MB | aiv vec_ratio |")
        print("|---|---|---|---|")
        for name, us, mb, vec in alibi_biased(build):
            print(f"| {name} | {us:.2f} | {mb:.0f} | {vec:.3f} |")
        print("\nSliding windows (S = 16384, causal, head dim 128, default schedule): only the key tiles a window reaches "
              "are read:\n")
        print("| window | us | GM MB | / causal |")
        print("|---|---|---|---|")
        rows = windowed(build)
        for window, us, mb in rows:
            print(f"| {window or 'none'} | {us:.2f} | {mb:.0f} | {us / rows[0][1]:.3f} |")
    return 0
