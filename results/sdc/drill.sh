#!/usr/bin/env bash
# results/sdc/drill.sh OUT: the whole path from a wrong bit to a drained node, on this machine.
# Makes a reference from three runs of the sdc family's chains, then runs `perftest health --drain
# --metrics` against it twice with a fake `scontrol` that logs its arguments (OUT/scontrol.log):
# once clean, once with a fault injected (PERFTEST_INJECT_FAULT, docs/corruption.md), which must
# end 21, drain the node with the case and unit in the reason, and set the GPU's metrics state to
# `corrupt`. PERFTEST is the binary; INJECT the injection (default: unit 3, bit 20, a flip per
# 10^7 multiply-adds); RUN_ARGS what the reference's runs take; REFERENCE_ARGS its
# fleet --write-reference (--tolerance 10 for a CPU driver).
set -uo pipefail
out=${1:?usage: drill.sh OUT}
bin=${PERFTEST:-perftest}
mkdir -p "$out/runs" "$out/bin"
read -r -a run_args <<<"${RUN_ARGS:---family sdc --filter chains}"
for n in 1 2 3; do
    "$bin" "${run_args[@]}" --json "$out/runs/run$n.json" >/dev/null 2>"$out/runs/run$n.log" || echo "run $n: exit $?"
done
# shellcheck disable=SC2086
"$bin" fleet "$out"/runs/*.json --write-reference "$out/reference.json" ${REFERENCE_ARGS:-} >"$out/reference-fleet.txt" 2>&1
echo "reference: exit $?" >"$out/codes.txt"
cat >"$out/bin/scontrol" <<SCONTROL
#!/bin/sh
printf 'scontrol' >>"$out/scontrol.log"
for a in "\$@"; do printf ' [%s]' "\$a" >>"$out/scontrol.log"; done
echo >>"$out/scontrol.log"
SCONTROL
chmod +x "$out/bin/scontrol"
check() {
    local name=$1
    shift
    local start=$SECONDS code=0
    env SLURMD_NODENAME=drill-node PATH="$out/bin:$PATH" "$@" "$bin" health --reference "$out/reference.json" \
        --drain --metrics "$out/$name.prom" >"$out/$name.txt" 2>"$out/$name.err" || code=$?
    echo "$name: exit $code in $((SECONDS - start)) s" | tee -a "$out/codes.txt"
}
check clean
check injected PERFTEST_INJECT_FAULT="${INJECT:-unit=3,bit=20,rate=1e-7}"
exit 0
