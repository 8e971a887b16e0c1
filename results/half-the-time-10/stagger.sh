#!/usr/bin/env bash
# issue 61, tenth step: --all-devices on the GPUs of one host, main's binary against the staggered
# free-memory pass, and one GPU alone, each from an empty cache home. Order given as arguments.
source tools/device-env.sh >/dev/null 2>&1; o=$OUT/x; mkdir -p $o
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu --format=csv > $o/smi.csv
for run in "$@"; do
  bin=${run%%:*}; mode=${run##*:}; tag=$bin-$mode
  rm -rf /tmp/pc; export XDG_CACHE_HOME=/tmp/pc
  if [ $mode = all ]; then args="--all-devices"; else args="--device-index 1"; fi
  s=$(date +%s.%N); echo "$tag start $(date -u +%H:%M:%S)" >> $o/times.txt
  timeout 200 .bin/perftest-$bin $args --json $o/$tag.json --output $o/$tag.txt > $o/$tag.stdout 2> $o/$tag.stderr
  echo "$tag rc=$? wall $(python3 -c "print(f'{$(date +%s.%N)-$s:.2f}')") s" >> $o/times.txt
  grep -h "^time:\|^run:" $o/$tag*.txt >> $o/times.txt
done
cat $o/times.txt; tar czf $OUT/x.tgz -C $OUT x && rm -rf $o
