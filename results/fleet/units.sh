#!/usr/bin/env bash
# results/fleet/units.sh LABEL [--all-devices ...]: on a lent GPU machine, after
# tools/h100-prepare.sh here: the units family verified, then timed twice (how the per-SM figures
# repeat), each as $OUT/LABEL-units-N.json; everything as $OUT/LABEL-units.tgz.
set -uo pipefail
# shellcheck source=tools/device-env.sh
source tools/device-env.sh
label=$1
shift
.bin/perftest --family units --verify "$@" > "$out/$label-units-verify.txt" 2>&1
echo "verify exit $?"
for n in 1 2; do
    .bin/perftest --family units "$@" --json "$out/$label-units-$n.json" > "$out/$label-units-$n.txt" 2>&1
    echo "units $n exit $?"
done
sed -n '/^units:/,/^$/p' "$out/$label-units-1.txt" "$out/$label-units-2.txt"
cd "$out" && tar czf "$label-units.tgz" ./*.json ./*.txt && rm -f ./*.json
