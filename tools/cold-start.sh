#!/usr/bin/env bash
# tools/cold-start.sh: what a device-tool call runs to check the warm-up (issue 20), after
# tools/h100-prepare.sh here (and `cp target/release/examples/clock_ramp .bin/` for the trace).
# Usage, on the device machine from the repository root:
#   bash tools/cold-start.sh cold   # first thing on a fresh machine: perftest --skip branch
#   bash tools/cold-start.sh warm   # right after: the ratio families again, then the clock trace
# Results go to $OUT (JSON, nvidia-smi's clock every 250 ms beside the run, the trace as CSV).
set -uo pipefail
source tools/device-env.sh
phase=${1:?cold or warm}
smi() { nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu,pstate --format=csv,noheader; }
echo "before: $(smi)" >> "$out/$phase-smi.txt"
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,pstate --format=csv -lms 250 > "$out/$phase-smi-trace.csv" &
trace=$!
# Every family with ratios: load, texture, uav, broadcast, address (Buffer<RGBA8>.Load random) and conv.
ratio_families=(--skip branch --skip Sweep --skip Store --skip Shared --skip Atomic --skip Latency --skip Copy
    --skip ALU --skip Host --skip Device-local --skip CoopMat)
# SIGTERM before the device tool's limit: perftest then writes the cases that finished.
case $phase in
    cold) timeout 560 .bin/perftest --skip branch --format json --output "$out/cold.json" ;;
    warm) timeout 400 .bin/perftest "${ratio_families[@]}" --format json --output "$out/warm.json" ;;
esac
echo "perftest exit $?" >> "$out/$phase-smi.txt"
kill "$trace"
echo "after: $(smi)" >> "$out/$phase-smi.txt"
if [ "$phase" = warm ] && [ -x .bin/clock_ramp ]; then
    sleep 30  # idle, so the trace starts from a cold clock
    timeout 120 .bin/clock_ramp 6000 > "$out/clock-ramp.csv"
fi
