#!/usr/bin/env bash
# issue 61, fourteenth step: on one H200, full default runs of today's binary (head) and of the
# one that keeps dispatch counts between runs (counts), each given as "BIN:HOME" in the order run;
# a HOME used again is a later run on the same cache (pipelines, SPIR-V, and for counts the kept
# dispatch counts). Writes $OUT/x/times.txt and each run's record and text; tar them after.
source tools/device-env.sh >/dev/null 2>&1; o=$OUT/x; mkdir -p $o
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > $o/smi.csv
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
rm -rf /tmp/home-*
n=0
for run in "$@"; do
  n=$((n+1)); bin=${run%%:*}; home=${run##*:}; tag=$n-$bin-$home
  export XDG_CACHE_HOME=/tmp/home-$home
  t=$(stamp); echo "$tag start $(date -u +%H:%M:%S)" >> $o/times.txt
  timeout 150 .bin/perftest-$bin --json $o/$tag.json --output $o/$tag.txt > $o/$tag.stdout 2> $o/$tag.stderr
  echo "$tag rc=$? wall $(took $t) s" >> $o/times.txt
  grep -h "^time:\|^run:" $o/$tag.txt >> $o/times.txt; gzip $o/$tag.json
  ls $XDG_CACHE_HOME/perftest/ >> $o/times.txt
done
cat $o/times.txt
