#!/usr/bin/env bash
# issue 61, call 7: --verify of every case, after (this tree, 1d065d3) then before (0e881bc's
# binary, .bin/perftest-before), one call on one H200.
set -uo pipefail
source tools/device-env.sh
o=$out/v; mkdir -p "$o"
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
for b in after before; do
  bin=.bin/perftest; [ $b = before ] && bin=.bin/perftest-before
  t=$(stamp)
  timeout 110 $bin --verify --json "$o/verify-$b.json" > "$o/verify-$b.txt" 2> "$o/verify-$b.err"
  echo "verify-$b rc=$? wall $(took "$t") s" >> "$o/times.txt"
done
cat "$o/times.txt"; grep -h "^time:" "$o"/verify-*.txt
tar czf $out/v.tgz -C $out v && rm -rf "$o"
