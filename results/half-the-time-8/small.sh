#!/usr/bin/env bash
# issue 61, eighth step: this tree's --quick (three runs), health against a --quick reference made
# from them (twice), and --verify of every case after a --compile-only run warmed the caches.
set -uo pipefail
source tools/device-env.sh
o=$out/s; mkdir -p "$o"
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
export XDG_CACHE_HOME=/tmp/perftest-cache-small; rm -rf "$XDG_CACHE_HOME"
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/smi-before.csv"
date -u +%H:%M:%S > "$o/times.txt"
for n in 1 2 3; do
  t=$(stamp)
  timeout 40 .bin/perftest --quick --json "$o/quick-$n.json" > "$o/quick-$n.txt" 2>&1
  echo "quick-$n rc=$? wall $(took "$t") s" >> "$o/times.txt"
done
mkdir -p "$o/refruns"; cp "$o"/quick-*.json "$o/refruns/"
timeout 30 .bin/perftest fleet --write-reference "$o/quick.reference.json" "$o/refruns" > "$o/reference.txt" 2>&1
echo "reference rc=$?" >> "$o/times.txt"
for n in 1 2; do
  t=$(stamp)
  timeout 40 .bin/perftest health --reference "$o/quick.reference.json" > "$o/health-$n.txt" 2>&1
  echo "health-$n rc=$? wall $(took "$t") s" >> "$o/times.txt"
done
t=$(stamp); timeout 120 .bin/perftest --compile-only > "$o/compile.txt" 2>&1
echo "compile-only rc=$? wall $(took "$t") s" >> "$o/times.txt"
t=$(stamp); timeout 150 .bin/perftest --verify > "$o/verify.txt" 2>&1
echo "verify rc=$? wall $(took "$t") s" >> "$o/times.txt"
date -u +%H:%M:%S >> "$o/times.txt"
grep -h "^time:" "$o"/verify.txt >> "$o/times.txt"
cat "$o/times.txt"; tail -2 "$o"/health-*.txt
rm -rf "$o/refruns" "$o"/quick-*.json
