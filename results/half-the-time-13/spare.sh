#!/usr/bin/env bash
# issue 61, thirteenth step, four H200s of one host: full runs of the binaries named, one GPU alone
# (--device-index 1) or every GPU at once (--all-devices), in the order given as bin:mode arguments,
# each from an empty cache home; each run's files appended to $OUT/s.tar as it ends.
source tools/device-env.sh >/dev/null 2>&1; o=$OUT/s; mkdir -p $o
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > $o/smi.csv
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
n=0
for run in "$@"; do
  n=$((n+1)); bin=${run%%:*}; mode=${run##*:}; tag=$n-$bin-$mode
  rm -rf /tmp/pc; export XDG_CACHE_HOME=/tmp/pc
  if [ $mode = all ]; then args="--all-devices"; else args="--device-index 1"; fi
  t=$(stamp); echo "$tag start $(date -u +%H:%M:%S)" >> $o/times.txt
  timeout 200 .bin/perftest-$bin $args --json $o/$tag.json --output $o/$tag.txt > $o/$tag.stdout 2> $o/$tag.stderr
  echo "$tag rc=$? wall $(took $t) s" >> $o/times.txt
  grep -h "^time:\|^run:" $o/$tag*.txt >> $o/times.txt; gzip $o/$tag*.json
  tar rf $OUT/s.tar -C $OUT s/times.txt $(cd $OUT && ls s/$n-* s/smi.csv)
done
cat $o/times.txt; tar rf $OUT/s.tar -C $OUT s/times.txt; rm -rf $o
