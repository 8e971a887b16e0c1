#!/usr/bin/env bash
# issue 61, twelfth step, one H200: full default runs of the binaries named (.bin/perftest-NAME), each
# from an empty cache home; then --verify of the copy family with the last one named.
set -uo pipefail
source tools/device-env.sh >/dev/null 2>&1
o=$OUT/r; mkdir -p "$o"
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
n=0
for b in "$@"; do
  n=$((n+1)); export XDG_CACHE_HOME=/tmp/pc-$b-$n; rm -rf "$XDG_CACHE_HOME"
  t=$(stamp); s=$(date -u +%H:%M:%S)
  timeout 170 .bin/perftest-$b --json "$o/full-$n-$b.json" > "$o/full-$n-$b.txt" 2>&1
  echo "$s full-$n-$b rc=$? wall $(took "$t") s" >> "$o/times.txt"; grep "^time:" -A1 "$o/full-$n-$b.txt" >> "$o/times.txt"
done
t=$(stamp); timeout 60 .bin/perftest-$b --verify --family copy --json "$o/verify-copy.json" > "$o/verify-copy.txt" 2>&1
echo "verify-copy-$b rc=$? wall $(took "$t") s" >> "$o/times.txt"; grep -E "^run:|differ|verified" "$o/verify-copy.txt" | head -5 >> "$o/times.txt"
cat "$o/times.txt"; tar czf $OUT/r.tgz -C $OUT r && rm -rf "$o"
