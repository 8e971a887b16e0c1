#!/usr/bin/env bash
# results/health-log/run.sh OUT [PERFTEST_ARGS...]: `perftest health` on this node in each of its
# verdicts, each log kept whole under OUT/NAME.txt with its exit code (OUT/codes.txt): a reference
# made from three runs of this node, then the check against it (healthy), against it edited
# (edit-reference.py: differs, every case 1.5% faster; slow, 5% faster; wide, spreads too wide to
# tell), against a reference that lacks the run's cases, one of another GPU model, with no Vulkan
# device (no driver manifest), beside another process on the GPU (shared: $BURN, a command that
# keeps the GPU busy, where one is given), and on a machine too busy to measure (noisy: $HOG, a
# command that keeps the CPUs busy, for a CPU driver). PERFTEST is the binary; PERFTEST_ARGS what
# the reference's runs take (--quick, or --quick --family alu on a CPU driver).
# REFERENCE_ARGS, what its fleet --write-reference takes (--tolerance 10 for a CPU driver);
# REFERENCE_FROM, which runs make it (`*-gpu1.json`: one GPU's, on a node of two).
set -uo pipefail
out=${1:?usage: run.sh OUT [PERFTEST_ARGS...]}
shift
bin=${PERFTEST:-perftest}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/runs"
for n in 1 2 3; do
    "$bin" "$@" --json "$out/runs/run$n.json" >/dev/null 2>"$out/runs/run$n.log" || echo "run $n: exit $?"
done
"$bin" fleet "$out"/runs/${REFERENCE_FROM:-*.json} --write-reference "$out/reference.json" ${REFERENCE_ARGS:-} >"$out/reference-fleet.txt" 2>&1
echo "reference: exit $?" >"$out/codes.txt"
python3 "$here/edit-reference.py" "$out/reference.json" "$out"
check() {
    local name=$1
    shift
    local start=$SECONDS code=0
    "$@" >"$out/$name.txt" 2>"$out/$name.err" || code=$?
    echo "$name: exit $code in $((SECONDS - start)) s" | tee -a "$out/codes.txt"
}
check healthy "$bin" health --reference "$out/reference.json"
check differs "$bin" health --reference "$out/differs.json"
check slow "$bin" health --reference "$out/slow.json"
check wide "$bin" health --reference "$out/wide.json"
check without-cases "$bin" health --reference "$out/without-cases.json"
check other-model "$bin" health --reference "$here/../fleetday/h100-x4.reference.json"
check no-device env VK_DRIVER_FILES=/nonexistent.json VK_ICD_FILENAMES=/nonexistent.json \
    "$bin" health --reference "$out/reference.json"
# `check` NAME while COMMAND runs beside it (started SECONDS before): in a session of its own, so
# that the whole of it, loops its shell started included, is stopped after.
beside() {
    local name=$1 command=$2 seconds=$3
    setsid bash -c "$command" &
    local pid=$!
    sleep "$seconds"
    check "$name" "$bin" health --reference "$out/reference.json"
    kill -- -"$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
}
if [ -n "${BURN:-}" ]; then
    beside shared "$BURN" 5
fi
if [ -n "${HOG:-}" ]; then
    beside noisy "$HOG" 2
fi
exit 0
