#!/usr/bin/env bash
# results/answers/call.sh: one device-tool call on one GPU (repository root, after
# tools/h100-prepare.sh; .bin/ and .gl/ carried). Issue 65: what the answer says, whole, after a
# --quick run and a full run of this binary (.bin/perftest), and a --quick run of the binary
# before the round (.bin/perftest-before, 41809eb), from empty pipeline caches. Lands in
# $OUT/answers.tar.gz.
set -uo pipefail
source tools/device-env.sh
o=$out/answers
mkdir -p "$o"
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu --format=csv >"$o/smi.csv"
for b in perftest-before perftest; do
    export XDG_CACHE_HOME=/tmp/cache-$b
    t=$(stamp)
    timeout 60 ".bin/$b" --quick --json "$o/quick-$b.json" >"$o/quick-$b.txt" 2>&1
    echo "$b --quick: exit $? wall $(took "$t") s" >>"$o/times.txt"
done
export XDG_CACHE_HOME=/tmp/cache-full
t=$(stamp)
timeout 300 .bin/perftest --json "$o/full.json" >"$o/full.txt" 2>&1
echo "perftest (full): exit $? wall $(took "$t") s" >>"$o/times.txt"
COLUMNS=120 .bin/perftest --help >"$o/help-120.txt" 2>&1
tar -czf "$out/answers.tar.gz" -C "$out" answers && rm -rf "$o"
