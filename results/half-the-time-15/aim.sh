#!/usr/bin/env bash
# issue 61, fifteenth step: full default runs on one H200, each from an empty cache home, of one
# binary whose scaling aims in proportion from a run of 1/AIM of the target (PERFTEST_AIM_FROM=AIM;
# today's rule is 1/40), every run's scaling logged (PERFTEST_RUNLOG). Arguments "AIM:HOME".
source tools/device-env.sh >/dev/null 2>&1; o=$OUT/x; mkdir -p $o
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > $o/smi.csv
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
rm -rf /tmp/home-*
n=0
for run in "$@"; do
  n=$((n+1)); aim=${run%%:*}; home=${run##*:}; tag=$n-aim$aim-$home
  export XDG_CACHE_HOME=/tmp/home-$home
  t=$(stamp); echo "$tag start $(date -u +%H:%M:%S)" >> $o/times.txt
  PERFTEST_AIM_FROM=$aim PERFTEST_RUNLOG=1 timeout 150 .bin/perftest-aim --json $o/$tag.json --output $o/$tag.txt > $o/$tag.stdout 2> $o/$tag.stderr
  echo "$tag rc=$? wall $(took $t) s" >> $o/times.txt
  grep -h "^time:\|^run:" $o/$tag.txt >> $o/times.txt; gzip $o/$tag.json
done
cat $o/times.txt
