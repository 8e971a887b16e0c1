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
{
    echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) ${SLURMD_NODENAME:-$(hostname -s)}"
    "$PERFTEST" "${args[@]}"
    echo "perftest health: exit $?"
} >>"$PERFTEST_LOG" 2>&1
# Slurm reads nothing from the exit code: the drain is the verdict.
exit 0
