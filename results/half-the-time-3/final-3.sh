#!/usr/bin/env bash
# issue 61, third step, call D (one H200): the full default run before (.bin/perftest-before,
# 1d065d3's binary) and after (this tree, conv's contents kept from 64 MiB up), then --verify of
# every case after and before; each run from an empty pipeline cache.
set -uo pipefail
source tools/device-env.sh
o=$out/d; mkdir -p "$o"
export XDG_CACHE_HOME=/tmp/perftest-cache-home
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/smi-before.csv"
for b in after before; do
  bin=.bin/perftest; lim=170; [ $b = before ] && bin=.bin/perftest-before && lim=190
  rm -rf "$XDG_CACHE_HOME"
  t=$(stamp)
  timeout $lim $bin --verbose --json "$o/full-$b.json" > "$o/full-$b.txt" 2> "$o/full-$b.err"
  echo "full-$b rc=$? wall $(took "$t") s" >> "$o/times.txt"
done
for b in after before; do
  bin=.bin/perftest; lim=100; [ $b = before ] && bin=.bin/perftest-before && lim=110
  rm -rf "$XDG_CACHE_HOME"
  t=$(stamp)
  timeout $lim $bin --verify --json "$o/verify-$b.json" > "$o/verify-$b.txt" 2> "$o/verify-$b.err"
  echo "verify-$b rc=$? wall $(took "$t") s" >> "$o/times.txt"
done
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/smi-after.csv"
cat "$o/times.txt"
tar czf $out/d.tgz -C $out d && rm -rf "$o"
