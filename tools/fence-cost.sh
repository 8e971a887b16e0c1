#!/usr/bin/env bash
# tools/fence-cost.sh: what a device-tool call runs to measure what timing by CPU fences costs against GPU
# timestamps (ALU and three sweep sizes, both ways, JSON in $out), then --verify of the cases whose shaders
# changed for other drivers (per-subgroup atomics, texel buffers, Conv1D).
set -uo pipefail
source tools/device-env.sh
for t in timestamps fences; do
  flag=(); [ $t = fences ] && flag=(--fence-timing)
  .bin/perftest "${flag[@]}" --filter "ALU" --format json --output $out/alu-$t.json
  .bin/perftest "${flag[@]}" --filter "Sweep SSBO vec4 linear" --axis sweep.bytes=1M,64M,1G --format json --output $out/sweep-$t.json
done
for f in "per subgroup" texel Conv1D; do .bin/perftest --verify --filter "$f" | tail -2; done
.bin/perftest --devices
