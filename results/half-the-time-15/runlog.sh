#!/usr/bin/env bash
# issue 61, fifteenth step, call 1: full default runs on one H200 of a4463ff built with
# study.patch's run log only (the scaling rule unchanged: from a fortieth), each given as
# "BIN:HOME", every run's scaling logged to its .stderr (PERFTEST_RUNLOG). Writes $OUT/x/.
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
  PERFTEST_RUNLOG=1 timeout 170 .bin/perftest-$bin --json $o/$tag.json --output $o/$tag.txt > $o/$tag.stdout 2> $o/$tag.stderr
  echo "$tag rc=$? wall $(took $t) s" >> $o/times.txt
  grep -h "^time:\|^run:" $o/$tag.txt >> $o/times.txt; gzip $o/$tag.json
  ls $XDG_CACHE_HOME/perftest/ >> $o/times.txt
done
cat $o/times.txt
