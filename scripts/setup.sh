#!/usr/bin/env bash
# Shared by test.sh and demo.sh: install the Debian packages cubekit needs (only the missing
# ones), then configure (once) and build (incrementally) a Release tree in build/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

packages=(
  build-essential cmake ninja-build git lld
  libhalide14-0-dev libfmt-dev libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev libopenblas-dev libsqlite3-dev libopenmpi-dev openmpi-bin
  pybind11-dev python3-dev python3-numpy python3-pytest python3-matplotlib
)

install_missing() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "cubekit: installing ${missing[*]}"
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "cubekit: need root (or sudo) to apt-get install ${missing[*]}" >&2; exit 2; }
    sudo=(sudo)
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

build() {
  if [ ! -f "$root/build/build.ninja" ]; then
    cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release
  fi
  cmake --build "$root/build" -j "$(nproc)"
}

install_missing
build
