#!/usr/bin/env bash
# Store uint linear 64 MiB, second look: 4-byte stores in CUDA; the case alone in 10 processes;
# 16/64/256 MiB in 5 processes.
source tools/device-env.sh
export PATH=/usr/local/cuda/bin:$PATH
(cd .bin/cuda && nvcc -O3 -arch=sm_90 -o store64 store64.cu) || exit 1
.bin/cuda/store64 d | tee $out/cuda-store64-d.txt
echo "alone:"
for i in $(seq 10); do .bin/perftest --filter "Store uint linear 64 MiB" --samples 5 2>&1 | grep -E "^Store" | awk '{print $6, $7}'; done | paste -sd' '
echo "16/64/256 MiB, uint and uint4 linear, 5 processes:"
for i in $(seq 5); do .bin/perftest --family store --axis store.bytes=16M,64M,256M --filter "Store uint" --skip random --skip uniform --skip uint2 --samples 5 2>&1 | grep -E "^Store" | awk '{printf "%s %s %s | ", $2, $4, $6}'; echo; done
