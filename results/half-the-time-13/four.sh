#!/usr/bin/env bash
# issue 61, thirteenth step: on four H200s of one host, main's binary (4fb597c) screens every GPU at
# once (--all-devices) and runs one GPU alone (--device-index 1), in the order given as arguments
# (all, one); then --quick twice, health against a reference made of those, --verify of every case.
# Each full run and --verify from an empty cache home.
source tools/device-env.sh >/dev/null 2>&1; o=$OUT/x; mkdir -p $o
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > $o/smi.csv
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
n=0
for mode in "$@"; do
  n=$((n+1)); tag=$n-$mode; rm -rf /tmp/pc; export XDG_CACHE_HOME=/tmp/pc
  if [ $mode = all ]; then args="--all-devices"; else args="--device-index 1"; fi
  t=$(stamp); echo "$tag start $(date -u +%H:%M:%S)" >> $o/times.txt
  timeout 200 .bin/perftest-main $args --json $o/$tag.json --output $o/$tag.txt > $o/$tag.stdout 2> $o/$tag.stderr
  echo "$tag rc=$? wall $(took $t) s" >> $o/times.txt
  grep -h "^time:\|^run:" $o/$tag*.txt >> $o/times.txt; gzip $o/$tag*.json
done
export XDG_CACHE_HOME=/tmp/pc-q
for k in 1 2; do
  t=$(stamp); timeout 40 .bin/perftest-main --quick --json $o/quick-$k.json > $o/quick-$k.txt 2>&1
  echo "quick-$k rc=$? wall $(took $t) s" >> $o/times.txt; grep "^time:" $o/quick-$k.txt >> $o/times.txt
done
mkdir -p $o/refruns; cp $o/quick-*.json $o/refruns/
timeout 30 .bin/perftest-main fleet --write-reference $o/quick.reference.json $o/refruns > $o/reference.txt 2>&1
echo "reference rc=$?" >> $o/times.txt; rm -rf $o/refruns
t=$(stamp); timeout 40 .bin/perftest-main health --reference $o/quick.reference.json > $o/health.txt 2>&1
echo "health rc=$? wall $(took $t) s" >> $o/times.txt
rm -rf /tmp/pc-v; export XDG_CACHE_HOME=/tmp/pc-v
t=$(stamp); timeout 120 .bin/perftest-main --verify --json $o/verify.json > $o/verify.txt 2>&1
echo "verify rc=$? wall $(took $t) s" >> $o/times.txt; grep "^time:" $o/verify.txt >> $o/times.txt
gzip $o/quick-*.json $o/verify.json; cat $o/times.txt
