#!/usr/bin/env bash
# results/sdc/fingerprint.sh: the fifth device-tool call on an NVIDIA GPU (repository root, after
# tools/h100-prepare.sh; .bin/perftest and .gl/ carried): the default screen (eight cases, the
# transcendental chains among them), then RUNS runs of the transcendental chains alone, each its
# own process: every run's fingerprint must be the same; then perftest fleet over them (one GPU:
# its runs must agree). Everything lands in $OUT/sdc5.tar.gz.
set -uo pipefail
source tools/device-env.sh
p=$PWD/.bin/perftest
o=$out/sdc5
mkdir -p "$o/runs"
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu --format=csv >"$o/smi-start.csv"
start=$EPOCHREALTIME
$p --family sdc --json "$o/clean.json" >"$o/clean.txt" 2>&1
code=$?
echo "clean exit $code wall $(python3 -c "print(round($EPOCHREALTIME - $start, 2))")" >>"$o/codes.txt"
for t in $(seq 1 "${RUNS:-5}"); do
    $p --family sdc --filter transcendental --json "$o/runs/run$t.json" >"$o/run$t.txt" 2>&1
    echo "run $t exit $?" >>"$o/codes.txt"
done
$p fleet "$o/runs" >"$o/fleet.txt" 2>&1
echo "fleet exit $?" >>"$o/codes.txt"
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu --format=csv >"$o/smi-end.csv"
tar -czf "$out/sdc5.tar.gz" -C "$out" sdc5 && rm -rf "$o"
