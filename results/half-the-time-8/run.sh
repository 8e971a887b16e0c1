#!/usr/bin/env bash
# issue 61, eighth step: copy buffers held for the last case that copies between their ends
# (before = 82e0b33, after = this tree). From the repository root after tools/h100-prepare.sh here,
# with 82e0b33's binary copied to .bin/perftest-before: the full default run of each (after first)
# from an empty cache home, `--family copy` twice each, alternating, a verify run of the copies, and
# `compare` of the two full runs.
set -uo pipefail
source tools/device-env.sh
o=$out/r; mkdir -p "$o"
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
bin_of() { [ "$1" = before ] && echo .bin/perftest-before || echo .bin/perftest; }
ldd .bin/perftest | grep -c "not found" > "$o/ldd.txt"
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/smi-before.csv"
date -u +%H:%M:%S > "$o/began.txt"
for b in after before; do
  export XDG_CACHE_HOME=/tmp/perftest-cache-$b; rm -rf "$XDG_CACHE_HOME"
  t=$(stamp)
  timeout 200 $(bin_of $b) --verbose --json "$o/full-$b.json" > "$o/full-$b.txt" 2> "$o/full-$b.err"
  echo "full-$b rc=$? wall $(took "$t") s" >> "$o/times.txt"
done
for n in 1 2; do
  for b in before after; do
    export XDG_CACHE_HOME=/tmp/perftest-cache-$b
    t=$(stamp)
    timeout 60 $(bin_of $b) --family copy --json "$o/copy-$b$n.json" > "$o/copy-$b$n.txt" 2>&1
    echo "copy-$b$n rc=$? wall $(took "$t") s" >> "$o/times.txt"
  done
done
export XDG_CACHE_HOME=/tmp/perftest-cache-after
t=$(stamp); timeout 60 .bin/perftest --family copy --verify > "$o/copy-verify.txt" 2>&1
echo "copy-verify rc=$? wall $(took "$t") s" >> "$o/times.txt"
.bin/perftest compare "$o/full-before.json" "$o/full-after.json" > "$o/compare-full.txt" 2>&1
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/smi-after.csv"
date -u +%H:%M:%S > "$o/ended.txt"
cat "$o/times.txt"
tar czf $out/r.tgz -C $out r && rm -rf "$o"
