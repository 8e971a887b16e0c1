#!/usr/bin/env bash
# results/energy/data/run.sh: one device call of the data study (issue 64), from the repository root
# after tools/h100-prepare.sh here: the CUDA mirror of perftest's energy cases on each data
# (mirror.cu), then perftest --energy on the same cases and data, in one sitting (from the fifth
# sitting on, the tensor cores too: --verify of every cooperative matrix on each data, then the
# energy of the one the mirror runs).
# Usage: bash results/energy/data/run.sh NAME (h100 or h200); the outputs in $OUT/NAME-data.tar.gz.
set -uo pipefail
source tools/device-env.sh
name=${1:?usage: run.sh NAME}
w=/tmp/$name-data && mkdir -p "$w"
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,power.limit,clocks.sm,power.draw,temperature.gpu --format=csv \
    | tee "$w/$name-nvidia-smi.txt"
nvcc -O3 -arch=sm_90 results/energy/data/mirror.cu -lnvidia-ml -o /tmp/mirror 2>&1 | tee "$w/$name-nvcc.txt"
/tmp/mirror | tee "$w/$name-mirror.txt"
all=default,zeros,constant,random
.bin/perftest --energy --family alu,shared,sweep --axis alu.data=$all --axis shared.data=$all \
    --axis sweep.data=$all --axis sweep.bytes=32K,8M,256M --json "$w/$name-data.json" > "$w/$name-data.txt"
echo "perftest exit $?" | tee -a "$w/$name-data.txt"
.bin/perftest --verify --family copy --filter "Copy host to device" --axis copy.bytes=64M --axis copy.data=$all \
    > "$w/$name-copy-verify.txt"
echo "perftest exit $?" | tee -a "$w/$name-copy-verify.txt"
.bin/perftest --energy --family copy --filter "Copy host to device" --axis copy.bytes=64M --axis copy.data=$all \
    --json "$w/$name-copy.json" > "$w/$name-copy.txt"
echo "perftest exit $?" | tee -a "$w/$name-copy.txt"
coopmat="CoopMat f16*f16+f32 16x16x16 subgroup"
.bin/perftest --verify --family coopmat --axis coopmat.data=$all > "$w/$name-coopmat-verify.txt"
echo "perftest exit $?" | tee -a "$w/$name-coopmat-verify.txt"
.bin/perftest --energy --family coopmat --filter "$coopmat" --axis coopmat.data=$all \
    --json "$w/$name-coopmat.json" > "$w/$name-coopmat.txt"
echo "perftest exit $?" | tee -a "$w/$name-coopmat.txt"
grep -A12 '^energy:' "$w/$name-copy.txt"
grep -A12 '^energy:' "$w/$name-coopmat.txt"
grep -A30 '^energy:' "$w/$name-data.txt"
tar -czf "$OUT/$name-data.tar.gz" -C /tmp "$name-data"
