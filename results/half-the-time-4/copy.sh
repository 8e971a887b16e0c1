#!/usr/bin/env bash
# issue 61, fourth step: the copy family's buffers shared by the cases that copy between the same
# ends. Before (.bin/perftest, e29a270's binary) and after (.bin/perftest-shelf, this tree): the
# copy family twice each alternating, --verify of it each, then a full default run each, every
# full run from an empty pipeline cache. After tools/h100-prepare.sh here.
set -uo pipefail
source tools/device-env.sh
o=$out/c; mkdir -p "$o"
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
bin_of() { [ "$1" = before ] && echo .bin/perftest || echo .bin/perftest-shelf; }
nvidia-smi --query-gpu=pci.bus_id,name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/smi-before.csv"
for n in 1 2; do
  for b in before after; do
    [ $n = 2 ] && b=$([ $b = before ] && echo after || echo before)
    export XDG_CACHE_HOME=/tmp/cache-copy-$b
    t=$(stamp)
    timeout 100 $(bin_of $b) --family copy --json "$o/copy-$b$n.json" > "$o/copy-$b$n.txt" 2> "$o/copy-$b$n.err"
    echo "copy-$b$n rc=$? wall $(took "$t") s" >> "$o/times.txt"
  done
done
for b in after before; do
  t=$(stamp)
  timeout 100 $(bin_of $b) --family copy --verify --json "$o/verify-$b.json" > "$o/verify-$b.txt" 2> "$o/verify-$b.err"
  echo "verify-$b rc=$? wall $(took "$t") s" >> "$o/times.txt"
done
for b in after before; do
  export XDG_CACHE_HOME=/tmp/cache-full-$b; rm -rf "$XDG_CACHE_HOME"
  t=$(stamp)
  timeout 200 $(bin_of $b) --json "$o/full-$b.json" > "$o/full-$b.txt" 2> "$o/full-$b.err"
  echo "full-$b rc=$? wall $(took "$t") s" >> "$o/times.txt"
done
nvidia-smi --query-gpu=pci.bus_id,name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/smi-after.csv"
cat "$o/times.txt"
tar czf $out/c.tgz -C $out c && rm -rf "$o"
