#!/usr/bin/env bash
# results/sdc/units.sh: the sixth device-tool call on an NVIDIA GPU (repository root, after
# tools/h100-prepare.sh; .bin/perftest and .gl/ carried): the atomics and cooperative matrices
# added to the screen. The default screen (13 cases) and its --verify; ROUNDS rounds of the new
# cases with their checks and with the checks compiled out (PERFTEST_SDC_CHECK=off), alternating,
# for the overhead; a flipped bit injected into the atomics and into the matrices on a random SM
# each; a soak of the new cases (SOAK samples of 60 ms each). ONLY=TEXT keeps the cases whose name
# has TEXT, PLACES the injectors (default: atomic matrix). Everything lands in $OUT/sdc6.tar.gz.
set -uo pipefail
source tools/device-env.sh
p=$PWD/.bin/perftest
o=$out/sdc6
mkdir -p "$o"
smi() { nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu --format=csv >"$o/smi-$1.csv"; }
wall() { python3 -c "print(round($EPOCHREALTIME - $1, 2))"; }
# The atomics and the matrices, and nothing else of the family.
new=(--family sdc --skip FMA --skip multiply-add --skip transcendental --skip inversions)
[ -n "${ONLY:-}" ] && new=(--family sdc --filter "$ONLY")
smi start
start=$EPOCHREALTIME
$p --family sdc --json "$o/screen.json" >"$o/screen.txt" 2>&1
echo "screen exit $? wall $(wall "$start")" >>"$o/codes.txt"
$p --family sdc --verify --json "$o/verify.json" >"$o/verify.txt" 2>&1
echo "verify exit $?" >>"$o/codes.txt"
for r in $(seq 1 "${ROUNDS:-3}"); do
    $p "${new[@]}" --json "$o/checked$r.json" >"$o/checked$r.txt" 2>&1
    echo "checked $r exit $?" >>"$o/codes.txt"
    PERFTEST_SDC_CHECK=off $p "${new[@]}" --json "$o/unchecked$r.json" >"$o/unchecked$r.txt" 2>&1
    echo "unchecked $r exit $?" >>"$o/codes.txt"
done
for place in ${PLACES:-atomic matrix}; do
    sm=$((RANDOM % 132)); bit=$((RANDOM % 16))
    start=$EPOCHREALTIME
    PERFTEST_INJECT_FAULT="$place=$sm,bit=$bit" $p "${new[@]}" --json "$o/inject-$place.json" >"$o/inject-$place.txt" 2>&1
    echo "inject $place sm $sm bit $bit exit $? wall $(wall "$start")" >>"$o/codes.txt"
done
start=$EPOCHREALTIME
$p "${new[@]}" --fixed-samples --samples "${SOAK:-250}" --target-ms 60 --json "$o/soak.json" >"$o/soak.txt" 2>&1
echo "soak exit $? wall $(wall "$start")" >>"$o/codes.txt"
smi end
tar -czf "$out/sdc6.tar.gz" -C "$out" sdc6 && rm -rf "$o"
