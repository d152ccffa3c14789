#!/usr/bin/python3
"""Checks that two cubekit executables give the same timing: cycles and L2 figures of the same
kernels, `--timing-only --json`, on the three presets and on chips edited to reach the L2 model's
other paths (an L2 that is not a power of two in lines, 4 and 16 replacement candidates under
eviction). For a change that should move host time only (the timing model's data structures, the
executable's layout), before committing it:

    git stash; ninja -C build cubekit; cp build/bin/cubekit /tmp/cubekit.before; git stash pop
    ninja -C build cubekit; scripts/same_cycles.py /tmp/cubekit.before build/bin/cubekit

Prints each kernel whose figures differ and exits 1 if any does.
"""

import json
import os
import subprocess
import sys
import tempfile

KERNELS = [
    "add --rows 4096 --cols 4096",
    "add --rows 1024 --cols 1024 --chip ascend910b2",
    "softmax --rows 1024 --cols 1024",
    "softmax --rows 4096 --cols 4096",
    "layernorm --rows 512 --cols 1024 --chip ascend910b2",
    "matmul --m 128 --n 128 --k 128",
    "matmul --m 1024 --n 1024 --k 1024",
    "matmul --m 2048 --n 2048 --k 2048",
    "matmul --m 512 --n 768 --k 256 --chip ascend910b2",
    "matmul --m 1024 --n 1024 --k 1024 --chip ascend950pr",
    "matmul --m 4096 --n 4096 --k 1024",
    "matmul --m 64 --n 64 --k 64 --cores off",
    "conv2d --n 1 --c 64 --k 64 --h 28 --w 28 --pad 1",
    "conv2d --n 2 --c 128 --k 128 --h 14 --w 14 --pad 1 --chip ascend910b2",
    "attention --heads 2 --seq-q 256 --dim 64 --chip ascend910b2",
    "attention --heads 4 --seq-q 512 --dim 128 --chip ascend950pr",
    "max_pool2d --n 1 --c 64 --h 56 --w 56",
    "sum --rows 2048 --cols 2048",
    "gelu --rows 2048 --cols 2048 --chip ascend950pr",
    "add --rows 8192 --cols 8192 --chip ascend910b2",
    "add --rows 8192 --cols 4096 --chip {odd}",
    "matmul --m 2048 --n 2048 --k 2048 --chip {odd}",
    "matmul --m 2048 --n 2048 --k 2048 --chip {four}",
    "softmax --rows 2048 --cols 4096 --chip {four}",
    "matmul --m 4096 --n 4096 --k 4096 --chip {sixteen}",
]

# name: (preset, edits of its timing)
CHIPS = {
    "odd": ("ascend910", {"l2_bytes": 24 << 20}),  # 49,152 lines: slots drawn by division
    "four": ("ascend910", {"l2_bytes": 8 << 20, "l2_replacement_candidates": 4}),
    "sixteen": ("ascend910b2", {"l2_bytes": 20 << 20}),  # the 910B2's 16 candidates, evicting
}


def edited_chips(binary, tmp):
    paths = {}
    for name, (preset, edits) in CHIPS.items():
        chip = json.loads(subprocess.run([binary, "chips", preset, "--json"], check=True, capture_output=True,
                                         text=True).stdout)
        chip["timing"].update(edits)
        chip["name"] = name
        paths[name] = os.path.join(tmp, name + ".json")
        with open(paths[name], "w") as f:
            json.dump(chip, f)
    return paths


def figures(binary, args):
    env = dict(os.environ, CUBEKIT_TUNING_DB="off")
    done = subprocess.run([binary, "kernel"] + args + ["--timing-only", "--json"], capture_output=True, text=True,
                          env=env)
    if done.returncode != 0:
        sys.exit(f"scripts/same_cycles.py: `{binary} kernel {' '.join(args)}` failed (exit {done.returncode}):\n"
                 f"{done.stderr.strip()[:1000]}")
    report = json.loads(done.stdout)
    return {"cycles": report.get("cycles"), "l2": report.get("l2")}


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: scripts/same_cycles.py BEFORE_BINARY AFTER_BINARY")
    before, after = sys.argv[1:]
    differ = 0
    with tempfile.TemporaryDirectory() as tmp:
        chips = edited_chips(before, tmp)
        for line in KERNELS:
            args = line.format(**chips).split()
            a, b = figures(before, args), figures(after, args)
            if a != b:
                differ += 1
                print(f"{line}:\n  before {a}\n  after  {b}")
    print(f"{len(KERNELS) - differ} of {len(KERNELS)} kernels with the same cycles and L2 figures")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
