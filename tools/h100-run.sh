#!/usr/bin/env bash
# tools/h100-run.sh: what a device-tool call runs on the lent H100, after tools/h100-prepare.sh here:
# unpack the carried Vulkan loader, then list rows, verify every case, and time every case on each row.
# Usage (on the device machine, from the repository root): [ROWS="1"] bash tools/h100-run.sh [perftest options]
# ROWS lists the device rows to time (default: every row).
set -uo pipefail
source tools/device-env.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv | tee "$out/nvidia-smi.txt"
.bin/perftest --devices | tee "$out/devices.txt"
.bin/perftest --verify | tee "$out/verify.txt"
for row in ${ROWS:-$(seq 1 "$(.bin/perftest --devices | wc -l)")}; do
    .bin/perftest "-$row" "$@" | tee "$out/run-row$row.txt"
done
