#!/usr/bin/env bash
# issue 61, nineteenth step, call 4: four store and coopmat cases at dispatch counts written into
# the counts file between runs (head, 45487a2), two passes over four sets; then the store family
# twice at the last set's counts. Device tool, carry .bin and .gl: bash results/half-the-time-19/pinned.sh
source tools/device-env.sh >/dev/null 2>&1; o=$OUT/x-d; mkdir -p $o
export XDG_CACHE_HOME=/tmp/home-pin
N1='Store uint linear 256 KiB'; N2='Store uint linear 64 KiB'; N3='Store uint linear 1 MiB'
N4='CoopMat f16*f16+f32 128x128x16 workgroup (32 invocations)'
cases=(--case "$N1" --case "$N2" --case "$N3" --case "$N4")
.bin/perftest-head "${cases[@]}" --json $o/learn.json > /dev/null 2>&1
f=$(ls /tmp/home-pin/perftest/counts-*.json); echo "counts file $f" >> $o/times.txt
sets=("880158 619057 1000000 852" "993483 649081 1211053 1000" "1000000 718200 1278589 1040" "1050000 783306 1313000 930")
for k in 1 2; do
  for i in 0 1 2 3; do
    python3 - "$f" ${sets[$i]} <<'PY'
import json, sys
f = sys.argv[1]; d = json.load(open(f))
names = ['Store uint linear 256 KiB', 'Store uint linear 64 KiB', 'Store uint linear 1 MiB',
         'CoopMat f16*f16+f32 128x128x16 workgroup (32 invocations)']
for n, g in zip(names, sys.argv[2:]):
    d['counts'][n] = {'count': int(g), 'ms': 20.0}
json.dump(d, open(f, 'w'))
PY
    .bin/perftest-head "${cases[@]}" --json $o/pin-$i-$k.json > /dev/null 2> $o/pin-$i-$k.stderr
    echo "pin-$i-$k rc=$?" >> $o/times.txt
  done
done
# The whole store family at the counts the last set left, twice.
for k in 1 2; do .bin/perftest-head --family store --json $o/family-$k.json > /dev/null 2>&1; echo "family-$k rc=$?" >> $o/times.txt; done
gzip $o/*.json; cat $o/times.txt; (cd $OUT && tar czf x-d.tgz x-d && rm -rf x-d)
