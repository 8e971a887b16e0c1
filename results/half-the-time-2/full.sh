#!/usr/bin/env bash
# issue 61, call 2: the full default run before (.bin/perftest-before, 0e881bc's runner) and after (pipelines during the warm-up), one call; then --quick --validation.
set -uo pipefail
source tools/device-env.sh
o=$out/r; mkdir -p "$o"
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/smi-before.csv"
for b in before after; do
  bin=.bin/perftest; [ $b = before ] && bin=.bin/perftest-before
  t=$(stamp)
  timeout 250 $bin --verbose --json "$o/full-$b.json" > "$o/full-$b.txt" 2> "$o/full-$b.err"
  echo "full-$b rc=$? wall $(took "$t") s" >> "$o/times.txt"
done
t=$(stamp)
timeout 60 .bin/perftest --quick --validation --json "$o/validation.json" > "$o/validation.txt" 2> "$o/validation.err"
echo "validation rc=$? wall $(took "$t") s" >> "$o/times.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/smi-after.csv"
cat "$o/times.txt"; head -c 600 "$o/validation.err"
tar czf $out/r.tgz -C $out r && rm -rf "$o"
