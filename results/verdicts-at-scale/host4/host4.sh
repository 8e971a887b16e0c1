#!/usr/bin/env bash
# results/verdicts-at-scale/host4/host4.sh: what the device tool ran on hosts of four H200s for
# issue 60, in two calls (each got a fresh host): `screens` (two full --all-devices screens, kept
# whole) and `health REF` (perftest health against a reference made here from those screens).
# After tools/h100-prepare.sh here. Usage (device machine, repository root):
#   bash results/verdicts-at-scale/host4/host4.sh screens
#   bash results/verdicts-at-scale/host4/host4.sh health h200.reference.json
set -uo pipefail
source tools/device-env.sh
q=index,name,uuid,pci.bus_id,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw,clocks_throttle_reasons.active
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.1f}')"; }
case "$1" in
screens)
    o=$out/host4; mkdir -p "$o"
    nvidia-smi --query-gpu=$q --format=csv > "$o/smi-before.csv"
    for n in 1 2; do
        mkdir -p "$o/full$n"; t=$(stamp)
        timeout 280 .bin/perftest --all-devices --json "$o/full$n/" > "$o/full$n.out" 2> "$o/full$n.err"
        echo "full$n rc=$? wall $(took "$t") s" >> "$o/times.txt"
        nvidia-smi --query-gpu=$q --format=csv > "$o/smi-after$n.csv"
    done ;;
health)
    o=$out/health4; mkdir -p "$o/keep"
    nvidia-smi --query-gpu=$q --format=csv > "$o/smi-before.csv"
    t=$(stamp)
    timeout 560 .bin/perftest health --reference "$2" --keep "$o/keep" --metrics "$o/health.prom" > "$o/health.txt" 2> "$o/health.err"
    echo "health rc=$? wall $(took "$t") s" >> "$o/times.txt"
    nvidia-smi --query-gpu=$q --format=csv > "$o/smi-after.csv" ;;
esac
