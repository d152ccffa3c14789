#!/usr/bin/env bash
# Install what is missing, build, and run every test.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh"
cd "$root/build"
ctest --output-on-failure -j "$(nproc)"
