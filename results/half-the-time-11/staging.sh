#!/usr/bin/env bash
# issue 61, eleventh step, one H200: full default runs of the two binaries in the order given
# (before = 65d455f, after = 1c0118a: the staging buffer kept between uploads), each from an empty
# cache home; --quick of each twice, alternating, and health of each against a reference made of
# those; --verify of every case with the after binary (the kept staging buffer, checked).
set -uo pipefail
source tools/device-env.sh >/dev/null 2>&1
o=$OUT/s; mkdir -p "$o"
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/smi.csv"
n=0
for b in "$@"; do
  n=$((n+1)); export XDG_CACHE_HOME=/tmp/pc-$b-$n; rm -rf "$XDG_CACHE_HOME"
  t=$(stamp); s=$(date -u +%H:%M:%S)
  timeout 170 .bin/perftest-$b --json "$o/full-$n-$b.json" > "$o/full-$n-$b.txt" 2>&1
  echo "$s full-$n-$b rc=$? wall $(took "$t") s" >> "$o/times.txt"; grep "^time:" -A1 "$o/full-$n-$b.txt" >> "$o/times.txt"
done
for k in 1 2; do for b in before after; do
  export XDG_CACHE_HOME=/tmp/pc-$b-q; t=$(stamp)
  timeout 40 .bin/perftest-$b --quick --json "$o/quick-$k-$b.json" > "$o/quick-$k-$b.txt" 2>&1
  echo "quick-$k-$b rc=$? wall $(took "$t") s" >> "$o/times.txt"; grep "^time:" "$o/quick-$k-$b.txt" >> "$o/times.txt"
done; done
mkdir -p "$o/refruns"; cp "$o"/quick-*.json "$o/refruns/"
timeout 30 .bin/perftest-after fleet --write-reference "$o/quick.reference.json" "$o/refruns" > "$o/reference.txt" 2>&1
echo "reference rc=$?" >> "$o/times.txt"; rm -rf "$o/refruns"
for b in before after; do
  export XDG_CACHE_HOME=/tmp/pc-$b-q; t=$(stamp)
  timeout 40 .bin/perftest-$b health --reference "$o/quick.reference.json" > "$o/health-$b.txt" 2>&1
  echo "health-$b rc=$? wall $(took "$t") s" >> "$o/times.txt"
done
export XDG_CACHE_HOME=/tmp/pc-v; rm -rf "$XDG_CACHE_HOME"
t=$(stamp); timeout 150 .bin/perftest-after --verify --json "$o/verify.json" > "$o/verify.txt" 2>&1
echo "verify-after rc=$? wall $(took "$t") s" >> "$o/times.txt"; grep "^time:" "$o/verify.txt" >> "$o/times.txt"
grep -E "differ" "$o/verify.txt" | head -8 >> "$o/times.txt"
cat "$o/times.txt"; tar czf $OUT/s.tgz -C $OUT s && rm -rf "$o"
