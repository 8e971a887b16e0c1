#!/usr/bin/env bash
# results/energy/run.sh: what one device-tool call runs for the energy study, from the repository
# root after tools/h100-prepare.sh here: the CUDA reference (cuda-energy.cu), then perftest --energy
# on the levels' cases, then the same two cases three times (the sensor's resolution), all in one
# sitting; with INSTR=1 also the instr family's throughput cases held 2 s each (the instruction
# table's energy column). Usage: [INSTR=1] bash results/energy/run.sh NAME (h100 or h200); the
# outputs in $OUT/NAME.tar.gz.
set -uo pipefail
source tools/device-env.sh
name=${1:?usage: run.sh NAME}
w=/tmp/$name && mkdir -p "$w"
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm,power.draw,temperature.gpu --format=csv \
    | tee "$w/$name-nvidia-smi.txt"
nvcc -O3 -arch=sm_90 results/energy/cuda-energy.cu -lnvidia-ml -o /tmp/cuda-energy
/tmp/cuda-energy | tee "$w/$name-cuda-energy.txt"
levels=(--case "ALU fp32 FMA" --case "ALU fp16 FMA (f16vec2)" --case "CoopMat f16*f16+f32 16x16x16 subgroup"
        --case "Shared vec4" --case "Copy host to device 256 MiB")
for kib in 16 32 64 128 256 512; do levels+=(--case "Sweep SSBO vec4 linear $kib KiB"); done
for mib in 1 2 4 8 16 32 64 128 256 512; do levels+=(--case "Sweep SSBO vec4 linear $mib MiB"); done
levels+=(--case "Sweep SSBO vec4 linear 1 GiB")
.bin/perftest --energy "${levels[@]}" --json "$w/$name-levels.json" > "$w/$name-levels.txt"
for i in 1 2 3; do
    .bin/perftest --energy --case "ALU fp32 FMA" --case "Sweep SSBO vec4 linear 1 GiB" \
        --json "$w/$name-repeat$i.json" > "$w/$name-repeat$i.txt"
done
grep -A40 '^energy:' "$w/$name-levels.txt" | head -40
if [ "${INSTR:-0}" = 1 ]; then
    .bin/perftest --energy --energy-window 2 --family instr --filter throughput \
        --json "$w/$name-instr.json" > "$w/$name-instr.txt"
fi
tar -czf "$OUT/$name.tar.gz" -C /tmp "$name"
