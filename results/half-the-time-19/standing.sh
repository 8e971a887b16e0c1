#!/usr/bin/env bash
# issue 61, nineteenth step: the commands at 6806dae (the "before", "base") and
# 45487a2 ("head": no memory kept spare, settling never short of the target) on one H200, both
# binaries in each call, every full run from an empty cache home. PART=a: base's full run, head's
# twice, head's --verify, four --quick, a reference of the last three and health twice. PART=b:
# the same commands at base, then the full pair again, head first. Device tool, carry .bin
# (perftest-base, perftest-head) and .gl: PART=a bash results/half-the-time-19/standing.sh
source tools/device-env.sh >/dev/null 2>&1; o=$OUT/x-$PART; mkdir -p $o
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $o/smi.csv
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,temperature.gpu,power.draw,utilization.gpu --format=csv,noheader -lms 500 > $o/smi-log.csv &
smi=$!
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
rm -rf /tmp/home-*
one() {  # BIN TAG LIMIT ARGS...
  bin=$1; tag=$2; limit=$3; shift 3
  export XDG_CACHE_HOME=/tmp/home-$bin-${HOMETAG:-1}
  t=$(stamp); timeout $limit .bin/perftest-$bin "$@" --json $o/$tag.json --output $o/$tag.txt > /dev/null 2> $o/$tag.stderr
  echo "$tag rc=$? wall $(took $t) s $(date -u +%T)" >> $o/times.txt; grep -h "^time:" $o/$tag.txt >> $o/times.txt
}
commands() {  # BIN
  b=$1
  one $b $b-verify 150 --verify
  .bin/perftest-head check --expect ci/expectations/nvidia-580.json $o/$b-verify.json > $o/$b-check.txt 2>&1; echo "$b-check rc=$?" >> $o/times.txt
  for k in 0 1 2 3; do one $b $b-quick-$k 40 --quick; done
  mkdir -p $o/refruns; cp $o/$b-quick-[123].json $o/refruns/
  timeout 30 .bin/perftest-$b fleet --write-reference $o/$b-quick.reference.json $o/refruns > $o/$b-reference.txt 2>&1
  echo "$b-reference rc=$?" >> $o/times.txt; rm -rf $o/refruns
  for k in 1 2; do
    t=$(stamp); timeout 40 .bin/perftest-$b health --reference $o/$b-quick.reference.json > $o/$b-health-$k.txt 2>&1
    echo "$b-health-$k rc=$? wall $(took $t) s" >> $o/times.txt
  done
}
if [ "$PART" = a ]; then
  HOMETAG=1 one base base-full-1 200
  HOMETAG=1 one head head-full-1 150
  HOMETAG=2 one head head-full-2 150
  HOMETAG=1 commands head
else
  HOMETAG=1 commands base
  HOMETAG=3 one head head-full-3 150
  HOMETAG=3 one base base-full-3 200
fi
kill $smi
gzip $o/*.json; cat $o/times.txt; (cd $OUT && tar czf x-$PART.tgz x-$PART && rm -rf x-$PART)
