#!/usr/bin/env bash
# results/verdicts-at-scale/pair.sh: what the device tool ran on its host of two H200s for issue
# 60 (a host of four was not lent that day): six --quick screens of both GPUs at once, then two
# full screens of both at once, each judged by `perftest fleet` as it came; nvidia-smi before and
# after. After tools/h100-prepare.sh here. Usage (device machine, repository root): bash results/verdicts-at-scale/pair.sh
set -uo pipefail
source tools/device-env.sh
o=$out/pair
mkdir -p "$o"
q=index,name,uuid,pci.bus_id,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw
nvidia-smi --query-gpu=$q --format=csv > "$o/smi-before.csv"
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.1f}')"; }
for n in 1 2 3 4 5 6; do
    mkdir -p "$o/quick$n"; t=$(stamp); .bin/perftest --all-devices --quick --json "$o/quick$n/" > /dev/null 2> "$o/quick$n.err"
    echo "quick$n rc=$? wall $(took "$t") s" >> "$o/times.txt"
done
for n in 1 2; do
    mkdir -p "$o/full$n"; t=$(stamp); .bin/perftest --all-devices --json "$o/full$n/" > /dev/null 2> "$o/full$n.err"
    echo "full$n rc=$? wall $(took "$t") s" >> "$o/times.txt"
    .bin/perftest fleet "$o/full$n" > "$o/fleet-full$n.txt" 2>&1
    echo "fleet full$n rc=$?" >> "$o/times.txt"
done
nvidia-smi --query-gpu=$q --format=csv > "$o/smi-after.csv"
(cd "$out" && tar czf pair.tgz pair && rm -r pair)
