#!/usr/bin/env bash
# issue 61, fourteenth step: on a host of two H200s, full --all-devices screens of today's binary
# (head) and of the one that keeps dispatch counts (counts), each given as "BIN:HOME" in the order
# run, as full.sh; each worker keeps its own device's counts. Writes $OUT/x/all-times.txt and each
# run's records and text; tar them after.
source tools/device-env.sh >/dev/null 2>&1; o=$OUT/x; mkdir -p $o
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > $o/smi.csv
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
rm -rf /tmp/home-*
n=0
for run in "$@"; do
  n=$((n+1)); bin=${run%%:*}; home=${run##*:}; tag=all$n-$bin-$home
  export XDG_CACHE_HOME=/tmp/home-$home
  t=$(stamp); echo "$tag start $(date -u +%H:%M:%S)" >> $o/all-times.txt
  timeout 170 .bin/perftest-$bin --all-devices --json $o/$tag.json --output $o/$tag.txt > $o/$tag.stdout 2> $o/$tag.stderr
  echo "$tag rc=$? wall $(took $t) s" >> $o/all-times.txt
  grep -h "^time:\|^run:" $o/$tag*.txt >> $o/all-times.txt; gzip $o/$tag*.json
  ls $XDG_CACHE_HOME/perftest/ >> $o/all-times.txt
done
cat $o/all-times.txt
