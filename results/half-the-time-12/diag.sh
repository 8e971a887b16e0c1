#!/usr/bin/env bash
# issue 61, twelfth step, one H200: one full default run and one --quick of perftest-free (b74a97a with
# the freeing phase), from an empty cache home.
set -uo pipefail
source tools/device-env.sh >/dev/null 2>&1
o=$OUT/d; mkdir -p "$o"
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/smi.csv"
export XDG_CACHE_HOME=/tmp/pc-d; rm -rf "$XDG_CACHE_HOME"
t=$(stamp); s=$(date -u +%H:%M:%S)
timeout 170 .bin/perftest-free --json "$o/full.json" > "$o/full.txt" 2>&1
echo "$s full rc=$? wall $(took "$t") s" >> "$o/times.txt"; grep "^time:" -A1 "$o/full.txt" >> "$o/times.txt"
t=$(stamp); timeout 40 .bin/perftest-free --quick --json "$o/quick.json" > "$o/quick.txt" 2>&1
echo "quick rc=$? wall $(took "$t") s" >> "$o/times.txt"; grep "^time:" -A1 "$o/quick.txt" >> "$o/times.txt"
cat "$o/times.txt"; tar czf $OUT/d.tgz -C $OUT d && rm -rf "$o"
