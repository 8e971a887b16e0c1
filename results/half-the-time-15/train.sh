#!/usr/bin/env bash
# issue 61, fifteenth step, call 4: a train of dispatches recorded once per size (train) against
# a4463ff (head) on one H200: the dispatch family alone and the SDC cases but the free-memory pass,
# alternating, then one full default run each from an empty cache home.
source tools/device-env.sh >/dev/null 2>&1; o=$OUT/x; mkdir -p $o
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > $o/smi.csv
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
rm -rf /tmp/home-*
one() {  # BIN TAG ARGS...
  bin=$1; tag=$2; shift 2
  export XDG_CACHE_HOME=/tmp/home-$bin-${tag%%-*}
  t=$(stamp); timeout 170 .bin/perftest-$bin "$@" --json $o/$tag-$bin.json --output $o/$tag-$bin.txt > /dev/null 2> $o/$tag-$bin.stderr
  echo "$tag-$bin rc=$? wall $(took $t) s" >> $o/times.txt; grep -h "^time:" $o/$tag-$bin.txt >> $o/times.txt
}
for k in 1 2 3 4; do
  one head dispatch-$k --filter Dispatch; one train dispatch-$k --filter Dispatch
done
for k in 1 2; do
  one train sdc-$k --filter SDC --skip "free memory"; one head sdc-$k --filter SDC --skip "free memory"
done
one head full-1; one train full-1
gzip $o/*.json; cat $o/times.txt
