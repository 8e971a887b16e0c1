#!/usr/bin/env bash
# issue 61, fifth step: shaderc's SPIR-V kept between runs. Before (.bin/perftest-before, 864d1a7's
# binary) and after (.bin/perftest, this tree), each with a cache home of its own: the full default
# run from an empty cache, then --quick twice each alternating (the caches warm: the pipelines for
# both, the SPIR-V too for after), a --quick reference from those four runs, and `health` against it
# twice each alternating. After tools/h100-prepare.sh here, the old binary copied to
# .bin/perftest-before.
set -uo pipefail
source tools/device-env.sh
o=$out/r; mkdir -p "$o"
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
bin_of() { [ "$1" = before ] && echo .bin/perftest-before || echo .bin/perftest; }
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/smi-before.csv"
for b in before after; do
  export XDG_CACHE_HOME=/tmp/perftest-cache-$b; rm -rf "$XDG_CACHE_HOME"
  t=$(stamp)
  timeout 200 $(bin_of $b) --verbose --json "$o/full-$b.json" > "$o/full-$b.txt" 2> "$o/full-$b.err"
  echo "full-$b rc=$? wall $(took "$t") s" >> "$o/times.txt"
done
for n in 1 2; do
  for b in before after; do
    export XDG_CACHE_HOME=/tmp/perftest-cache-$b
    t=$(stamp)
    timeout 40 $(bin_of $b) --quick --verbose --json "$o/quick-$b$n.json" > "$o/quick-$b$n.txt" 2> "$o/quick-$b$n.err"
    echo "quick-$b$n rc=$? wall $(took "$t") s" >> "$o/times.txt"
  done
done
mkdir -p "$o/refruns"; cp "$o"/quick-*.json "$o/refruns/"
timeout 30 .bin/perftest fleet --write-reference "$o/quick.reference.json" "$o/refruns" > "$o/reference.txt" 2>&1
echo "reference rc=$?" >> "$o/times.txt"
for n in 1 2; do
  for b in before after; do
    export XDG_CACHE_HOME=/tmp/perftest-cache-$b
    t=$(stamp)
    timeout 40 $(bin_of $b) health --reference "$o/quick.reference.json" --keep "$o/health-$b$n" > "$o/health-$b$n.txt" 2>&1
    echo "health-$b$n rc=$? wall $(took "$t") s" >> "$o/times.txt"
  done
done
du -sk /tmp/perftest-cache-*/perftest/* > "$o/cache-sizes.txt" 2>&1
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/smi-after.csv"
cat "$o/times.txt"
tar czf $out/r.tgz -C $out r && rm -rf "$o"
