#!/usr/bin/python3
"""scripts/sweep.py [--seconds S] [--seed N] [--kernels attention,matmul,conv,pool,vector] [--build DIR]

Random `cubekit kernel` runs, as a user would type them, on every chip preset: random shapes and
options of attention (GQA, causal, windows, ALiBi, softcap, masks, tiles, preload, bf16), matmul
(batch, transposes, s8, bf16, epilogues, tiles), conv2d, the pools and the vector kernels (numpy
broadcasts, scalars, tile rows, copies). Each run must end one of two ways: checked against Halide
(PASS) with the emulator's checks clean, or a user error (`cubekit: error:`, exit 2). Anything else
(a FAIL against Halide, a checker report, an internal error, a crash, a timeout) is printed as BAD
with its command line, to reproduce. `--users` also prints each user error (to read what a user is
told). Exit status 1 when any run was BAD.

Where the fuzz targets (fuzz/) mutate option text to find crashes, this draws valid-looking options
to find wrong results: it found a one-row query tail that dropped its mask row on the 910 and a
sliding window that left queries no key, which the randomized tests' shapes had missed. It takes
minutes, so it is not part of the test suite; run it after changing a kernel or the compiler.
"""

import argparse
import os
import random
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHIPS = ["ascend910", "ascend910b2", "ascend950pr"]


def attention(r, chip):
    heads = r.choice([1, 2, 3, 4, 6])
    sq = r.randint(1, 300)
    a = ["attention", "--batch", str(r.choice([1, 2])), "--heads", str(heads),
         "--kv-heads", str(r.choice([h for h in range(1, heads + 1) if heads % h == 0])),
         "--seq-q", str(sq), "--dim", str(r.choice([16, 32, 64, 80, 96, 128]))]
    skv = r.choice([sq, r.randint(1, 300)])  # as many keys as queries: --seq-kv left out (the CLI refuses 0)
    if skv != sq or r.random() < 0.5: a += ["--seq-kv", str(skv)]
    causal = r.random() < 0.5
    if causal: a.append("--causal")
    if chip != "ascend910" and r.random() < 0.3: a += ["--dtype", "bf16"]
    if r.random() < 0.2: a += ["--softcap", str(r.choice([5, 30, 50]))]
    if r.random() < 0.2: a.append("--alibi")
    if causal and r.random() < 0.4: a += ["--window", str(r.randint(1, 200))]
    if r.random() < 0.2: a.append("--lse")
    if r.random() < 0.15: a += ["--mask", r.choice([f"{sq},{skv}", f"1,{skv}", f"{heads},{sq},{skv}"])]
    if r.random() < 0.3:
        t = r.choice([16, 32, 48, 64, 128])
        a += ["--tile-q", str(t), "--tile-kv", str(t if causal else r.choice([16, 32, 64, 128]))]
    if chip != "ascend910" and r.random() < 0.2: a += ["--preload", str(r.randint(1, 6))]
    if r.random() < 0.2: a += ["--scale", str(r.choice([0.05, 0.3, 1.0]))]
    return a


def matmul(r, chip):
    dt = r.choice(["f16", "f16", "s8"] + (["bf16"] if chip != "ascend910" else []))
    a = ["matmul", "--m", str(r.randint(1, 400)), "--n", str(r.randint(1, 400)), "--k", str(r.randint(1, 500)), "--dtype", dt]
    if r.random() < 0.3: a += ["--batch", str(r.randint(1, 3))]
    if dt != "s8" and r.random() < 0.4: a += ["--out", r.choice(["f16", "f32", "bf16"])]
    if dt != "s8" and r.random() < 0.3: a.append("--transpose-a")
    if dt != "s8" and r.random() < 0.3: a.append("--transpose-b")
    if dt != "s8" and r.random() < 0.4:
        steps = r.sample(["bias", "scale", "relu", "gelu"], r.randint(1, 3))
        if "relu" in steps and "gelu" in steps: steps.remove("gelu")
        a += ["--epilogue", ",".join(steps), "--scale", "0.5"]
    if r.random() < 0.3: a += ["--tm", str(16 * r.randint(1, 8)), "--tn", str(16 * r.randint(1, 8))]
    if r.random() < 0.2: a += ["--double-buffer", r.choice(["on", "off"])]
    if r.random() < 0.2: a += ["--cores", r.choice(["on", "off"])]
    if r.random() < 0.2: a += ["--schedule", "naive"]
    return a


def conv(r, chip):
    c, k = r.randint(1, 40), r.randint(1, 40)
    groups = r.choice([g for g in (1, 2, 4) if c % g == 0 and k % g == 0])
    kh = r.choice([1, 3, 5, 7])
    kw = r.choice([kh, kh, 1, 3])
    dt = r.choice(["f16", "f16", "s8"] + (["bf16"] if chip != "ascend910" else []))
    small = lambda k: r.randint(1, 30) if r.random() < 0.2 else r.randint(k, 30)  # noqa: E731  (maps narrower than windows too)
    a = ["conv2d", "--n", str(r.randint(1, 2)), "--c", str(c), "--h", str(small(kh)), "--w", str(small(kw)),
         "--k", str(k), "--kh", str(kh), "--kw", str(kw), "--stride", str(r.randint(1, 3)), "--pad", str(r.randint(0, min(kh, kw) // 2)),
         "--dilation", str(r.choice([1, 1, 2])), "--groups", str(groups), "--dtype", dt]
    if dt != "s8" and r.random() < 0.5: a += ["--epilogue", ",".join(r.sample(["bn", "residual", "relu"], r.randint(1, 3)))]
    if dt != "s8" and r.random() < 0.3: a += ["--out", r.choice(["f16", "bf16"])]
    return a


def pool(r, chip):
    kernel = r.randint(1, 5)
    small = lambda: r.randint(1, 40) if r.random() < 0.3 else r.randint(kernel, 40)  # noqa: E731  (maps narrower than windows too)
    h, w = str(small()), str(small())
    if r.random() < 0.3: return ["global_avg_pool2d", "--n", str(r.randint(1, 2)), "--c", str(r.randint(1, 40)), "--h", h, "--w", w]
    op = r.choice(["max_pool2d", "avg_pool2d"])
    return [op, "--n", str(r.randint(1, 2)), "--c", str(r.randint(1, 40)), "--h", h, "--w", w,
            "--kernel", str(kernel), "--stride", str(r.randint(1, 3)), "--pad", str(r.randint(0, kernel // 2)), "--dtype", r.choice(["f16", "f32"])] + \
        (["--dilation", "2"] if op == "max_pool2d" and r.random() < 0.2 else [])  # torch's avg_pool2d has no dilation


ROW_KERNELS = ("softmax", "layernorm", "rmsnorm", "sum", "max", "min", "mean")
BINARY = ("add", "sub", "mul", "div", "maximum", "minimum")


def vector(r, chip):
    op = r.choice(list(BINARY) + list(ROW_KERNELS) + ["exp", "relu", "gelu", "sigmoid", "silu", "tanh", "cast"])
    shape = [r.randint(1, 300), r.randint(1, 700)] if r.random() < 0.5 else [r.randint(1, 40) for _ in range(r.randint(2, 4))]
    a = [op, "--shape", ",".join(map(str, shape))]
    if op != "cast": a += ["--dtype", r.choice(["f16", "f32"])]
    if op in BINARY and r.random() < 0.5:
        if r.random() < 0.5: a += ["--scalar", str(r.choice([0.5, -2.0, 3.0]))]
        else:
            a += ["--y-shape", ",".join(str(e) if r.random() < 0.5 else "1" for e in shape)]
            if r.random() < 0.3: a += ["--y-dtype", r.choice(["f16", "f32"])]
    if op in ROW_KERNELS and r.random() < 0.2: a += ["--tile-rows", str(r.randint(1, 64))]
    if r.random() < 0.2: a += ["--copies", str(r.randint(1, 4))]
    return a


KINDS = {"attention": attention, "matmul": matmul, "conv": conv, "pool": pool, "vector": vector}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=600, help="how long to draw runs (default 600)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kernels", default=",".join(KINDS), help="comma-separated, of " + ", ".join(KINDS))
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--users", action="store_true", help="also print each user error")
    args = ap.parse_args()
    kinds = [KINDS[k] for k in args.kernels.split(",") if k in KINDS]
    unknown = [k for k in args.kernels.split(",") if k not in KINDS]
    if unknown or not kinds:
        sys.exit(f"scripts/sweep.py: --kernels takes {', '.join(KINDS)}; got {args.kernels}")
    cubekit = os.path.join(args.build, "bin", "cubekit")
    if not os.access(cubekit, os.X_OK):
        sys.exit(f"scripts/sweep.py: no {cubekit}; build first (scripts/setup.sh)")
    r = random.Random(args.seed)
    env = dict(os.environ, CUBEKIT_TUNING_DB="off")
    end, runs, users, bad = time.time() + args.seconds, 0, 0, 0
    while time.time() < end:
        chip = r.choice(CHIPS)
        command = [cubekit, "kernel"] + r.choice(kinds)(r, chip) + ["--chip", chip]
        shown = " ".join(command[1:])
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
        except subprocess.TimeoutExpired:
            bad += 1
            print(f"BAD (over 300 s): cubekit {shown}", flush=True)
            continue
        runs += 1
        out = done.stdout + done.stderr
        if done.returncode == 0 and "checks: clean" in out and ": PASS" in out:
            continue
        if done.returncode == 2 and "cubekit: error:" in out and "internal" not in out.lower():
            users += 1
            if args.users:
                print(f"user error: cubekit {shown}\n    {next(l for l in out.splitlines() if 'error:' in l)}", flush=True)
            continue
        bad += 1
        said = [l for l in out.splitlines() if "error" in l.lower() or "FAIL" in l or "check" in l][:8]
        print(f"BAD (exit {done.returncode}): cubekit {shown}\n    " + "\n    ".join(said), flush=True)
    print(f"{runs} runs: {runs - users - bad} checked and clean, {users} user errors, {bad} bad")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
