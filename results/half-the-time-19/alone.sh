#!/usr/bin/env bash
# issue 61, nineteenth step, call 3: the store and coopmat families alone, base (6806dae) and head
# (45487a2) alternately, three times, each from an empty cache home. Device tool, carry .bin and .gl:
# bash results/half-the-time-19/alone.sh
source tools/device-env.sh >/dev/null 2>&1; o=$OUT/x-c; mkdir -p $o
for k in 1 2 3; do
  for b in base head; do
    for fam in store coopmat; do
      export XDG_CACHE_HOME=/tmp/home-$b-$fam-$k
      s=$(date +%s.%N); .bin/perftest-$b --family $fam --json $o/$b-$fam-$k.json --output $o/$b-$fam-$k.txt > /dev/null 2> $o/$b-$fam-$k.stderr
      echo "$b-$fam-$k rc=$? $(python3 -c "print(f'{$(date +%s.%N)-$s:.1f}')") s" >> $o/times.txt
    done
  done
done
gzip $o/*.json; cat $o/times.txt; (cd $OUT && tar czf x-c.tgz x-c && rm -rf x-c)
