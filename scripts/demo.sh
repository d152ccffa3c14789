#!/usr/bin/env bash
# Install what is missing, build, and run the demo: the compiler's 1024x1024x1024 fp16 matmul on the
# emulator (32 cores), checked against the Halide reference, with cycles, per-pipe ratios, the
# roofline and the checks.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh" >/dev/null
exec "$root/build/bin/cubekit" kernel matmul --m 1024 --n 1024 --k 1024 "$@"
