#!/usr/bin/env bash
# Install what is missing, build, and run the demo: a hand-written 128x128x128 fp16 matmul
# program on the emulator, checked against numpy.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh" >/dev/null
exec /usr/bin/python3 "$root/examples/asm/run_matmul_demo.py" "$root/build/bin/cubekit" "$root/examples/asm/matmul_f16.s"
