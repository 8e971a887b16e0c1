#!/usr/bin/env bash
# results/two-gpus/call.sh: one device-tool call on a host of two GPUs (repository root, after
# tools/h100-prepare.sh; .bin/perftest and .gl/ carried). Issue 63: the corruption screen
# (`--family sdc`) on both GPUs at once, twice, then `perftest fleet` over the four documents (the
# fingerprints of the transcendental chains compared across the GPUs and runs). Issue 61: a full
# default run on the first GPU alone, then `--all-devices` on both, each from an empty pipeline
# cache. Everything lands in $OUT/two.tar.gz.
set -uo pipefail
source tools/device-env.sh
p=$PWD/.bin/perftest
o=$out/two
mkdir -p "$o/sdc"
export XDG_CACHE_HOME=/tmp/perftest-cache-home
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
smi() { nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv >"$o/smi-$1.csv"; }
smi start
for r in 1 2; do
    t=$(stamp)
    timeout 120 $p --all-devices --family sdc --json "$o/sdc/run$r.json" >"$o/sdc-run$r.txt" 2>&1
    echo "sdc run $r: exit $? wall $(took "$t") s" >>"$o/times.txt"
done
$p fleet "$o/sdc" >"$o/sdc-fleet.txt" 2>&1
echo "sdc fleet: exit $?" >>"$o/times.txt"
smi sdc
rm -rf "$XDG_CACHE_HOME"
t=$(stamp)
timeout 200 $p --json "$o/one.json" >"$o/one.txt" 2>&1
echo "full, first GPU alone: exit $? wall $(took "$t") s" >>"$o/times.txt"
smi one
rm -rf "$XDG_CACHE_HOME"
t=$(stamp)
timeout 230 $p --all-devices --json "$o/both.json" >"$o/both.txt" 2>&1
echo "full, --all-devices on both: exit $? wall $(took "$t") s" >>"$o/times.txt"
smi end
cat "$o/times.txt"
tar -czf "$out/two.tar.gz" -C "$out" two && rm -rf "$o"
