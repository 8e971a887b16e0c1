#!/usr/bin/env bash
# issue 61, call 6: a full --all-devices screen of four H200s (one host), after (this tree) then before
# (.bin/perftest-before, 0e881bc), one call.
set -uo pipefail
source tools/device-env.sh
o=$out/s; mkdir -p "$o"
export XDG_CACHE_HOME=/tmp/perftest-cache-home; rm -rf "$XDG_CACHE_HOME"
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/smi-before.csv"
for b in after before; do
  bin=.bin/perftest; lim=230; [ $b = before ] && bin=.bin/perftest-before && lim=262
  t=$(stamp)
  timeout $lim $bin --all-devices --json "$o/screen-$b.json" > "$o/screen-$b.txt" 2> "$o/screen-$b.err"
  echo "screen-$b rc=$? wall $(took "$t") s" >> "$o/times.txt"
done
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/smi-after.csv"
cat "$o/times.txt"; ls "$o"/screen-*
tar czf $out/s.tgz -C $out s && rm -rf "$o"
