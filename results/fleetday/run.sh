#!/usr/bin/env bash
# results/fleetday/run.sh: a fleet's day on a host of four H100s (the device tool's
# nvidia-h100-x4), from the repository root after tools/h100-prepare.sh: six --quick screens of
# the four GPUs at once (a week's nightly screens, compressed into minutes), a reference from the
# first three, a reference from three of the GPUs and the fourth measured alone and judged
# against it, the health check against the reference (twice, timed, with metrics and its runs
# kept), and the health check against a reference no GPU can meet (every median ten times).
# Everything lands in $OUT/fleetday.tar.
set -uo pipefail
source tools/device-env.sh
bin=$PWD/.bin/perftest
o=$out/fleetday
mkdir -p "$o/screens"
nvidia-smi --query-gpu=index,name,pci.bus_id,uuid,driver_version,clocks.sm,power.draw,temperature.gpu \
    --format=csv >"$o/nvidia-smi-before.csv"
for n in 1 2 3 4 5 6; do
    mkdir -p "$o/screens/s$n"
    start=$(date +%s%N)
    "$bin" --all-devices --quick --json "$o/screens/s$n/" >"$o/screens/s$n.txt" 2>&1
    echo "screen $n: exit $?, $(( ($(date +%s%N) - start) / 1000000 )) ms" >>"$o/times.txt"
done
"$bin" fleet "$o"/screens/s{1,2,3} --write-reference "$o/h100-x4.reference.json" >"$o/reference-fleet.txt" 2>&1
echo "reference: exit $?" >>"$o/times.txt"
# Three GPUs' runs make the reference; the fourth, alone, is judged against it.
last=$(ls "$o"/screens/s1/*-gpu4.json)
pci=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['device']['pci'])" "$last")
ls "$o"/screens/s{1,2,3}/*-gpu[123].json >"$o/three.txt"
"$bin" fleet $(cat "$o/three.txt") --write-reference "$o/three-gpus.reference.json" >"$o/three-fleet.txt" 2>&1
"$bin" "$pci" --quick --json "$o/alone-gpu4.json" >"$o/alone-gpu4.txt" 2>&1
echo "gpu4 alone ($pci): exit $?" >>"$o/times.txt"
"$bin" fleet "$o/alone-gpu4.json" --reference "$o/three-gpus.reference.json" --metrics "$o/alone-gpu4.prom" \
    >"$o/alone-gpu4-verdict.txt" 2>&1
echo "gpu4 alone against three: exit $?" >>"$o/times.txt"
for n in 1 2; do
    start=$(date +%s%N)
    "$bin" health --reference "$o/h100-x4.reference.json" --metrics "$o/health$n.prom" --keep "$o/health" \
        >"$o/health$n.txt" 2>&1
    echo "health $n: exit $?, $(( ($(date +%s%N) - start) / 1000000 )) ms" >>"$o/times.txt"
done
python3 tools/scale-reference.py "$o/h100-x4.reference.json" "$o/unmeetable.reference.json" 10
start=$(date +%s%N)
"$bin" health --reference "$o/unmeetable.reference.json" --npd --metrics "$o/unmeetable.prom" >"$o/unmeetable.txt" 2>&1
echo "health unmeetable --npd: exit $?, $(( ($(date +%s%N) - start) / 1000000 )) ms" >>"$o/times.txt"
nvidia-smi --query-gpu=index,name,pci.bus_id,uuid,driver_version,clocks.sm,power.draw,temperature.gpu \
    --format=csv >"$o/nvidia-smi-after.csv"
cat "$o/times.txt"
tar -C "$out" -cf "$out/fleetday.tar" fleetday && rm -rf "$o"
