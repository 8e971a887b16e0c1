#!/usr/bin/env bash
# ci/slurm.sh: perftest on a real Slurm, as examples/slurm/ runs it on a cluster: Debian's munge,
# slurmctld and slurmd on this machine as a one-node cluster, a two-task job array running
# `perftest --quick` on lavapipe, each task writing HOST-taskN.json into one folder, then
# examples/slurm/fleet.sbatch as a dependent job over both, twice, with its exit code checked (two
# runs of one device: too few to tell which is odd, so 18, cannot be judged, never a pass). Then the health check as slurmd runs
# it (HealthCheckProgram, examples/slurm/healthcheck.sh): the node stays up against a reference
# made from its own runs and is drained against one it cannot meet, read from `scontrol show
# node`; its metrics go through promtool. ci/test.sh installs the packages and calls it after the
# main job.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/lavapipe-env.sh
bin=$PWD/target/release/perftest
dir=$PWD/target/slurm
rm -rf "$dir" && mkdir -p "$dir"/{state,spool,log,results}

for command in munged slurmctld slurmd sbatch; do
    command -v "$command" >/dev/null || {
        echo "ci/slurm.sh: $command is missing: run ci/test.sh, which installs munge and Slurm, or apt-get install munge slurmctld slurmd slurm-client"
        exit 1
    }
done

node=$(hostname -s)
cpus=$(nproc)
user=$(id -un)
export SLURM_CONF=$dir/slurm.conf
cat > "$SLURM_CONF" <<EOF
ClusterName=perftest-ci
SlurmctldHost=$node
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
NodeName=$node CPUs=$cpus State=UNKNOWN
PartitionName=ci Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF

# munged refuses root without --force; its socket and key are Debian's defaults.
mkdir -p /run/munge
chown munge:munge /run/munge 2>/dev/null || true
pgrep -x munged >/dev/null || munged --force
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
stop() {
    scancel --user="$user" 2>/dev/null || true
    [ -f "$dir/slurmd.pid" ] && kill "$(cat "$dir/slurmd.pid")" 2>/dev/null || true
    [ -f "$dir/slurmctld.pid" ] && kill "$(cat "$dir/slurmctld.pid")" 2>/dev/null || true
}
trap stop EXIT

# The node comes up within seconds; give it 60.
for _ in $(seq 60); do
    sinfo -h -N -o "%T" 2>/dev/null | grep -qE "idle|mixed" && break
    sleep 1
done
sinfo -N

# Waits for job $1 to leave the queue (15 minutes at most) and prints its exit code.
finish() {
    local start=$SECONDS
    while squeue -h -j "$1" 2>/dev/null | grep -q .; do
        sleep 2
        if ((SECONDS - start > 900)); then
            echo "ci/slurm.sh: job $1 did not finish in 15 minutes" >&2
            exit 1
        fi
    done
    # A finished job stays in slurmctld's memory for MinJobAge (300 s) with its ExitCode=code:signal.
    scontrol show job -o "$1" | grep -o 'ExitCode=[0-9]*' | cut -d= -f2
}

# Two array tasks, each one run of --quick on lavapipe (one CPU each), each its own file.
start=$SECONDS
job=$(sbatch --parsable --array=0-1 --cpus-per-task=1 --output="$dir/log/task-%a.log" \
    --export=ALL,PERFTEST_BIN="$bin",RESULTS="$dir/results" --wrap \
    'exec "$PERFTEST_BIN" --quick --format json --output "$RESULTS/$(hostname -s)-task$SLURM_ARRAY_TASK_ID.json"')
echo "== job array $job submitted"
finish "$job" >/dev/null
echo "== job array $job done in $((SECONDS - start)) s"
for log in "$dir"/log/task-*.log; do
    echo "-- $log:"
    tail -n 3 "$log"
done
ls -l "$dir/results"
count=$(ls "$dir"/results/*.json | wc -l)
[ "$count" -eq 2 ] || { echo "ci/slurm.sh: $count results files, not 2"; exit 1; }

# The example's fleet job over both, as a cluster runs it (after the screen, whatever its codes),
# twice: the second reads the runs only, not the first one's verdict. One group of two runs of one
# lavapipe device, too few to judge: exit 18 (cannot be judged) both times, with the reason.
for n in 1 2; do
    fleet=$(sbatch --parsable --dependency="afterany:$job" --output="$dir/log/fleet-$n.log" \
        --export=ALL,PERFTEST="$bin" examples/slurm/fleet.sbatch "$dir/results")
    code=$(finish "$fleet")
    cat "$dir/log/fleet-$n.log"
    echo "== examples/slurm/fleet.sbatch ($n): exit $code"
    [ "$code" = 18 ] || { echo "ci/slurm.sh: the fleet job exited $code, not 18"; exit 1; }
    grep -q "only 1 device of this model" "$dir/log/fleet-$n.log" || {
        echo "ci/slurm.sh: the fleet job did not say why it could not judge"
        exit 1
    }
    job=$fleet
done
ls "$dir/results/verdict"

# The health check, as a site runs it: a reference from three runs of this node (lavapipe's
# --quick alu cases), then slurmd's HealthCheckProgram running `perftest health --drain` against
# it (its medians scaled to a tenth); the node must stay up. Then against a reference it cannot
# meet (every median ten times this node's): the check must drain the node with a reason naming
# the GPU and the family.
hc=$dir/health
bash ci/node-reference.sh "$bin" "$hc"
python3 tools/scale-reference.py "$hc/reference.json" "$hc/unmeetable.json" 10
# The node's own medians, a tenth of them: a reference it meets however loaded this machine is
# (a busy CI host slows lavapipe, and a node slower than its own reference would rightly drain).
python3 tools/scale-reference.py "$hc/reference.json" "$hc/current.json" 0.1
# slurmd runs the program with no argument and an environment of SLURMD_NODENAME alone: the
# wrapper gives it the rest (examples/slurm/healthcheck.sh is the one a site installs).
cat > "$hc/check.sh" <<EOF2
#!/bin/bash
export PATH=$PATH SLURM_CONF=$SLURM_CONF PERFTEST=$bin REFERENCE=$hc/current.json
export PERFTEST_METRICS=$hc/perftest.prom PERFTEST_LOG=$hc/check.log
source $PWD/tools/lavapipe-env.sh
exec $PWD/examples/slurm/healthcheck.sh
EOF2
chmod +x "$hc/check.sh"
cat >> "$SLURM_CONF" <<EOF2
HealthCheckProgram=$hc/check.sh
HealthCheckInterval=10
HealthCheckNodeState=ANY
EOF2
# Both daemons read the program and its interval: start them again (slurmd runs the check once
# before it registers).
kill "$(cat "$dir/slurmd.pid")" "$(cat "$dir/slurmctld.pid")"
while pgrep -f "slurm(ctld|d) -f $SLURM_CONF" >/dev/null; do sleep 1; done
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"

# Waits up to $2 seconds for the check's log to hold $1 finished checks.
checks() {
    local start=$SECONDS
    until [ "$(cat "$hc/check.log" 2>/dev/null | grep -c '^perftest health: exit')" -ge "$1" ]; do
        sleep 2
        if ((SECONDS - start > $2)); then
            echo "ci/slurm.sh: the health check did not run $1 time(s) in $2 s" >&2
            cat "$hc/check.log" "$dir/log/slurmd.log" >&2 || true
            exit 1
        fi
    done
}
state() { scontrol show node "$node" | grep -E "^ *(State|Reason)="; }
checks 2 120
echo "== the health check against this node's own reference ($(grep -c '^perftest health: exit' "$hc/check.log") runs):"
grep -E '^(healthy|slow|cannot be judged|perftest health: exit)' "$hc/check.log" | tail -n 2
state
if scontrol show node "$node" | grep -q "State=[A-Z+]*DRAIN"; then
    echo "ci/slurm.sh: a healthy node was drained" >&2
    exit 1
fi

cp "$hc/unmeetable.json" "$hc/current.json"
start=$SECONDS
until scontrol show node "$node" | grep -q "State=[A-Z+]*DRAIN"; do
    sleep 2
    if ((SECONDS - start > 180)); then
        echo "ci/slurm.sh: the node was not drained in 180 s against a reference it cannot meet" >&2
        tail -n 30 "$hc/check.log" >&2
        exit 1
    fi
done
echo "== the health check against a reference it cannot meet: drained in $((SECONDS - start)) s"
state
scontrol show node "$node" | grep -q "Reason=perftest health: slow GPU .*(alu[;)]" || {
    echo "ci/slurm.sh: the drain's reason does not name the GPU and its family" >&2
    exit 1
}
scontrol update NodeName="$node" State=RESUME

# The check's metrics, as node_exporter's textfile collector would read them, through
# Prometheus's own linter (ci/promtool.sh fetches Debian's promtool).
promtool=$(bash ci/promtool.sh)
echo "== promtool check metrics < $hc/perftest.prom"
"$promtool" check metrics <"$hc/perftest.prom"
echo "promtool: exit 0"
grep -E "^perftest_(verdict|gpu_healthy)" "$hc/perftest.prom"

# A check that cannot run at all (its perftest missing: exit 127) never passes the node: the
# wrapper drains it (examples/slurm/healthcheck.sh). A check already running with the unmeetable
# reference may drain it first, for being slow: that drain is resumed until the wrapper's comes.
sed -i "s|PERFTEST=$bin |PERFTEST=$dir/no-such-perftest |" "$hc/check.sh"
grep -q "no-such-perftest" "$hc/check.sh"
start=$SECONDS
until scontrol show node "$node" | grep -q "Reason=perftest health could not run (exit 127)"; do
    if scontrol show node "$node" | grep -q "State=[A-Z+]*DRAIN"; then
        scontrol update NodeName="$node" State=RESUME
    fi
    sleep 2
    if ((SECONDS - start > 180)); then
        echo "ci/slurm.sh: a check that could not run did not drain the node in 180 s" >&2
        tail -n 30 "$hc/check.log" >&2
        exit 1
    fi
done
echo "== a check whose perftest is missing: drained in $((SECONDS - start)) s"
state
scontrol update NodeName="$node" State=RESUME
