#!/bin/bash
# The fleet simulator's table (table-300-all.md) on the device tool's host: 16 cores draw the
# screens that take two hours on two. Made here, then carried:
#   CXXSTDLIB_STATIC=1 cargo test --release --test fleet_scale --no-run   # copied to .bin/fleet_scale
#   grep -rl --include=*.json '"NVIDIA H100 80GB HBM3"' results | while read f; do
#     mkdir -p .simres/$(dirname $f); cp $f .simres/$f; done   # results/ is more than a call carries
# Three calls, 2026-11-29: `bash sim-on-device.sh` (256 both ways, 1,024 PerCase), then
# `MODEL1=WholeRun ONLY=1024 bash sim-on-device.sh`, then `SMALL=1 bash sim-on-device.sh`.
set -u
mkdir -p $OUT/sim
nproc > $OUT/sim/nproc.txt; free -g >> $OUT/sim/nproc.txt; lscpu | head -20 >> $OUT/sim/nproc.txt
export FLEET_SCALE_RESULTS=$PWD/.simres/results FLEET_SCALE_QUICK= FLEET_SCALE_SCREENS=300 FLEET_SCALE_FOUND=20
if [ -n "${SMALL:-}" ]; then
  # Every size of the --quick runs and the full runs' 4-64, 100 planted screens a plant.
  FLEET_SCALE_QUICK=4,16,64,256,1024 FLEET_SCALE_FULL=4,16,64 FLEET_SCALE_FOUND=100 \
    timeout 560 .bin/fleet_scale --ignored --nocapture the_table > $OUT/sim/table-small.txt 2>&1
  exit
fi
specs=("256 PerCase" "256 WholeRun" "1024 ${MODEL1:-PerCase}")
[ -n "${ONLY:-}" ] && specs=("$ONLY ${MODEL1:-PerCase}")
start=$(date +%s)
for spec in "${specs[@]}"; do
  set -- $spec
  left=$(( 570 - ($(date +%s) - start) ))
  [ $left -lt 30 ] && break
  s=$(date +%s)
  FLEET_SCALE_FULL=$1 FLEET_SCALE_MODEL=$2 timeout $left .bin/fleet_scale --ignored --nocapture the_table \
    > $OUT/sim/table-$1-$2.txt 2>&1
  echo "$1 $2 rc=$? $(( $(date +%s) - s )) s" >> $OUT/sim/times.txt
done
date -u >> $OUT/sim/times.txt
