#!/usr/bin/env bash
# issue 61, twelfth step, one H200 (called as walls.sh free retire retire free).
# full default runs of the binaries named, in the order given, each from an empty cache home;
# then --quick of each of the last two named, alternating, twice.
set -uo pipefail
source tools/device-env.sh >/dev/null 2>&1
o=$OUT/w; mkdir -p "$o"
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/smi.csv"
n=0
for b in "$@"; do
  n=$((n+1)); export XDG_CACHE_HOME=/tmp/pc-$b-$n; rm -rf "$XDG_CACHE_HOME"
  t=$(stamp); s=$(date -u +%H:%M:%S)
  timeout 170 .bin/perftest-$b --json "$o/full-$n-$b.json" > "$o/full-$n-$b.txt" 2>&1
  echo "$s full-$n-$b rc=$? wall $(took "$t") s" >> "$o/times.txt"; grep "^time:" -A1 "$o/full-$n-$b.txt" >> "$o/times.txt"
done
for k in 1 2; do for b in free retire; do
  export XDG_CACHE_HOME=/tmp/pc-$b-q; t=$(stamp)
  timeout 40 .bin/perftest-$b --quick --json "$o/quick-$k-$b.json" > "$o/quick-$k-$b.txt" 2>&1
  echo "quick-$k-$b rc=$? wall $(took "$t") s" >> "$o/times.txt"; grep "^time:" -A1 "$o/quick-$k-$b.txt" >> "$o/times.txt"
done; done
cat "$o/times.txt"; tar czf $OUT/w.tgz -C $OUT w && rm -rf "$o"
