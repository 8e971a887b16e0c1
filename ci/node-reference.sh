#!/usr/bin/env bash
# ci/node-reference.sh BIN DIR: this node's reference for a health check on lavapipe, as
# DIR/reference.json, from three runs of its --quick alu cases (DIR/runs/). A tolerance of 50%:
# three runs of lavapipe on a busy CI host spread by a few percent, and the checks that use it
# scale its medians 0.1x and 10x. Where the host was too busy for lavapipe to measure (fleet
# refuses: every case too noisy), measured again, up to three times: setup, not a verdict.
# Called by ci/slurm.sh and ci/npd.sh, with tools/lavapipe-env.sh sourced.
set -euo pipefail
bin=${1:?usage: node-reference.sh BIN DIR} dir=${2:?usage: node-reference.sh BIN DIR}
for attempt in 1 2 3; do
    rm -rf "$dir/runs" && mkdir -p "$dir/runs"
    for n in 1 2 3; do
        "$bin" --quick --family alu --json "$dir/runs/run$n.json" >/dev/null
    done
    # One GPU alone cannot be judged among siblings (exit 18), yet its runs make a reference.
    "$bin" fleet "$dir/runs" --write-reference "$dir/reference.json" --tolerance 50 >/dev/null 2>&1 || true
    [ -s "$dir/reference.json" ] && exit 0
done
echo "ci/node-reference.sh: no reference in three tries: lavapipe too noisy here" >&2
exit 1
