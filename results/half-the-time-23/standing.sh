#!/usr/bin/env bash
# Issue 61, twenty-third step: the commands at 6806dae (the "before", "base") and
# at this stop's head, on one H200 in one call, every full run from an empty cache home: base's
# full run, head's twice, head's --verify (checked against the driver's expectations), four
# --quick, a reference of the last three and health twice; `compare` of base's and head's first
# full runs. Device tool, carry .bin (perftest-base, perftest-head) and .gl:
# bash results/half-the-time-23/standing.sh
source tools/device-env.sh >/dev/null 2>&1; o=$OUT/x; mkdir -p $o
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $o/smi.csv
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,temperature.gpu,power.draw,utilization.gpu --format=csv,noheader -lms 500 > $o/smi-log.csv &
smi=$!
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
rm -rf /tmp/home-*
one() {  # BIN TAG LIMIT ARGS...: one run from the cache home HOMETAG names
  bin=$1; tag=$2; limit=$3; shift 3
  export XDG_CACHE_HOME=/tmp/home-$bin-${HOMETAG:-1}
  t=$(stamp); timeout $limit .bin/perftest-$bin "$@" --json $o/$tag.json --output $o/$tag.txt > /dev/null 2> $o/$tag.stderr
  echo "$tag rc=$? wall $(took $t) s $(date -u +%T)" >> $o/times.txt; grep -h "^time:" $o/$tag.txt >> $o/times.txt
}
HOMETAG=1 one base base-full-1 200
HOMETAG=1 one head head-full-1 150
HOMETAG=2 one head head-full-2 150
b=head
one $b $b-verify 90 --verify
.bin/perftest-head check --expect ci/expectations/nvidia-580.json $o/$b-verify.json > $o/$b-check.txt 2>&1; echo "$b-check rc=$?" >> $o/times.txt
for k in 0 1 2 3; do one $b $b-quick-$k 30 --quick; done
mkdir -p $o/refruns; cp $o/$b-quick-[123].json $o/refruns/
timeout 30 .bin/perftest-$b fleet --write-reference $o/$b-quick.reference.json $o/refruns > $o/$b-reference.txt 2>&1
echo "$b-reference rc=$?" >> $o/times.txt; rm -rf $o/refruns
for k in 1 2; do
  t=$(stamp); timeout 30 .bin/perftest-$b health --reference $o/$b-quick.reference.json > $o/$b-health-$k.txt 2>&1
  echo "$b-health-$k rc=$? wall $(took $t) s" >> $o/times.txt
done
timeout 30 .bin/perftest-head compare $o/base-full-1.json $o/head-full-1.json > $o/compare-full.txt 2>&1
echo "compare rc=$?" >> $o/times.txt
kill $smi
gzip $o/*.json; cat $o/times.txt; (cd $OUT && tar czf x.tgz x && rm -rf x)
