#!/usr/bin/env bash
# Issues 60 and 63 on four H200s: `perftest fleet` over each full --all-devices screen of
# results/half-the-time-13/ (its runs, not kept: 3.3 MB each, in FOLDER/SCREEN/gpuN.json), the
# verdict, exit code and metrics of each. Usage: fleet.sh PERFTEST FOLDER SCREEN...
set -u
perftest=$1 folder=$2; shift 2
for screen in "$@"; do
  "$perftest" fleet "$folder/$screen" --metrics "$screen.prom" > "$screen.txt" 2>&1
  echo "$screen: exit $?, $(head -1 "$screen.txt" | cut -c1-100)"
done
