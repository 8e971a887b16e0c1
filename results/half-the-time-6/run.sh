#!/usr/bin/env bash
# results/half-the-time-6/run.sh: one device call (issue 61), from the repository root after
# tools/h100-prepare.sh here, with .bin/perftest-before (9b90f99) and .bin/perftest (this commit):
# two full default runs on one H200, each from an empty cache home; then compare.
set -uo pipefail
source tools/device-env.sh
w=/tmp/held && mkdir -p "$w"
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,power.limit,clocks.sm,power.draw,temperature.gpu --format=csv > "$w/nvidia-smi.txt"
for who in before after; do
    bin=.bin/perftest
    [ "$who" = before ] && bin=.bin/perftest-before
    start=$SECONDS
    XDG_CACHE_HOME=/tmp/cache-$who "$bin" --json "$w/$who.json" > "$w/$who.txt" 2>&1
    echo "$who: exit $? in $((SECONDS - start)) s" | tee -a "$w/times.txt"
done
.bin/perftest compare "$w/before.json" "$w/after.json" > "$w/compare.txt" 2>&1
tar -czf "$OUT/held.tar.gz" -C /tmp held
