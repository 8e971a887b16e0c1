#!/usr/bin/env bash
# issue 61, ninth step: full default runs of the two binaries in the order given, each from an empty
# cache home (before = bf0ff3c, after = this tree), then --quick of each twice, alternating.
set -uo pipefail
source tools/device-env.sh
o=$out/w$TAG; mkdir -p "$o"
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
bin_of() { echo .bin/perftest-$1; }
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/smi-before.csv"
n=0
for b in "$@"; do
  n=$((n+1))
  export XDG_CACHE_HOME=/tmp/perftest-cache-$b-$n; rm -rf "$XDG_CACHE_HOME"
  t=$(stamp); s=$(date -u +%H:%M:%S)
  timeout 170 $(bin_of $b) --json "$o/full-$n-$b.json" > "$o/full-$n-$b.txt" 2> "$o/full-$n-$b.err"
  echo "$s full-$n-$b rc=$? wall $(took "$t") s" >> "$o/times.txt"
  grep "^time:" "$o/full-$n-$b.txt" >> "$o/times.txt"
done
for k in 1 2; do for b in before after; do
  export XDG_CACHE_HOME=/tmp/perftest-cache-$b-q; t=$(stamp)
  timeout 40 $(bin_of $b) --quick --json "$o/quick-$k-$b.json" > "$o/quick-$k-$b.txt" 2>&1
  echo "quick-$k-$b rc=$? wall $(took "$t") s" >> "$o/times.txt"
  grep "^time:" "$o/quick-$k-$b.txt" >> "$o/times.txt"
done; done
cat "$o/times.txt"
tar czf $out/w$TAG.tgz -C $out w$TAG && rm -rf "$o"
