#!/usr/bin/env bash
# results/verdicts/h100.sh: what the device tool ran on the H100 for the verdicts study, in one
# call: the full default run with the binary before (dbf3b20) and after, back to back, with
# nvidia-smi sampled every 250 ms beside them. After tools/h100-prepare.sh here, and the baseline
# binary built from dbf3b20 into .bin/perftest-dbf3b20.
# Usage (on the device machine, from the repository root): bash results/verdicts/h100.sh
set -uo pipefail
source tools/device-env.sh
o=$out/h100
mkdir -p "$o"
nvidia-smi --query-gpu=name,uuid,pci.bus_id,driver_version,clocks.max.sm --format=csv > "$o/smi.txt"
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active \
    --format=csv,nounits -lms 250 > "$o/smi-during.csv" &
smi=$!
.bin/perftest --devices > "$o/devices.txt" 2>&1
.bin/perftest --compile-only --shader-stats --family instr --json "$o/instr-stats.json" > /dev/null 2>&1
python3 tools/instr-stats.py "$o/instr-stats.json" > "$o/instr-stats.txt" 2>&1
for who in before after; do
    bin=.bin/perftest
    [ "$who" = before ] && bin=.bin/perftest-dbf3b20
    start=$(date +%s)
    "$bin" --json "$o/$who.json" > "$o/$who.txt" 2>&1
    echo "rc=$? wall=$(( $(date +%s) - start ))s" >> "$o/$who.txt"
done
kill "$smi"
(cd "$out" && tar czf h100.tgz h100 && rm -r h100)
