#!/usr/bin/env bash
# issue 61, call 3: the pipeline cache kept between runs: --quick with an empty cache, then twice
# with it; --compile-only fills it with every pipeline; then a full default run with it.
set -uo pipefail
source tools/device-env.sh
o=$out/cache; mkdir -p "$o"
export XDG_CACHE_HOME=/tmp/perftest-cache-home
rm -rf "$XDG_CACHE_HOME"
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
for n in cold warm1 warm2; do
  t=$(stamp)
  timeout 60 .bin/perftest --quick --verbose --json "$o/quick-$n.json" > "$o/quick-$n.txt" 2> "$o/quick-$n.err"
  echo "quick-$n rc=$? wall $(took "$t") s cache $(du -b $XDG_CACHE_HOME/perftest/*.bin | cut -f1) B" >> "$o/times.txt"
done
t=$(stamp)
timeout 120 .bin/perftest --compile-only > "$o/compile.txt" 2> "$o/compile.err"
echo "compile-only rc=$? wall $(took "$t") s cache $(du -b $XDG_CACHE_HOME/perftest/*.bin | cut -f1) B" >> "$o/times.txt"
t=$(stamp)
timeout 250 .bin/perftest --verbose --json "$o/full-warm.json" > "$o/full-warm.txt" 2> "$o/full-warm.err"
echo "full-warm rc=$? wall $(took "$t") s" >> "$o/times.txt"
cat "$o/times.txt"; grep -h "pipelines:" "$o"/quick-*.txt "$o"/full-warm.txt
tar czf $out/cache.tgz -C $out cache && rm -rf "$o"
