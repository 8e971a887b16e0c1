#!/usr/bin/env bash
# examples/slurm/submit.sh DIR [SBATCH OPTIONS...]: submits screen.sbatch, then fleet.sbatch to
# run after it (whatever the screen's exit codes), both writing into DIR.
#   bash examples/slurm/submit.sh /shared/screen --nodes=4 --gpus-per-node=8 --ntasks-per-node=8
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:?usage: submit.sh DIR [SBATCH OPTIONS...]}
shift
screen=$(sbatch --parsable "$@" "$here/screen.sbatch" "$dir")
fleet=$(sbatch --parsable --dependency="afterany:$screen" "$here/fleet.sbatch" "$dir")
echo "screen job $screen, fleet job $fleet: results in $dir"
