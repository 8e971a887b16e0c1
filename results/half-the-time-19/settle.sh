#!/usr/bin/env bash
# issue 61, nineteenth step, call 5: the coopmat, atomic and instr families alone, head (45487a2)
# and new (the band widened only for aims that swung across it) alternately, twice, each from an
# empty cache home; then a full run of new and of head. Device tool, carry .bin (perftest-head,
# perftest-new) and .gl: bash results/half-the-time-19/settle.sh
source tools/device-env.sh >/dev/null 2>&1; o=$OUT/x-e; mkdir -p $o
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv > $o/smi.csv
for k in 1 2; do
  for b in head new; do
    export XDG_CACHE_HOME=/tmp/home-$b-fam-$k
    s=$(date +%s.%N); .bin/perftest-$b --family coopmat,atomic,instr --json $o/$b-fam-$k.json --output $o/$b-fam-$k.txt > /dev/null 2>&1
    echo "$b-fam-$k rc=$? $(python3 -c "print(f'{$(date +%s.%N)-$s:.1f}')") s" >> $o/times.txt
  done
done
for b in new head; do
  export XDG_CACHE_HOME=/tmp/home-$b-full
  s=$(date +%s.%N); timeout 170 .bin/perftest-$b --json $o/$b-full.json --output $o/$b-full.txt > /dev/null 2>&1
  echo "$b-full rc=$? $(python3 -c "print(f'{$(date +%s.%N)-$s:.1f}')") s $(date -u +%T)" >> $o/times.txt
done
gzip $o/*.json; cat $o/times.txt; (cd $OUT && tar czf x-e.tgz x-e && rm -rf x-e)
