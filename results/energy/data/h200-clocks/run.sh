#!/usr/bin/env bash
# results/energy/data/h200-clocks/run.sh: one device call (issue 64), from the repository root after
# tools/h100-prepare.sh here. The two cells beyond 5% of the fifth sitting (the host link; fp32 FMAs
# on random data), each program run alone with nvidia-smi logging the SM clock and the board power
# every 100 ms beside it. (The call ran the mirror as it was then: the fp32 and fp16 chains shared a
# seed buffer, which does not matter when only one of them runs.)
set -uo pipefail
source tools/device-env.sh
w=/tmp/clocks && mkdir -p "$w"
nvcc -O3 -arch=sm_90 results/energy/data/mirror.cu -lnvidia-ml -o /tmp/mirror > "$w/nvcc.txt" 2>&1 || { cat "$w/nvcc.txt"; exit 1; }
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,power.limit,clocks.sm,power.draw,temperature.gpu --format=csv > "$w/nvidia-smi.txt"
logged() {
    local name=$1; shift
    nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,utilization.gpu,utilization.memory \
        --format=csv,noheader,nounits -lms 100 > "$w/$name-smi.csv" &
    local logger=$!
    "$@" > "$w/$name.txt" 2>&1
    echo "$name exit $?" >> "$w/$name.txt"
    kill $logger
}
two=default,random
logged mirror-copy /tmp/mirror 4 "Copy host"
logged perftest-copy .bin/perftest --energy --family copy --filter "Copy host to device" --axis copy.bytes=64M \
    --axis copy.data=$two
logged mirror-fma /tmp/mirror 4 "ALU fp32"
logged perftest-fma .bin/perftest --energy --family alu --filter "ALU fp32 FMA" --axis alu.data=$two
for f in "$w"/*-smi.csv; do
    echo "== $f"; awk -F', ' '{print $2, $4}' "$f" | sort | uniq -c | sort -rn | head -6
done
tar -czf "$OUT/clocks.tar.gz" -C /tmp clocks
