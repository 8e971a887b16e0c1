#!/usr/bin/env bash
# issue 61, twelfth step, one H200: full default runs of the binaries named (.bin/perftest-NAME), each from
# an empty cache home, keeping each run's stderr (the probe binaries print a PROBE line per case they probed).
set -uo pipefail
source tools/device-env.sh >/dev/null 2>&1
o=$OUT/p; mkdir -p "$o"
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
n=0
for b in "$@"; do
  n=$((n+1)); export XDG_CACHE_HOME=/tmp/pc-$b-$n; rm -rf "$XDG_CACHE_HOME"
  t=$(stamp); s=$(date -u +%H:%M:%S)
  timeout 200 .bin/perftest-$b --json "$o/full-$n-$b.json" > "$o/full-$n-$b.txt" 2> "$o/full-$n-$b.err"
  echo "$s full-$n-$b rc=$? wall $(took "$t") s" >> "$o/times.txt"; grep "^time:" -A1 "$o/full-$n-$b.txt" >> "$o/times.txt"
done
grep -c PROBE "$o"/*.err >> "$o/times.txt"
cat "$o/times.txt"; tar czf $OUT/p.tgz -C $OUT p && rm -rf "$o"
