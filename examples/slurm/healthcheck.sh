#!/bin/bash
# examples/slurm/healthcheck.sh: Slurm's HealthCheckProgram with perftest. slurmd runs it on
# every node (at its start, then every HealthCheckInterval; it kills a check after 60 s) with
# no argument and no environment but SLURMD_NODENAME; `perftest health --drain` measures the
# node's GPUs against the site's reference and drains the node itself when one is slow alone or
# has nothing to judge, with a reason naming the GPU and its families (docs/fleet.md).
#
# slurm.conf:
#   HealthCheckProgram=/usr/local/sbin/perftest-healthcheck   (this file)
#   HealthCheckInterval=3600
#   HealthCheckNodeState=IDLE        (a busy node's GPUs belong to a job: check them when idle)
#
# Set below, or in a wrapper that exports them and runs this file:
#   PERFTEST          the binary (/usr/local/bin/perftest)
#   REFERENCE         the site's reference for this node's GPUs (/etc/perftest/reference.json)
#   PERFTEST_METRICS  also write the verdict for node_exporter's textfile collector (none)
#   PERFTEST_KEEP     keep each check's runs under this folder, for perftest history (none)
#   PERFTEST_LOG      where each check's verdict goes (/var/log/perftest-health.log)
set -u
PERFTEST=${PERFTEST:-/usr/local/bin/perftest}
REFERENCE=${REFERENCE:-/etc/perftest/reference.json}
PERFTEST_LOG=${PERFTEST_LOG:-/var/log/perftest-health.log}
# slurmd gives no PATH: scontrol (which drains) is found on the usual one.
export PATH=${PATH:-/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin}
# One check at a time: a check still measuring when the next one is due lets it pass.
exec 9>"${PERFTEST_LOG}.lock"
flock -n 9 || exit 0
args=(health --reference "$REFERENCE" --drain)
[ -n "${PERFTEST_METRICS:-}" ] && args+=(--metrics "$PERFTEST_METRICS")
[ -n "${PERFTEST_KEEP:-}" ] && args+=(--keep "$PERFTEST_KEEP")
echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) ${SLURMD_NODENAME:-$(hostname -s)}" >>"$PERFTEST_LOG" 2>&1
code=0
"$PERFTEST" "${args[@]}" >>"$PERFTEST_LOG" 2>&1 || code=$?
echo "perftest health: exit $code" >>"$PERFTEST_LOG" 2>&1
# perftest health drains the node itself when it decides to (a GPU failed, is slow, or timed
# nothing; docs/exit-codes.md). Where it ended without deciding because it could not run or died
# (not found or not executable 126/127, a panic 101, killed by a signal other than the INT or TERM
# that stop it), the node is drained here: a check that cannot run never passes a node. Its other
# codes (0, a verdict, a bad reference 10, a usage error 2, an output it could not write 1, a stop
# 130) were decided, and said in the log.
case $code in
    101 | 126 | 127) failed=1 ;;
    13[0-9] | 1[4-9][0-9] | 2[0-9][0-9]) failed=$((code != 130 && code != 143)) ;;
    *) failed=0 ;;
esac
if [ "$failed" = 1 ] && [ -n "${SLURMD_NODENAME:-}" ]; then
    scontrol update NodeName="$SLURMD_NODENAME" State=DRAIN \
        Reason="perftest health could not run (exit $code): see $PERFTEST_LOG" >>"$PERFTEST_LOG" 2>&1
fi
# slurmd logs a check that exits non-zero: the code is perftest's.
exit "$code"
