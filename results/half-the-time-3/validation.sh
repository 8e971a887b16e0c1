#!/usr/bin/env bash
# issue 61, third step, call E (one H200): the validation layer (Debian's 1.3.239, carried) over
# --quick with both binaries, and over every case at a 2 ms target with this tree's, whose later
# families' pipelines are built on another thread while the cases run: any threading message
# would show here.
set -uo pipefail
source tools/device-env.sh
o=$out/v; mkdir -p "$o"
export XDG_CACHE_HOME=/tmp/perftest-cache-home; rm -rf "$XDG_CACHE_HOME"
for b in before after; do
  bin=.bin/perftest; [ $b = before ] && bin=.bin/perftest-before
  timeout 60 $bin --quick --validation --json "$o/quick-$b.json" > "$o/quick-$b.txt" 2> "$o/quick-$b.err"
  echo "quick-$b rc=$?" >> "$o/times.txt"
done
rm -rf "$XDG_CACHE_HOME"
timeout 300 .bin/perftest --validation --target-ms 2 --samples 3 --json "$o/all-after.json" > "$o/all-after.txt" 2> "$o/all-after.err"
echo "all-after rc=$?" >> "$o/times.txt"
cat "$o/times.txt"
tar czf $out/v.tgz -C $out v && rm -rf "$o"
