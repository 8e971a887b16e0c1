#!/usr/bin/env bash
# issue 61, ninth step: --family sdc of each binary, alternating (the free-memory pass's setup).
set -uo pipefail
source tools/device-env.sh
o=$out/s$TAG; mkdir -p "$o"
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
for k in 1 2; do for b in "$@"; do
  export XDG_CACHE_HOME=/tmp/perftest-cache-$b-sdc; t=$(stamp)
  timeout 60 .bin/perftest-$b --family sdc --json "$o/sdc-$k-$b.json" > "$o/sdc-$k-$b.txt" 2>&1
  echo "sdc-$k-$b rc=$? wall $(took "$t") s" >> "$o/times.txt"
done; done
cat "$o/times.txt"
tar czf $out/s$TAG.tgz -C $out s$TAG && rm -rf "$o"
