#!/usr/bin/env bash
# issue 61, sixteenth step, call 1 (one H200): where a full run's setup goes (d706ae2 built with
# setuplog.patch, PERFTEST_SETUPLOG=1: every buffer's allocation, fill and copy logged), and the
# dispatch family's barrier cases run alone, after other families and in a full run, with the
# GPU's clocks sampled by nvidia-smi every 100 ms.
source tools/device-env.sh >/dev/null 2>&1; o=$OUT/x; mkdir -p $o
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $o/smi.csv
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,temperature.gpu,power.draw,utilization.gpu --format=csv,noheader -lms 100 > $o/smi-log.csv &
smi=$!
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
rm -rf /tmp/home-*
one() {  # TAG ARGS...
  tag=$1; shift
  export XDG_CACHE_HOME=/tmp/home-$tag
  t=$(stamp); echo "$tag start $(date +%T.%N)" >> $o/times.txt
  PERFTEST_SETUPLOG=1 timeout 170 .bin/perftest-setup "$@" --json $o/$tag.json --output $o/$tag.txt > /dev/null 2> $o/$tag.stderr
  echo "$tag rc=$? wall $(took $t) s end $(date +%T.%N)" >> $o/times.txt; grep -h "^time:" $o/$tag.txt >> $o/times.txt
}
one dispatch-1 --filter Dispatch
one dispatch-2 --filter Dispatch
one atomic-dispatch --family atomic,dispatch
one sweep-dispatch --family sweep,latency,dispatch
one host-dispatch --family host,copy,store,atomic,dispatch
one full-1
one dispatch-3 --filter Dispatch

kill $smi
gzip $o/*.json $o/*.stderr; cat $o/times.txt
