#!/usr/bin/env bash
# issue 61, thirteenth step, four H200s of one host: --verify of every case with the spare binary
# (device 1, an empty cache home); --quick three times with each binary, alternating; a reference
# of the spare binary's three and health (every GPU) against it with each binary; then spare.sh's
# full runs named as arguments. Everything appended to $OUT/c.tar as it ends.
source tools/device-env.sh >/dev/null 2>&1; o=$OUT/c; mkdir -p $o
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
rm -rf /tmp/pc-v; export XDG_CACHE_HOME=/tmp/pc-v
t=$(stamp); timeout 120 .bin/perftest-spare --verify --json $o/verify.json > $o/verify.txt 2>&1
echo "verify-spare rc=$? wall $(took $t) s" >> $o/times.txt; grep "^time:" $o/verify.txt >> $o/times.txt
.bin/perftest-spare check --expect ci/expectations/nvidia-580.json $o/verify.json > $o/check.txt 2>&1
echo "check against ci/expectations/nvidia-580.json rc=$?" >> $o/times.txt; tail -2 $o/check.txt >> $o/times.txt
for k in 1 2 3; do for b in main spare; do
  export XDG_CACHE_HOME=/tmp/pc-q-$b; t=$(stamp)
  timeout 40 .bin/perftest-$b --quick --json $o/quick-$k-$b.json > $o/quick-$k-$b.txt 2>&1
  echo "quick-$k-$b rc=$? wall $(took $t) s" >> $o/times.txt; grep "^time:" $o/quick-$k-$b.txt >> $o/times.txt
done; done
mkdir -p $o/refruns; cp $o/quick-*-spare.json $o/refruns/
timeout 30 .bin/perftest-spare fleet --write-reference $o/quick.reference.json $o/refruns > $o/reference.txt 2>&1
echo "reference rc=$?" >> $o/times.txt; rm -rf $o/refruns
for b in main spare; do
  export XDG_CACHE_HOME=/tmp/pc-q-$b; t=$(stamp)
  timeout 40 .bin/perftest-$b health --reference $o/quick.reference.json > $o/health-$b.txt 2>&1
  echo "health-$b rc=$? wall $(took $t) s" >> $o/times.txt; head -1 $o/health-$b.txt >> $o/times.txt
done
gzip $o/*.json; tar cf $OUT/c.tar -C $OUT c; rm -rf $o
bash .sdc/spare.sh "$@"   # .sdc/: where these scripts were copied to run
