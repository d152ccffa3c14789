#!/usr/bin/env bash
# The compiler's reference programs, for holding a change of the lowering to them: 249 kernels
# (matmul with and without epilogues, every vector kernel, conv and pooling, on the three presets)
# compiled into OUT/N.s, and with --cycles their timing-only cycles and executed scalar
# instructions into OUT/cycles.txt. Compare two runs with
#   diff <(grep -v "compiled in" A/N.s) <(grep -v "compiled in" B/N.s)   (byte for byte), or
#   diff A/cycles.txt B/cycles.txt.
# Usage: scripts/reference_programs.sh CLI OUT [--cycles]
set -euo pipefail
cli=$1 out=$2 cycles=${3:-}
mkdir -p "$out"
: > "$out/index"
: > "$out/fails"
[ "$cycles" = --cycles ] && : > "$out/cycles.txt"
i=0
run() {
  i=$((i + 1))
  echo "$i: $*" >> "$out/index"
  "$cli" compile "$@" -o "$out/$i.s" > /dev/null 2> "$out/$i.err" || echo "$i: $*" >> "$out/fails"
  if [ "$cycles" = --cycles ]; then
    "$cli" kernel "$@" --timing-only --json 2> /dev/null |
      /usr/bin/python3 -c "import json, sys; d = json.load(sys.stdin); print($i, d['cycles'], d['scalar_instructions'])" \
        >> "$out/cycles.txt" || echo "$i fail" >> "$out/cycles.txt"
  fi
}
for chip in ascend910 ascend910b2 ascend950pr; do
  for shape in "--m 512 --n 512 --k 512" "--m 100 --n 200 --k 300" "--m 40 --n 40 --k 40" "--m 1024 --n 768 --k 96"; do
    run matmul $shape --chip $chip
    run matmul $shape --chip $chip --schedule naive
    run matmul $shape --chip $chip --epilogue bias,relu --out f16
    run matmul $shape --chip $chip --epilogue bias,gelu
  done
  for k in add sub mul div maximum minimum relu gelu exp tanh sigmoid silu softmax layernorm rmsnorm sum max min mean; do
    run $k --rows 300 --cols 700 --chip $chip
    run $k --rows 64 --cols 4096 --chip $chip --dtype f32
    run $k --shape 3,5,7,33 --chip $chip --schedule naive
  done
  run cast --rows 100 --cols 300 --to f16 --dtype f32 --chip $chip
  run add --rows 100 --cols 300 --y-shape 100,1 --chip $chip
  run mul --rows 100 --cols 300 --y-shape 300 --chip $chip
  run conv2d --n 2 --c 32 --h 14 --w 14 --k 64 --pad 1 --chip $chip
  run conv2d --n 2 --c 32 --h 14 --w 14 --k 64 --pad 1 --chip $chip --epilogue bn,residual,relu
  run conv2d --n 4 --c 64 --h 7 --w 7 --k 48 --kh 1 --kw 1 --chip $chip
  run conv2d --n 1 --c 3 --h 30 --w 30 --k 16 --kh 7 --kw 7 --stride 2 --pad 3 --chip $chip
  run max_pool2d --n 2 --c 64 --h 28 --w 28 --stride 2 --pad 1 --chip $chip
  run avg_pool2d --n 2 --c 16 --h 9 --w 9 --stride 2 --pad 1 --chip $chip
  run global_avg_pool2d --n 2 --c 256 --h 7 --w 7 --chip $chip
done
echo "$i programs in $out ($(wc -l < "$out/fails") failed to compile)"
