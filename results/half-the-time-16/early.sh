#!/usr/bin/env bash
# issue 61, sixteenth step, calls 3 and 4 (one H200): the SDC pass's buffers made early beside the cases
# before it ("early", this commit) against d706ae2 ("head"): a first full run of each from an empty
# cache home of its own, alternating, then a second run of each on that home; then --verify of
# every case with early on its home.
source tools/device-env.sh >/dev/null 2>&1; o=$OUT/x; mkdir -p $o
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $o/smi.csv
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
rm -rf /tmp/home-*
one() {  # BIN TAG LIMIT ARGS...
  bin=$1; tag=$2; limit=$3; shift 3
  export XDG_CACHE_HOME=/tmp/home-$bin
  t=$(stamp); echo "$tag-$bin start $(date +%T)" >> $o/times.txt
  timeout $limit .bin/perftest-$bin "$@" --json $o/$tag-$bin.json --output $o/$tag-$bin.txt > /dev/null 2> $o/$tag-$bin.stderr
  echo "$tag-$bin rc=$? wall $(took $t) s" >> $o/times.txt; grep -h "^time:" $o/$tag-$bin.txt >> $o/times.txt
}
one early full-1 150; one head full-1 150
one early full-2 150; one head full-2 150
one early verify 60 --verify
.bin/perftest-early check --expect ci/expectations/nvidia-580.json $o/verify-early.json > $o/check.txt 2>&1; echo "check rc=$?" >> $o/times.txt
gzip $o/*.json; cat $o/times.txt
