#!/usr/bin/env bash
# issue 61, ninth step: the full --all-devices screen on four H200s of one host (nvidia-h200-x4),
# this tree's binary copied to .bin/perftest-after, from an empty cache home. As run (one line).
source tools/device-env.sh >/dev/null 2>&1; o=$OUT/x; mkdir -p $o
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu --format=csv > $o/smi.csv
export XDG_CACHE_HOME=/tmp/pc; s=$(date +%s.%N); date -u +%H:%M:%S > $o/times.txt
timeout 215 .bin/perftest-after --all-devices --json $o/all.json --output $o/all.txt > $o/stdout.txt 2> $o/stderr.txt
echo "all-devices rc=$? wall $(python3 -c "print(f'{$(date +%s.%N)-$s:.2f}')") s" >> $o/times.txt
grep -h "^time:\|^run:" $o/all*.txt >> $o/times.txt
cat $o/times.txt; tail -5 $o/stderr.txt; tar czf $OUT/x.tgz -C $OUT x && rm -rf $o
