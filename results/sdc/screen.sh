#!/usr/bin/env bash
# results/sdc/screen.sh: one device-tool call on an NVIDIA GPU (repository root, after
# tools/h100-prepare.sh; .bin/perftest and .gl/ carried): the sdc family clean, what checking costs
# (checked and unchecked builds, alternating, beside the alu family's same chains), injected flips
# at one per 10^12 multiply-adds on a random SM (TRIALS runs of SECONDS of fp32 chains each), a
# stuck memory bit, and a healthy soak (SOAK seconds a case). Everything lands in $OUT/sdc.tar.gz.
set -uo pipefail
source tools/device-env.sh
p=.bin/perftest
o=$out/sdc
mkdir -p "$o"
trials=${TRIALS:-12}
seconds=${SECONDS_PER_TRIAL:-10}
soak=${SOAK:-60}
log() { echo "$(date -u +%T) $*" | tee -a "$o/times.txt"; }
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv >"$o/smi-start.csv"
log "clean"
$p --family sdc --json "$o/clean.json" >"$o/clean.txt" 2>&1; log "clean: exit $?"
log "overhead"
for i in 1 2; do
    $p --family sdc --filter chains --fixed-samples --samples 50 --json "$o/checked$i.json" >/dev/null 2>&1
    PERFTEST_SDC_CHECK=off $p --family sdc --filter chains --fixed-samples --samples 50 --json "$o/unchecked$i.json" >/dev/null 2>&1
    $p --case "ALU fp32 FMA" --case "ALU fp64 FMA" --case "ALU int32 multiply-add" --fixed-samples --samples 50 \
        --json "$o/alu$i.json" >/dev/null 2>&1
done
log "overhead: done"
samples=$((seconds * 1000 / 20))
[ "$samples" -gt 1000 ] && samples=1000
for t in $(seq 1 "$trials"); do
    unit=$((RANDOM % 132))
    bit=$((RANDOM % 32))
    start=$SECONDS
    PERFTEST_INJECT_FAULT="unit=$unit,bit=$bit,rate=1e-12" $p --family sdc --filter fp32 --fixed-samples \
        --samples "$samples" --json "$o/trial$t.json" >"$o/trial$t.txt" 2>&1
    code=$?
    echo "trial $t unit $unit bit $bit exit $code wall $((SECONDS - start))" >>"$o/trials.txt"
done
log "trials: done"
for t in 1 2 3; do
    word=$(( (RANDOM << 15 | RANDOM) % (1 << 29) ))
    bit=$((RANDOM % 32))
    PERFTEST_INJECT_FAULT="word=$word,bit=$bit" $p --family sdc --filter memory --axis sdc.bytes=2G \
        --json "$o/stuck$t.json" >"$o/stuck$t.txt" 2>&1
    echo "stuck $t word $word bit $bit exit $?" >>"$o/trials.txt"
done
log "stuck: done"
soak_samples=$((soak * 1000 / 60))
[ "$soak_samples" -gt 1000 ] && soak_samples=1000
$p --family sdc --axis sdc.bytes=2G --fixed-samples --samples "$soak_samples" --target-ms 60 \
    --json "$o/soak.json" >"$o/soak.txt" 2>&1
log "soak: exit $?"
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv >"$o/smi-end.csv"
tar -czf "$out/sdc.tar.gz" -C "$out" sdc && rm -rf "$o"
