#!/usr/bin/env bash
# tools/isolation-overhead.sh: what a device-tool call runs to measure what the worker process costs:
# one full default run (every case, JSON) in MODE "worker" (the default) or "in-process", with its
# wall time. Two calls on one held machine, one per mode, give the overhead
# (docs/design/worker-isolation.md).
# Usage (on the device machine, from the repository root): bash tools/isolation-overhead.sh MODE
set -uo pipefail
source tools/device-env.sh
mode=${1:?worker or in-process}
flag=()
[ "$mode" = in-process ] && flag=(--in-process)
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader | tee "$out/$mode-nvidia-smi.txt"
start=$(date +%s.%N)
.bin/perftest "${flag[@]}" --format json --output "$out/$mode.json" 2> "$out/$mode-stderr.txt"
code=$?
end=$(date +%s.%N)
echo "mode $mode exit $code wall $(awk "BEGIN{print $end - $start}") s" | tee "$out/$mode-wall.txt"
