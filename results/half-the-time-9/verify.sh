#!/usr/bin/env bash
# issue 61, ninth step: --verify of every case with this tree's binary (caches empty), then --quick.
set -uo pipefail
source tools/device-env.sh
o=$out/v; mkdir -p "$o"
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
export XDG_CACHE_HOME=/tmp/perftest-cache-v; rm -rf "$XDG_CACHE_HOME"
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/smi-before.csv"
date -u +%H:%M:%S > "$o/times.txt"
t=$(stamp); timeout 170 .bin/perftest-after --verify --json "$o/verify.json" > "$o/verify.txt" 2>&1
echo "verify rc=$? wall $(took "$t") s" >> "$o/times.txt"
grep -h "^time:" "$o"/verify.txt >> "$o/times.txt"
for n in 1 2; do
  t=$(stamp); timeout 40 .bin/perftest-after --quick > "$o/quick-$n.txt" 2>&1
  echo "quick-$n rc=$? wall $(took "$t") s" >> "$o/times.txt"
done
cat "$o/times.txt"; grep -E "differ|Latency pointer 2 GiB|GEMM f16\*f16\+f32 8192\^3 workgroup tiles 128x256x32|SDC buffer copies" "$o/verify.txt" | head
tar czf $out/v.tgz -C $out v && rm -rf "$o"
