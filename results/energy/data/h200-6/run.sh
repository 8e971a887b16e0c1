#!/usr/bin/env bash
# results/energy/data/h200-6/run.sh: one device call (issue 64), from the repository root after
# tools/h100-prepare.sh here: every cooperative matrix verified on each data (bfloat16's random
# data narrowed after the fifth sitting), every GEMM verified on each data, and one GEMM's energy
# on each data.
set -uo pipefail
source tools/device-env.sh
w=/tmp/h200-6 && mkdir -p "$w"
all=default,zeros,constant,random
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,power.limit,clocks.sm,power.draw,temperature.gpu --format=csv > "$w/nvidia-smi.txt"
.bin/perftest --verify --family coopmat --axis coopmat.data=$all > "$w/coopmat-verify.txt"; echo "perftest exit $?" >> "$w/coopmat-verify.txt"
.bin/perftest --verify --family gemm --axis gemm.data=$all > "$w/gemm-verify.txt"; echo "perftest exit $?" >> "$w/gemm-verify.txt"
.bin/perftest --energy --family gemm --filter "GEMM f16*f16+f32 8192^3 workgroup tiles 128x256x64" --axis gemm.data=$all \
    --json "$w/gemm.json" > "$w/gemm.txt"; echo "perftest exit $?" >> "$w/gemm.txt"
tail -3 "$w/coopmat-verify.txt" "$w/gemm-verify.txt"; grep -A25 "^energy:" "$w/gemm.txt"
tar -czf "$OUT/h200-6.tar.gz" -C /tmp h200-6
