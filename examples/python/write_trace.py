"""Write a Chrome trace of a kernel run on the emulator: one row per pipe of every AI core, one span
per instruction, arrows for the set_flag -> wait_flag hand-overs.

    PYTHONPATH=build/python python3 examples/python/write_trace.py [TRACE.json] [--small]

The default file is /tmp/cubekit_trace.json.
"""
import argparse
import collections
import json
import sys
from pathlib import Path

import numpy as np

try:
    import cubekit as ck
except ImportError:  # run from a source checkout without PYTHONPATH: use the build tree's package
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "build" / "python"))
    import cubekit as ck


def main():
    parser = argparse.ArgumentParser(description="write a Chrome trace of a matmul with a fused epilogue")
    parser.add_argument("trace", nargs="?", default="/tmp/cubekit_trace.json",
                        help="the file to write (default: %(default)s)")
    parser.add_argument("--small", action="store_true", help="a small shape (for tests)")
    args = parser.parse_args()
    m, n, k = (64, 64, 128) if args.small else (512, 512, 1024)

    # The kernel: relu(A x B + bias) on the cube, the epilogue fused on the way out of L0C.
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    bias = rng.standard_normal(n).astype(np.float32)
    c, report = ck.kernels.matmul(a, b, epilogue=["bias", "relu"], bias=bias, trace=args.trace)
    expected = np.maximum(a.astype(np.float64) @ b.astype(np.float64) + bias, 0)
    ok = np.allclose(c, expected, rtol=1e-4, atol=1e-3)
    print(f"relu(A x B + bias), {m} x {n} x {k}: {report['cycles']} cycles ({report['microseconds']:.1f} us) "
          f"on {report['cores']} cores, mac_ratio {report['ratios']['mac_ratio']:.3f}; "
          f"check against numpy: {'PASS' if ok else 'FAIL'}")

    # What the trace holds: a span per instruction, on the row of its core and pipe.
    trace = json.loads(Path(args.trace).read_text())
    events = trace["traceEvents"]
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("name") == "thread_name"}
    per_pipe = collections.Counter(names[(e["pid"], e["tid"])] for e in events if e["ph"] == "X")
    print(f"wrote {args.trace}: {len(events)} events; spans per pipe, all cores: "
          + ", ".join(f"{pipe} {count}" for pipe, count in sorted(per_pipe.items())))
    print("open it in https://ui.perfetto.dev (Open trace file) or in Chrome at chrome://tracing (Load);")
    print("each AI core is a process, each pipe (S, MTE1, MTE2, MTE3, M, V) a thread, times in microseconds")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
