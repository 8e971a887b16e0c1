#!/usr/bin/env bash
# issue 61, eighth step: 30 allocations of 4 GiB of device-local memory and their release, from 1,
# 4, 8 and 16 threads (allocbench.rs, built here as a cargo example and copied to .sdc/).
set -uo pipefail
source tools/device-env.sh
o=$out/a; mkdir -p "$o"
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,memory.used,memory.total --format=csv > "$o/smi.csv"
date -u +%H:%M:%S >> "$o/log.txt"
for args in "30 1" "30 8" "30 1" "30 16" "30 4" "30 1 clear" "30 8 clear" "30 8" ; do
  timeout 60 .sdc/allocbench $args >> "$o/log.txt" 2>&1
  nvidia-smi --query-gpu=clocks.sm --format=csv,noheader >> "$o/log.txt"
done
date -u +%H:%M:%S >> "$o/log.txt"
cat "$o/smi.csv" "$o/log.txt"
