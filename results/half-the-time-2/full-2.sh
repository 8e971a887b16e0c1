#!/usr/bin/env bash
# issue 61, call 5: the full default run before (.bin/perftest-before, 0e881bc) and after (this
# tree), --quick twice each alternating, a --quick reference made from those four runs and
# `health` against it with both, then --verify before with the time left. After
# tools/h100-prepare.sh here, with the old binary copied to .bin/perftest-before.
set -uo pipefail
source tools/device-env.sh
o=$out/r; mkdir -p "$o"
export XDG_CACHE_HOME=/tmp/perftest-cache-home; rm -rf "$XDG_CACHE_HOME"
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
T0=$(stamp)
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/smi-before.csv"
for b in before after; do
  bin=.bin/perftest; [ $b = before ] && bin=.bin/perftest-before
  t=$(stamp)
  timeout 220 $bin --verbose --json "$o/full-$b.json" > "$o/full-$b.txt" 2> "$o/full-$b.err"
  echo "full-$b rc=$? wall $(took "$t") s" >> "$o/times.txt"
done
for n in 1 2; do
  for b in before after; do
    bin=.bin/perftest; [ $b = before ] && bin=.bin/perftest-before
    t=$(stamp)
    timeout 40 $bin --quick --verbose --json "$o/quick-$b$n.json" > "$o/quick-$b$n.txt" 2> "$o/quick-$b$n.err"
    echo "quick-$b$n rc=$? wall $(took "$t") s" >> "$o/times.txt"
  done
done
mkdir -p "$o/refruns"; cp "$o"/quick-*.json "$o/refruns/"
timeout 30 .bin/perftest fleet --write-reference "$o/quick.reference.json" "$o/refruns" > "$o/reference.txt" 2>&1
echo "reference rc=$?" >> "$o/times.txt"
for b in before after; do
  bin=.bin/perftest; [ $b = before ] && bin=.bin/perftest-before
  t=$(stamp)
  timeout 40 $bin health --reference "$o/quick.reference.json" --keep "$o/health-$b" > "$o/health-$b.txt" 2>&1
  echo "health-$b rc=$? wall $(took "$t") s" >> "$o/times.txt"
done
left=$(python3 -c "print(int(585 - ($(stamp) - $T0)))")
t=$(stamp)
timeout $left .bin/perftest-before --verify --json "$o/verify-before.json" > "$o/verify-before.txt" 2> "$o/verify-before.err"
echo "verify-before rc=$? wall $(took "$t") s (limit $left)" >> "$o/times.txt"
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/smi-after.csv"
cat "$o/times.txt"
tar czf $out/r.tgz -C $out r && rm -rf "$o"
