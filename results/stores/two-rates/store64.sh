#!/usr/bin/env bash
# Store uint linear 64 MiB: two rates. CUDA's hypotheses, then perftest in separate processes.
source tools/device-env.sh
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
(cd .bin/cuda && nvcc -O3 -arch=sm_90 -o store64 store64.cu) || exit 1
.bin/cuda/store64 | tee $out/cuda-store64.txt
for i in 1 2 3 4 5 6; do
  .bin/perftest --family store --axis store.bytes=32M,64M,128M --filter "Store uint" --samples 5 --json $out/pt$i.json > $out/pt$i.txt 2>&1
  grep -E "^Store uint4? linear" $out/pt$i.txt | sed -E 's/ +/ /g' | cut -c1-80
done
