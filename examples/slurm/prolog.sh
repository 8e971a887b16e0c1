#!/bin/bash
# examples/slurm/prolog.sh: perftest's health check in a job's Prolog and Epilog. Before a job
# (Prolog) a slow or faulty GPU sends the job elsewhere; after it (Epilog) a GPU the job left
# broken is caught before the next. `perftest health` with a reference made from `--quick` runs
# takes about 7 s on an H200 (results/half-the-time-3/); a full-run reference belongs in
# healthcheck.sh's hourly check of idle nodes, not here.
#
# slurm.conf (nodes allocated whole: the check measures every GPU of the node):
#   Prolog=/usr/local/sbin/perftest-prolog     (this file)
#   Epilog=/usr/local/sbin/perftest-prolog
#   PrologFlags=Alloc                          (at allocation, before the job's first step)
#   PrologEpilogTimeout=120
#
# Slurm drains a node whose Prolog or Epilog exits non-zero, and requeues the job of a Prolog.
# So this exits 1 where the GPU is slow alone (16) or a case lost the device, crashed or hung
# (20), and where perftest could not run or died (126/127, a panic 101, a signal other than the
# INT or TERM that stop it): a check that cannot run never passes a node. Its other endings
# (healthy 0; cannot be judged 18, such as a noisy measurement; a suspect 19; a bad reference 10,
# a usage error 2, an output it could not write 1; a stop 130) let the job run and are said in
# the log; PerftestGPUUnjudged hears of a GPU unjudged for days (examples/prometheus/).
#
# Set below, or in a wrapper that exports them and runs this file:
#   PERFTEST          the binary (/usr/local/bin/perftest)
#   REFERENCE         the site's reference of --quick runs (/etc/perftest/reference-quick.json)
#   PERFTEST_METRICS  also write the verdict for node_exporter's textfile collector (none)
#   PERFTEST_LOG      where each check's verdict goes (/var/log/perftest-prolog.log)
set -u
PERFTEST=${PERFTEST:-/usr/local/bin/perftest}
REFERENCE=${REFERENCE:-/etc/perftest/reference-quick.json}
PERFTEST_LOG=${PERFTEST_LOG:-/var/log/perftest-prolog.log}
export PATH=${PATH:-/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin}
args=(health --reference "$REFERENCE")
[ -n "${PERFTEST_METRICS:-}" ] && args+=(--metrics "$PERFTEST_METRICS")
when=${SLURM_SCRIPT_CONTEXT:-prolog}
echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) ${SLURMD_NODENAME:-$(hostname -s)} $when job ${SLURM_JOB_ID:-?}" \
    >>"$PERFTEST_LOG" 2>&1
code=0
"$PERFTEST" "${args[@]}" >>"$PERFTEST_LOG" 2>&1 || code=$?
case $code in
    16 | 20 | 101 | 126 | 127) failed=1 ;;
    13[0-9] | 1[4-9][0-9] | 2[0-9][0-9]) failed=$((code != 130 && code != 143)) ;;
    *) failed=0 ;;
esac
echo "perftest health: exit $code; the $when $([ "$failed" = 1 ] && echo "fails: Slurm drains the node" || echo passes)" \
    >>"$PERFTEST_LOG" 2>&1
exit "$failed"
