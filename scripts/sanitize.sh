#!/usr/bin/env bash
# scripts/sanitize.sh [SECONDS_PER_TARGET] (default 60)
# scripts/sanitize.sh --build-only
# scripts/sanitize.sh --fuzz-only [SECONDS_PER_TARGET]   (builds only what the fuzz targets need)
#
# Builds an AddressSanitizer + UndefinedBehaviorSanitizer tree in build-sanitize/ (UBSan with
# float-cast-overflow, which GCC's `undefined` leaves out; every report halts the program), runs the
# whole ctest suite in it, then each fuzz target (fuzz/) for SECONDS_PER_TARGET on its seed corpus,
# ($(nproc) at a time), then the regression inputs of fuzz/regressions/. Prints the executions per
# target at the end.
#
# With clang (clang-14 and libclang-rt-14-dev, installed when missing as scripts/setup.sh installs
# its packages) the fuzz targets link real libFuzzer (coverage-guided: the libraries are built with
# -fsanitize=fuzzer-no-link); with g++ they link fuzz/driver.cpp. Set CUBEKIT_SANITIZE_CXX=g++ to
# force g++. Exit status: 0 when the suite passes, fuzzing found nothing and every regression input
# ends cleanly.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build_only=0 fuzz_only=0
[ "${1:-}" = --build-only ] && build_only=1 && shift
[ "${1:-}" = --fuzz-only ] && fuzz_only=1 && shift
seconds="${1:-60}"
build="$root/build-sanitize"
jobs="$(nproc)"

install_missing() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=()
  [ "$(id -u)" -ne 0 ] && sudo=(sudo)
  echo "sanitize: installing ${missing[*]}"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

cxx="${CUBEKIT_SANITIZE_CXX:-clang++-14}"
if [ "$cxx" = clang++-14 ]; then
  install_missing clang-14 libclang-rt-14-dev || cxx=g++
  command -v clang++-14 >/dev/null || cxx=g++
fi
# clang 14 lacks some C++20 (lambdas capturing structured bindings, e.g. emulator/program.cpp):
# probe one such file, and fall back to g++ and our driver while it does not compile.
if [ "$cxx" = clang++-14 ] && [ ! -f "$build/build.ninja" ] &&
   ! clang++-14 -std=c++20 -fsyntax-only -I "$root" "$root/emulator/program.cpp" 2>"$root/.sanitize-probe.log"; then
  echo "sanitize: clang++-14 cannot compile the tree ($(grep -m1 error: "$root/.sanitize-probe.log")); using g++ and fuzz/driver.cpp"
  cxx=g++
fi
rm -f "$root/.sanitize-probe.log"

sanitizers="-fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
if [ "$cxx" = clang++-14 ]; then
  cc=clang-14
  engine=libfuzzer
  # Every binary uses the shared ASan runtime, so that the Python test can preload the very same
  # one for the extension module (and the CLI it spawns inherits the preload harmlessly).
  asan_runtime="$(clang++-14 -print-file-name=libclang_rt.asan-x86_64.so)"
  preload="$asan_runtime:$(clang++-14 -print-file-name=libstdc++.so.6)"
  compile_flags="$sanitizers -fsanitize=fuzzer-no-link -gline-tables-only"
  link_flags="$sanitizers -shared-libasan -Wl,-rpath,$(dirname "$asan_runtime")"
else
  cc=gcc
  engine=driver
  asan_runtime="$(g++ -print-file-name=libasan.so)"
  preload="$asan_runtime:$(g++ -print-file-name=libstdc++.so.6)"
  compile_flags="$sanitizers -g1"
  link_flags="$sanitizers"
fi

if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_C_FLAGS="$compile_flags" -DCMAKE_CXX_FLAGS="$compile_flags" \
    -DCMAKE_EXE_LINKER_FLAGS="$link_flags" -DCMAKE_SHARED_LINKER_FLAGS="$link_flags" \
    -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" \
    -DCUBEKIT_FUZZ_ENGINE="$engine"
fi
# Python preloads the ASan runtime, and libstdc++ with it: the runtime's __cxa_throw interceptor
# must find the real one when it starts, before the extension loads libstdc++ (else every C++
# exception thrown in the extension aborts with "CHECK failed: real___cxa_throw").
cmake "$build" -DCUBEKIT_ASAN_RUNTIME="$preload" >/dev/null
fuzz_targets=(asm npy chip kernel_options)  # cheapest first: asm and npy need the emulator only
if [ $fuzz_only -eq 1 ]; then
  for target in "${fuzz_targets[@]}"; do cmake --build "$build" -j "$jobs" --target "fuzz_$target"; done
else
  cmake --build "$build" -j "$jobs"
fi
[ $build_only -eq 1 ] && exit 0
engine="$(sed -n 's/^CUBEKIT_FUZZ_ENGINE:[A-Z]*=//p' "$build/CMakeCache.txt")"  # the tree's, if it existed

# Halt at the first report; leaks are checked in the C++ tests (the Python test turns them off:
# the interpreter keeps its objects at exit).
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:print_summary=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

status=0
if [ $fuzz_only -eq 0 ]; then
  echo "=== sanitize: ctest in $build"
  (cd "$build" && ctest --output-on-failure -j "$jobs") || status=1
fi

echo "=== sanitize: each fuzz target for $seconds s ($engine), $jobs at a time"
artifacts="$build/fuzz-artifacts/sanitize-"
# Runs one target and records its exit status in fuzz-TARGET.log.rc (written after the run, even
# when the target fails: errexit must not end the function before, or a stale status would stand).
fuzz_one() {
  local target="$1"
  local work="$build/fuzz-work/sanitize-$target" log="$build/fuzz-$target.log" rc=0
  local extra=()
  [ "$target" = asm ] && extra=("$root/examples/asm")
  rm -rf "$work" "$log.rc" && mkdir -p "$work"
  "$build/bin/fuzz_$target" -max_total_time="$seconds" -seed=1 -timeout=30 -rss_limit_mb=4096 \
    -dict="$root/fuzz/dict/$target.dict" -artifact_prefix="$artifacts$target-" \
    "$work" "$root/fuzz/corpus/$target" "${extra[@]}" >"$log" 2>&1 || rc=$?
  echo "$rc" >"$log.rc"
}
running=0
for target in "${fuzz_targets[@]}"; do
  fuzz_one "$target" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
done
wait || true
summary=()
for target in "${fuzz_targets[@]}"; do
  log="$build/fuzz-$target.log"
  rc="$(cat "$log.rc" 2>/dev/null || echo '?')"
  runs="$(grep -Eo 'Done [0-9]+ runs' "$log" | tail -1 | grep -Eo '[0-9]+' || echo '?')"
  if [ "$rc" != 0 ]; then
    status=1
    summary+=("fuzz_$target: FINDING after $runs executions (exit $rc); see $log")
    tail -40 "$log"
  else
    summary+=("fuzz_$target: $runs executions in $seconds s, no findings")
  fi
done

echo "=== sanitize: the regressions of issue 10 (fuzz/regressions/): each must end cleanly"
for target in "${fuzz_targets[@]}"; do
  for input in "$root"/fuzz/regressions/$target/*; do
    [ -f "$input" ] || continue
    if "$build/bin/fuzz_$target" -timeout=60 -rss_limit_mb=4096 -artifact_prefix="$artifacts$target-regression-" "$input" \
       >"$build/regression.log" 2>&1; then
      summary+=("regression $target/$(basename "$input"): clean")
    else
      status=1
      summary+=("regression $target/$(basename "$input"): FINDING $(grep -m1 -E 'ERROR|runtime error|finding|deadly|timeout' "$build/regression.log" | cut -c1-160)")
    fi
  done
done

echo "=== sanitize: summary"
printf '%s\n' "${summary[@]}"
exit $status
