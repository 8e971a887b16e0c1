#!/usr/bin/env bash
# issue 61, third step, call A: the full default run before (.bin/perftest-before, 1d065d3's
# binary) and after (this tree), each from an empty pipeline cache, then --quick twice each
# alternating (the cache warm), a --quick reference made from those four runs and `health` against
# it with both. After tools/h100-prepare.sh here, with the old binary copied to .bin/perftest-before.
set -uo pipefail
source tools/device-env.sh
o=$out/r; mkdir -p "$o"
export XDG_CACHE_HOME=/tmp/perftest-cache-home
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/smi-before.csv"
for b in before after; do
  bin=.bin/perftest; [ $b = before ] && bin=.bin/perftest-before
  rm -rf "$XDG_CACHE_HOME"
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
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/smi-after.csv"
cat "$o/times.txt"
tar czf $out/r.tgz -C $out r && rm -rf "$o"
