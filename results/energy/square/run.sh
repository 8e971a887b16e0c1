#!/usr/bin/env bash
# results/energy/square/run.sh: one device call of the square-wave study (issue 64), from the
# repository root: builds square.cu and runs it. Usage: bash results/energy/square/run.sh NAME;
# the output in $OUT/NAME-square.txt.
set -uo pipefail
name=${1:?usage: run.sh NAME}
nvidia-smi --query-gpu=name,driver_version,power.limit,temperature.gpu --format=csv | tee "$OUT/$name-square.txt"
nvcc -O3 -arch=sm_90 results/energy/square/square.cu -lnvidia-ml -o /tmp/square && /tmp/square | tee -a "$OUT/$name-square.txt"
