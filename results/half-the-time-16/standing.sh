#!/usr/bin/env bash
# issue 61, sixteenth step, call 2 (one H200, d706ae2 = "head"): where the commands stand,
# one cache home throughout (empty at the start): a first full run and a second, --verify of every
# case, --quick four times, a reference of the last three and health twice; then the dispatch
# family's two barrier cases in twelve processes of their own, nvidia-smi's clocks sampled.
source tools/device-env.sh >/dev/null 2>&1; o=$OUT/x; mkdir -p $o
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $o/smi.csv
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,temperature.gpu,power.draw,utilization.gpu --format=csv,noheader -lms 200 > $o/smi-log.csv &
smi=$!
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
rm -rf /tmp/home-*; export XDG_CACHE_HOME=/tmp/home-head
one() {  # TAG LIMIT ARGS...
  tag=$1; limit=$2; shift 2
  t=$(stamp); timeout $limit .bin/perftest-head "$@" --json $o/$tag.json --output $o/$tag.txt > /dev/null 2> $o/$tag.stderr
  echo "$tag rc=$? wall $(took $t) s" >> $o/times.txt; grep -h "^time:" $o/$tag.txt >> $o/times.txt
}
one full-1 170
one full-2 170
one verify 120 --verify
.bin/perftest-head check --expect ci/expectations/nvidia-580.json $o/verify.json > $o/check.txt 2>&1; echo "check rc=$?" >> $o/times.txt
for k in 0 1 2 3; do one quick-$k 40 --quick; done
mkdir -p $o/refruns; cp $o/quick-[123].json $o/refruns/
timeout 30 .bin/perftest-head fleet --write-reference $o/quick.reference.json $o/refruns > $o/reference.txt 2>&1
echo "reference rc=$?" >> $o/times.txt; rm -rf $o/refruns
for k in 1 2; do
  t=$(stamp); timeout 40 .bin/perftest-head health --reference $o/quick.reference.json > $o/health-$k.txt 2>&1
  echo "health-$k rc=$? wall $(took $t) s" >> $o/times.txt
done
for k in $(seq -w 1 12); do one barrier-$k 30 --filter "barrier between"; done
kill $smi
gzip $o/*.json; cat $o/times.txt
