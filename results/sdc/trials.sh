#!/usr/bin/env bash
# results/sdc/trials.sh: the second device-tool call on an NVIDIA GPU (repository root, after
# tools/h100-prepare.sh; .bin/perftest and .gl/ carried): TRIALS injection trials, each its own
# seed, SM and bit, at one flip per 10^12 of that SM's fp32 multiply-adds for SECONDS_PER_TRIAL
# seconds of fp32 chains; then drill.sh, from the wrong bit to the drained node with a fake
# scontrol. Everything lands in $OUT/sdc2.tar.gz.
set -uo pipefail
source tools/device-env.sh
p=$PWD/.bin/perftest
o=$out/sdc2
mkdir -p "$o"
trials=${TRIALS:-20}
seconds=${SECONDS_PER_TRIAL:-10}
samples=$((seconds * 1000 / 20))
[ "$samples" -gt 1000 ] && samples=1000
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv >"$o/smi-start.csv"
for t in $(seq 1 "$trials"); do
    unit=$((RANDOM % 132))
    bit=$((RANDOM % 32))
    seed=$((RANDOM << 15 | RANDOM))
    start=$SECONDS
    PERFTEST_INJECT_FAULT="unit=$unit,bit=$bit,rate=1e-12,seed=$seed" $p --family sdc --filter fp32 --fixed-samples \
        --samples "$samples" --json "$o/trial$t.json" >"$o/trial$t.txt" 2>&1
    code=$?
    echo "trial $t unit $unit bit $bit exit $code wall $((SECONDS - start)) seed $seed" >>"$o/trials.txt"
done
echo "$(date -u +%T) trials done" >>"$o/times.txt"
PERFTEST=$p RUN_ARGS="--family sdc --filter chains" INJECT="unit=3,bit=20,rate=1e-9,seed=1" \
    bash results/sdc/drill.sh "$o/drill"
echo "$(date -u +%T) drill done" >>"$o/times.txt"
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv >"$o/smi-end.csv"
tar -czf "$out/sdc2.tar.gz" -C "$out" sdc2 && rm -rf "$o"
