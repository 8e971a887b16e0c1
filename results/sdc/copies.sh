#!/usr/bin/env bash
# results/sdc/units.sh: the eighth device-tool call on an NVIDIA GPU (repository root, after
# tools/h100-prepare.sh; .bin/perftest and .gl/ carried): the buffer copies
# added to the screen. The default screen (14 cases) and its --verify; ROUNDS rounds of the copies
# with their check and with it compiled out (PERFTEST_SDC_CHECK=off), alternating, for the
# overhead; the copy family's device-to-device copies of 256 MiB (each queue, and by shader) beside them; a bit flipped
# in a random word for the copies to carry; a soak of the copies (SOAK samples of 60 ms each).
# Everything lands in $OUT/sdc8.tar.gz.
set -uo pipefail
source tools/device-env.sh
p=$PWD/.bin/perftest
o=$out/sdc8
mkdir -p "$o"
smi() { nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu --format=csv >"$o/smi-$1.csv"; }
wall() { python3 -c "print(round($EPOCHREALTIME - $1, 2))"; }
new=(--family sdc --filter copies)
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
$p --family copy --filter "Copy device to device" --skip graphics --skip "1 MiB" --skip "4 MiB" --skip "16 MiB" \
    --skip "1 GiB" --json "$o/copy-family.json" >"$o/copy-family.txt" 2>&1
echo "copy family exit $?" >>"$o/codes.txt"
word=$((RANDOM * 1024 % 33554432)); bit=$((RANDOM % 32))
start=$EPOCHREALTIME
PERFTEST_INJECT_FAULT="copy=$word,bit=$bit" $p "${new[@]}" --json "$o/inject-copy.json" >"$o/inject-copy.txt" 2>&1
echo "inject copy word $word bit $bit exit $? wall $(wall "$start")" >>"$o/codes.txt"
start=$EPOCHREALTIME
$p "${new[@]}" --fixed-samples --samples "${SOAK:-250}" --target-ms 60 --json "$o/soak.json" >"$o/soak.txt" 2>&1
echo "soak exit $? wall $(wall "$start")" >>"$o/codes.txt"
smi end
tar -czf "$out/sdc8.tar.gz" -C "$out" sdc8 && rm -rf "$o"
