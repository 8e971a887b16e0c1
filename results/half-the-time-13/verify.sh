#!/usr/bin/env bash
# issue 61, thirteenth step, call 3 (as run): --verify of every case on device 1 with main's binary and
# perftest-free's (b74a97a with the freeing phase), each from an empty cache home; then --quick three
# times, a reference of those, health against it (four.sh's two --quick runs made no reference:
# one GPU needs three runs).
source tools/device-env.sh >/dev/null 2>&1; o=$OUT/v; mkdir -p $o
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
for b in main free; do
  rm -rf /tmp/pc-v; export XDG_CACHE_HOME=/tmp/pc-v
  t=$(stamp); timeout 120 .bin/perftest-$b --verify --json $o/verify-$b.json > $o/verify-$b.txt 2>&1
  echo "verify-$b rc=$? wall $(took $t) s" >> $o/times.txt; grep "^time:" $o/verify-$b.txt >> $o/times.txt
  grep -iE "differ|mismatch|wrong" $o/verify-$b.txt | head -20 >> $o/times.txt
done
export XDG_CACHE_HOME=/tmp/pc-q
for k in 1 2 3; do
  t=$(stamp); timeout 40 .bin/perftest-main --quick --json $o/quick-$k.json > $o/quick-$k.txt 2>&1
  echo "quick-$k rc=$? wall $(took $t) s" >> $o/times.txt; grep "^time:" $o/quick-$k.txt >> $o/times.txt
done
mkdir -p $o/refruns; cp $o/quick-*.json $o/refruns/
timeout 30 .bin/perftest-main fleet --write-reference $o/quick.reference.json $o/refruns > $o/reference.txt 2>&1
echo "reference rc=$?" >> $o/times.txt; tail -3 $o/reference.txt >> $o/times.txt; rm -rf $o/refruns
t=$(stamp); timeout 40 .bin/perftest-main health --reference $o/quick.reference.json > $o/health.txt 2>&1
echo "health rc=$? wall $(took $t) s" >> $o/times.txt; tail -3 $o/health.txt >> $o/times.txt
gzip $o/*.json; cat $o/times.txt; tar cf $OUT/v.tar -C $OUT v && rm -rf $o
