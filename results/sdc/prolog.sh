#!/usr/bin/env bash
# results/sdc/prolog.sh: the third device-tool call on an NVIDIA GPU (repository root, after
# tools/h100-prepare.sh; .bin/perftest and .gl/ carried): the family clean with its shared-memory
# pass; a shared-memory bit stuck on one SM; and TRIALS screens of a job prolog's length (the four
# chain kinds, 15 s each: `--filter chains --fixed-samples --samples 750`) with one SM's
# multiply-adds flipped at one per 10^12 (each trial its own SM, bit and seed). Everything lands
# in $OUT/sdc3.tar.gz.
set -uo pipefail
source tools/device-env.sh
p=.bin/perftest
o=$out/sdc3
mkdir -p "$o"
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv >"$o/smi-start.csv"
$p --family sdc --json "$o/clean.json" >"$o/clean.txt" 2>&1
echo "clean exit $?" >>"$o/codes.txt"
PERFTEST_INJECT_FAULT="shared=1234,bit=5,unit=77" $p --family sdc --filter shared --json "$o/shared-stuck.json" \
    >"$o/shared-stuck.txt" 2>&1
echo "shared-stuck word 1234 bit 5 unit 77 exit $?" >>"$o/codes.txt"
for t in $(seq 1 "${TRIALS:-3}"); do
    unit=$((RANDOM % 132))
    bit=$((RANDOM % 32))
    seed=$((RANDOM << 15 | RANDOM))
    start=$SECONDS
    PERFTEST_INJECT_FAULT="unit=$unit,bit=$bit,rate=1e-12,seed=$seed" $p --family sdc --filter chains \
        --fixed-samples --samples 750 --json "$o/prolog$t.json" >"$o/prolog$t.txt" 2>&1
    echo "prolog $t unit $unit bit $bit exit $? wall $((SECONDS - start)) seed $seed" >>"$o/codes.txt"
done
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv >"$o/smi-end.csv"
tar -czf "$out/sdc3.tar.gz" -C "$out" sdc3 && rm -rf "$o"
