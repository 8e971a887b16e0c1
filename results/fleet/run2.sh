#!/usr/bin/env bash
# results/fleet/run2.sh: the second call on the two-H200 machine, after the fix of 1fe141b: both
# GPUs at once with --quick (twice) and the host-link families (host, copy) at once and alone,
# then fleet over the quick runs; everything under $OUT as fleet2.tgz.
set -uo pipefail
# shellcheck source=tools/device-env.sh
source tools/device-env.sh
run() {
    local name=$1
    shift
    local start=$SECONDS code=0
    .bin/perftest "$@" --format json --output "$out/$name.json" > "$out/$name.txt" 2>&1 || code=$?
    echo "$name: exit $code in $((SECONDS - start)) s" | tee -a "$out/times.txt"
}
run quick-together --all-devices --quick
run quick-together-2 --all-devices --quick
run link-together --all-devices --family host,copy
run link-alone --all-devices --one-at-a-time --family host,copy
.bin/perftest --all-devices --quick --filter "ALU fp32 FMA" > "$out/text-together.txt" 2>&1
echo "text-together: exit $?" | tee -a "$out/times.txt"
.bin/perftest fleet "$out"/quick-together-gpu*.json "$out"/quick-together-2-gpu*.json > "$out/fleet-quick-four.txt" 2>&1
echo "fleet-quick-four: exit $?" | tee -a "$out/times.txt"
cd "$out" && tar czf fleet2.tgz ./*.json ./*.txt && rm -f ./*.json
