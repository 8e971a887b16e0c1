#!/usr/bin/env bash
# results/sdc/memory.sh: the fourth device-tool call on an NVIDIA GPU (repository root, after
# tools/h100-prepare.sh; .bin/perftest and .gl/ carried): the default screen, whose memory pass
# now covers 90% of the free device memory; then STUCK runs of that pass alone, each with one
# bit of a random word anywhere in it held at 0, timed from the command's start; then the default
# screen again. Everything lands in $OUT/sdc4.tar.gz.
set -uo pipefail
source tools/device-env.sh
p=$PWD/.bin/perftest
o=$out/sdc4
mkdir -p "$o"
since() { python3 -c "print(round($EPOCHREALTIME - $1, 2))"; }
smi() { nvidia-smi --query-gpu=name,pci.bus_id,driver_version,memory.total,memory.used,clocks.sm,temperature.gpu \
    --format=csv >"$o/smi-$1.csv"; }
smi start
start=$EPOCHREALTIME
$p --family sdc --json "$o/clean.json" >"$o/clean.txt" 2>&1
code=$?
echo "clean exit $code wall $(since "$start")" >>"$o/runs.txt"
# The free-memory pass's words: its work is twice its bytes (each pass reads and writes them).
words=$(python3 -c "
import json, sys
run = json.load(open(sys.argv[1]))
case = next(c for c in run['cases'] if c['name'].endswith('free memory'))
print(int(case['work']['value'] / 2 / 4))" "$o/clean.json" 2>/dev/null || echo 1000000)
echo "words $words" >>"$o/runs.txt"
for t in $(seq 1 "${STUCK:-6}"); do
    word=$(python3 -c "import random; print(random.randrange($words))")
    bit=$((RANDOM % 32))
    start=$EPOCHREALTIME
    PERFTEST_INJECT_FAULT="word=$word,bit=$bit" $p --family sdc --filter "free memory" \
        --json "$o/stuck$t.json" >"$o/stuck$t.txt" 2>&1
    code=$?
    echo "stuck $t word $word bit $bit exit $code wall $(since "$start")" >>"$o/runs.txt"
done
smi end
tar -czf "$out/sdc4.tar.gz" -C "$out" sdc4 && rm -rf "$o"
