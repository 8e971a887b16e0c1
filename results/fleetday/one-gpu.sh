#!/usr/bin/env bash
# results/fleetday/one-gpu.sh: a node of one H100 (the device tool's nvidia-h100-x1), another
# host than the four of run.sh: its health check against the reference of those four
# (h100-x4.reference.json), twice, timed, with its metrics and runs kept; into $OUT/one-gpu.tar.
set -uo pipefail
source tools/device-env.sh
bin=$PWD/.bin/perftest
o=$out/one-gpu
mkdir -p "$o"
nvidia-smi --query-gpu=index,name,pci.bus_id,uuid,driver_version,clocks.sm,power.draw,temperature.gpu \
    --format=csv >"$o/nvidia-smi.csv"
for n in 1 2; do
    start=$(date +%s%N)
    "$bin" health --reference results/fleetday/h100-x4.reference.json --metrics "$o/health$n.prom" \
        --keep "$o/health" >"$o/health$n.txt" 2>&1
    echo "health $n: exit $?, $(( ($(date +%s%N) - start) / 1000000 )) ms" >>"$o/times.txt"
done
cat "$o/times.txt"
tar -C "$out" -cf "$out/one-gpu.tar" one-gpu && rm -rf "$o"
