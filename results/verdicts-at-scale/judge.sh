#!/usr/bin/env bash
# results/verdicts-at-scale/judge.sh NEW OLD: each GPU's six --quick runs made into a reference
# (one GPU's runs: its cases' basis is "runs"), and each of the other GPU's six runs judged
# alone against it, by the perftest binaries NEW and OLD (6806dae); a line per verdict.
set -uo pipefail
cd "$(dirname "$0")/pair"
tmp=$(mktemp -d)
for bin in "$@"; do
    for g in 1 2; do
        o=$((3 - g))
        mkdir -p "$tmp/gpu$g"
        for n in 1 2 3 4 5 6; do cp "quick$n/vm-gpu$g.json" "$tmp/gpu$g/run$n.json"; done
        "$bin" fleet "$tmp/gpu$g" --write-reference "$tmp/ref$g.json" > /dev/null 2>&1
        for n in 1 2 3 4 5 6; do
            "$bin" fleet "quick$n/vm-gpu$o.json" --reference "$tmp/ref$g.json" > "$tmp/out" 2>&1
            rc=$?
            echo "$(basename "$bin") gpu$o quick$n against gpu$g's reference: exit $rc: $(head -1 "$tmp/out")"
            grep -E '^\s+1\. ' "$tmp/out" | sed 's/^ */    /'
        done
    done
done
rm -r "$tmp"
