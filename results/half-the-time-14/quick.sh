#!/usr/bin/env bash
# issue 61, fourteenth step: --quick and health with today's binary (head) and the one that keeps
# dispatch counts (counts), each on a cache home of its own: one --quick each to fill the homes,
# then three each alternating; a reference of head's three, and health with each binary twice.
source tools/device-env.sh >/dev/null 2>&1; o=$OUT/x; mkdir -p $o
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
rm -rf /tmp/home-*
quick() {  # BIN TAG
  export XDG_CACHE_HOME=/tmp/home-$1
  t=$(stamp); timeout 40 .bin/perftest-$1 --quick --json $o/quick-$2.json > $o/quick-$2.txt 2>&1
  echo "quick-$2 rc=$? wall $(took $t) s" >> $o/times.txt; grep "^time:" $o/quick-$2.txt >> $o/times.txt
}
quick head head-0; quick counts counts-0
for k in 1 2 3; do quick head head-$k; quick counts counts-$k; done
mkdir -p $o/refruns; cp $o/quick-head-[123].json $o/refruns/
XDG_CACHE_HOME=/tmp/home-head timeout 30 .bin/perftest-head fleet --write-reference $o/quick.reference.json $o/refruns > $o/reference.txt 2>&1
echo "reference rc=$?" >> $o/times.txt; rm -rf $o/refruns
for k in 1 2; do
  for bin in head counts; do
    export XDG_CACHE_HOME=/tmp/home-$bin
    t=$(stamp); timeout 40 .bin/perftest-$bin health --reference $o/quick.reference.json > $o/health-$bin-$k.txt 2>&1
    echo "health-$bin-$k rc=$? wall $(took $t) s" >> $o/times.txt
  done
done
gzip $o/quick-*.json; cat $o/times.txt
