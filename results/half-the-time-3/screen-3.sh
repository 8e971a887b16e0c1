#!/usr/bin/env bash
# issue 61, third step, call C (four H200s of one host): a full --all-devices screen after (this
# tree) then before (.bin/perftest-before, 1d065d3's binary), then --verify of every case on the
# first GPU after then before; each run from an empty pipeline cache.
set -uo pipefail
source tools/device-env.sh
o=$out/s; mkdir -p "$o"
export XDG_CACHE_HOME=/tmp/perftest-cache-home
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/smi-before.csv"
for b in after before; do
  bin=.bin/perftest; lim=190; [ $b = before ] && bin=.bin/perftest-before && lim=215
  rm -rf "$XDG_CACHE_HOME"
  t=$(stamp)
  timeout $lim $bin --all-devices --json "$o/screen-$b.json" > "$o/screen-$b.txt" 2> "$o/screen-$b.err"
  echo "screen-$b rc=$? wall $(took "$t") s" >> "$o/times.txt"
done
for b in after before; do
  bin=.bin/perftest; lim=85; [ $b = before ] && bin=.bin/perftest-before && lim=95
  rm -rf "$XDG_CACHE_HOME"
  t=$(stamp)
  timeout $lim $bin --verify --json "$o/verify-$b.json" > "$o/verify-$b.txt" 2> "$o/verify-$b.err"
  echo "verify-$b rc=$? wall $(took "$t") s" >> "$o/times.txt"
done
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/smi-after.csv"
cat "$o/times.txt"
tar czf $out/s.tgz -C $out s && rm -rf "$o"
