#!/usr/bin/python3
"""Writes tools/hot_text.txt: the functions `cubekit` runs in its common commands, for the linker to
lay out together at the start of the executable's text (tools/CMakeLists.txt).

Why: the first call into each 64 KB of an executable's text is a page fault (the kernel maps a file's
pages 64 KB at a time), about 20 us on a virtual machine. Laid out as the compiler left them, the
functions a timing-only `cubekit kernel add` runs were spread over 57 of the 83 windows of its 5 MB of
text; together they take a few.

    scripts/hot_text.py [BUILD_DIR]     (default build/; needs valgrind)

Runs each command of COMMANDS under callgrind, keeps the executable's functions that ran, and orders
them by how many of the commands ran them (then by the first command that did), so that what every
command runs (start-up, option parsing, compiling, the timing model) comes first. A function missing
from the list still links, only elsewhere: the list is a layout, not a set, and a stale one costs
page faults, never a wrong result.
"""

import collections
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tools", "hot_text.txt")

COMMANDS = [
    "kernel add --rows 4096 --cols 4096 --timing-only",
    "kernel add --rows 256 --cols 256 --no-check",
    "kernel softmax --rows 1024 --cols 1024 --timing-only",
    "kernel matmul --m 256 --n 256 --k 256 --no-check",
    "kernel matmul --m 1024 --n 1024 --k 1024 --timing-only",
    "kernel layernorm --rows 256 --cols 256 --no-check",
    "kernel conv2d --n 1 --c 64 --k 64 --h 28 --w 28 --pad 1 --timing-only",
    "kernel attention --heads 2 --seq-q 256 --dim 64 --timing-only --chip ascend910b2",
    "compile add --rows 1024 --cols 1024 -o {tmp}/add.s",
    "run examples/asm/matmul_f16_kloop.s",
    "chips",
    "--help",
]


def functions_run(binary, args, out):
    """The executable's functions (mangled) that ran in one command, from callgrind's profile."""
    env = dict(os.environ, CUBEKIT_TUNING_DB="off")
    done = subprocess.run(["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={out}",
                           "--compress-strings=no", "--compress-pos=no", binary] + args,
                          cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"scripts/hot_text.py: `cubekit {' '.join(args)}` failed under valgrind:\n{done.stderr[-2000:]}")
    seen, ob = set(), None
    with open(out) as f:
        for line in f:
            if line.startswith("ob="):
                ob = line[3:].strip()
            elif line.startswith("fn=") and ob == os.path.realpath(binary):
                seen.add(line[3:].strip())
    return seen


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
    binary = os.path.join(build, "bin", "cubekit")
    if not os.access(binary, os.X_OK):
        sys.exit(f"scripts/hot_text.py: {binary} is missing: build it first (ninja -C {build} cubekit)")
    runs, first = collections.Counter(), {}
    with tempfile.TemporaryDirectory() as tmp:
        for k, command in enumerate(COMMANDS):
            for name in functions_run(binary, command.format(tmp=tmp).split(), os.path.join(tmp, "callgrind.out")):
                runs[name] += 1
                first.setdefault(name, k)
    names = sorted(runs, key=lambda s: (-runs[s], first[s], s))
    with open(OUT, "w") as f:
        f.write("".join(n + "\n" for n in names))
    print(f"wrote {OUT}: {len(names)} functions from {len(COMMANDS)} commands")


if __name__ == "__main__":
    main()
