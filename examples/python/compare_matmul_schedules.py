"""Compare matmul schedules side by side: the default one, the naive one, and the default with
overrides (two L1 copies instead of four, no stagger). Each result is checked against numpy.

    PYTHONPATH=build/python python3 examples/python/compare_matmul_schedules.py [M N K] [--small]
"""
import argparse
import sys
from pathlib import Path

import numpy as np

try:
    import cubekit as ck
except ImportError:  # run from a source checkout without PYTHONPATH: use the build tree's package
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "build" / "python"))
    import cubekit as ck

# name -> keyword arguments of cubekit.kernels.matmul
SCHEDULES = {
    "default": {},
    "naive": {"schedule": "naive"},  # one core, 64 x 64 tiles, no double buffering
    "l1_copies=2, stagger=False": {"l1_copies": 2, "stagger": False},
}


def main():
    parser = argparse.ArgumentParser(description="compare matmul schedules on the emulator")
    parser.add_argument("shape", nargs="*", type=int, help="M N K (default 1024 1024 1024)")
    parser.add_argument("--small", action="store_true", help="a small shape (for tests)")
    args = parser.parse_args()
    if args.shape and len(args.shape) != 3:
        parser.error("give M N K, or nothing")
    m, n, k = (128, 128, 256) if args.small else tuple(args.shape or (1024, 1024, 1024))

    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    expected = a.astype(np.float64) @ b.astype(np.float64)

    print(f"C = A x B, {m} x {n} x {k}, f16 in, f32 out, on {ck.chip().name}")
    print(f"  {'schedule':28s} {'cycles':>10s} {'us':>9s} {'cores':>5s} {'mac_ratio':>9s} {'vs naive':>8s}  check")
    rows = []
    for name, options in SCHEDULES.items():
        c, report = ck.kernels.matmul(a, b, **options)  # compiles for these shapes, runs, checks nothing
        err = float(np.abs(c - expected).max())
        rows.append((name, report, err < 1e-3 * np.sqrt(k)))
    naive_cycles = rows[1][1]["cycles"]
    for name, r, ok in rows:
        print(f"  {name:28s} {r['cycles']:>10d} {r['microseconds']:>9.1f} {r['cores']:>5d} "
              f"{r['ratios']['mac_ratio']:>9.3f} {naive_cycles / r['cycles']:>7.1f}x  {'PASS' if ok else 'FAIL'}")
    print("  mac_ratio: the share of the run the cube is busy (1.0 = every core's cube, every cycle)")
    return 0 if all(ok for _, _, ok in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
