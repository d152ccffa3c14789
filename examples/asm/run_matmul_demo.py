"""Runs examples/asm/matmul_f16.s on the emulator and checks C against numpy.

Two references: float64 (how far the f32 result is from the exact product) and numpy replaying
the cube's documented arithmetic -- f32 accumulation in increasing k, one rounding per step --
which the emulator must match bit for bit.
"""
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np


def main(cubekit: str, program: str) -> int:
    rng = np.random.default_rng(2026)
    a = rng.uniform(-1, 1, (128, 128)).astype(np.float16)
    b = rng.uniform(-1, 1, (128, 128)).astype(np.float16)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        np.save(tmp / "a.npy", a)
        np.save(tmp / "b.npy", b)
        run = subprocess.run([cubekit, "run", program, "--input", f"A={tmp / 'a.npy'}", "--input",
                              f"B={tmp / 'b.npy'}", "--output", f"C={tmp / 'c.npy'}"], text=True)
        if run.returncode != 0:
            print(f"cubekit run failed with exit code {run.returncode}")
            return 1
        c = np.load(tmp / "c.npy")

    exact = a.astype(np.float64) @ b.astype(np.float64)
    ordered = np.zeros((128, 128), np.float32)
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    for k in range(128):
        ordered = ordered + a32[:, k:k + 1] * b32[k:k + 1, :]
    abs_err = np.abs(c - exact).max()
    rel_err = (np.abs(c - exact) / np.maximum(np.abs(exact), 1e-3)).max()
    bit_exact = np.array_equal(c.view(np.uint32), ordered.view(np.uint32))
    ok = abs_err < 1e-4 and bit_exact
    print(f"check C = A x B (128x128x128, fp16 in, f32 out) against numpy:")
    print(f"  max abs error vs float64: {abs_err:.3g}, max rel error: {rel_err:.3g}")
    print(f"  bit-exact with f32 accumulation in k order: {'yes' if bit_exact else 'NO'}")
    print(f"  result: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: run_matmul_demo.py CUBEKIT PROGRAM, e.g. /usr/bin/python3 examples/asm/run_matmul_demo.py "
                 "build/bin/cubekit examples/asm/matmul_f16.s")
    sys.exit(main(sys.argv[1], sys.argv[2]))
