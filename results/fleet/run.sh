#!/usr/bin/env bash
# results/fleet/run.sh: on the device tool's two-GPU machine (kind nvidia-h200-x2), from the
# repository root, after tools/h100-prepare.sh here: the same families on both GPUs at once
# (--all-devices), then on each alone (--one-at-a-time), then --quick both ways, and perftest
# fleet over them; everything under $OUT as one archive, fleet.tgz.
set -uo pipefail
# shellcheck source=tools/device-env.sh
source tools/device-env.sh
nvidia-smi -L > "$out/gpus.txt"
nvidia-smi topo -m >> "$out/gpus.txt" 2>&1
# Every family but the two longest (conv's 252 and branch's 396 cases: loads and ALU work the
# others cover), so both orders fit one call.
families=load,texture,address,broadcast,sweep,latency,shared,host,copy,store,atomic,dispatch,alu,coopmat,gemm
run() {
    local name=$1
    shift
    local start=$SECONDS code=0
    .bin/perftest "$@" --format json --output "$out/$name.json" > "$out/$name.txt" 2>&1 || code=$?
    echo "$name: exit $code in $((SECONDS - start)) s" | tee -a "$out/times.txt"
}
run together --all-devices --family "$families"
run alone --all-devices --one-at-a-time --family "$families"
run quick-together --all-devices --quick
run quick-alone --all-devices --one-at-a-time --quick
for set in "together" "quick-together" "together alone"; do
    name=fleet-${set// /-}
    files=()
    for s in $set; do files+=("$out/$s"-gpu*.json); done
    .bin/perftest fleet "${files[@]}" > "$out/$name.txt" 2>&1
    echo "$name: exit $?" | tee -a "$out/times.txt"
done
cd "$out" && tar czf fleet.tgz ./*.json ./*.txt && rm -f ./*.json
