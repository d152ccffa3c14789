#!/usr/bin/python3
"""Writes tools/hot_text.txt: the functions `cubekit` runs in its common commands, for the linker to
lay out together at the start of the executable's text (tools/CMakeLists.txt).

Why: the first call into each 64 KB of an executable's text is a page fault (the kernel maps a file's
pages 64 KB at a time), about 20 us on a virtual machine. Laid out as the compiler left them, the
functions a timing-only `cubekit kernel add` runs were spread over 57 of the 83 windows of its 5 MB of
text; together they take a few.

    scripts/hot_text.py [BUILD_DIR]     (default build/; needs valgrind)

Runs each command of COMMANDS under callgrind and keeps the executable's functions that ran: first
all that the first command runs, then what the second adds, and so on, each command's share ordered
by how many of the commands run a function (start-up and option parsing first). So the first
command, a timing-only run (what a tuner or a user's edit-run loop repeats), finds its 870 KB of code
together: 19 text faults, all in the first 1.2 MB, where the union of 1.8 MB ordered by count alone
left it 29 spread wider. A function missing from the list still links, only elsewhere: the list
is a layout, not a set, and a stale one costs page faults, never a wrong result.

Callgrind runs the program on its own virtual CPU, so glibc's variants for the host's CPU (the
AVX-512 string functions, handle_amd) and its entry (reported as "(below main)") do not appear under
their names: each variant that ran brings its family along (from the executable's symbols), and the
entry is named.
"""

import collections
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tools", "hot_text.txt")

COMMANDS = [
    "kernel add --rows 4096 --cols 4096 --timing-only --chip ascend910",
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


# glibc's CPU-specific variants: __strlen_avx2 -> the family __strlen_*
VARIANT = re.compile(r"^(__[a-z0-9]+(?:_chk)?)_(?:sse2|ssse3|sse4_1|sse4_2|sse42|avx|avx2|evex|avx512|erms)(?:_\w*)?$")
ENTRY = ["_start", "__libc_start_main_impl", "__libc_start_call_main", "frame_dummy"]  # "(below main)", crtbegin.o
CPU_VENDORS = ["handle_intel", "handle_amd", "handle_zhaoxin"]  # glibc's cache-size probes, one a vendor


def symbols(binary):
    """The executable's function symbols."""
    done = subprocess.run(["nm", "--defined-only", binary], stdout=subprocess.PIPE, text=True, check=True)
    return [f[2] for f in (line.split() for line in done.stdout.splitlines()) if len(f) == 3 and f[1] in "tTwW"]


def with_what_callgrind_cannot_see(names, binary):
    """`names` with the entry's real names and each glibc variant's family beside it; unnamed
    functions (callgrind's hexadecimal addresses) left out: they move with every link."""
    known = symbols(binary)
    families = collections.defaultdict(list)
    for s in known:
        m = VARIANT.match(s)
        if m:
            families[m.group(1)].append(s)
    out, seen = [], set()
    def put(n):
        if n not in seen:
            seen.add(n)
            out.append(n)
    for n in names:
        if n.startswith("0x"):
            continue
        if n.startswith("(below main)"):
            for e in ENTRY:
                put(e)
            continue
        put(n)
        m = VARIANT.match(n)
        for s in families[m.group(1)] if m else []:
            put(s)
        if n.split(".")[0] in CPU_VENDORS:
            for s in known:
                if s.split(".")[0] in CPU_VENDORS:
                    put(s)
    return out


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
    names = with_what_callgrind_cannot_see(sorted(runs, key=lambda s: (first[s], -runs[s], s)), binary)
    with open(OUT, "w") as f:
        f.write("".join(n + "\n" for n in names))
    print(f"wrote {OUT}: {len(names)} functions from {len(COMMANDS)} commands")


if __name__ == "__main__":
    main()
