#!/usr/bin/env bash
# issue 61, eighth step: full default runs of the two binaries in the order given (bash walls.sh
# after before after, then before after before), each from an empty cache home; .bin/perftest-before
# is 82e0b33's binary.
set -uo pipefail
source tools/device-env.sh
o=$out/w; mkdir -p "$o"
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
bin_of() { [ "$1" = before ] && echo .bin/perftest-before || echo .bin/perftest; }
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/smi-before.csv"
n=0
for b in "$@"; do
  n=$((n+1))
  export XDG_CACHE_HOME=/tmp/perftest-cache-$b-$n; rm -rf "$XDG_CACHE_HOME"
  t=$(stamp); s=$(date -u +%H:%M:%S)
  timeout 190 $(bin_of $b) --json "$o/full-$n-$b.json" > "$o/full-$n-$b.txt" 2> "$o/full-$n-$b.err"
  echo "$s full-$n-$b rc=$? wall $(took "$t") s" >> "$o/times.txt"
  grep "^time:" "$o/full-$n-$b.txt" >> "$o/times.txt"
done
cat "$o/times.txt"
tar czf $out/w.tgz -C $out w && rm -rf "$o"
