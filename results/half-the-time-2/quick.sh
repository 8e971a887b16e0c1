#!/usr/bin/env bash
# issue 61, call 1: --quick before (.bin/perftest-before, 0e881bc's runner) and after (the later
# families' pipelines built during the warm-up), three of each, alternating. After
# tools/h100-prepare.sh here, with the old binary copied to .bin/perftest-before.
set -uo pipefail
source tools/device-env.sh
o=$out/quick; mkdir -p "$o"
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
for n in 1 2 3; do
  for b in before after; do
    bin=.bin/perftest; [ $b = before ] && bin=.bin/perftest-before
    t=$(stamp)
    timeout 60 $bin --quick --verbose --json "$o/$b$n.json" > "$o/$b$n.txt" 2> "$o/$b$n.err"
    echo "$b$n rc=$? wall $(took "$t") s" >> "$o/times.txt"
  done
done
