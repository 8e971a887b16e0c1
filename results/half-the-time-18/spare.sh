#!/usr/bin/env bash
# issue 61, eighteenth step, call 4: 7d6d246 ("head") against it with no memory kept spare
# ("nospare"): the 49 moved cases alone, twice each, then a full run of each from an empty cache home.
# nospare: 7d6d246 with `Spares::new(spare_budget * 0)` in src/vk/context.rs. Device tool, carry
# .bis and .gl: bash results/half-the-time-18/spare.sh
source tools/device-env.sh >/dev/null 2>&1; o=$OUT/x-d; mkdir -p $o .bin
tar xJf .bis/bins.tar.xz -C /tmp && cp /tmp/b/* .bin/
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,temperature.gpu,power.draw,utilization.gpu --format=csv,noheader -lms 500 > $o/smi-log.csv &
smi=$!
args=(); while IFS= read -r n; do args+=(--case "$n"); done < results/half-the-time-18/moved-cases.txt
run() {  # BIN TAG ARGS...
  b=$1; tag=$2; shift 2; export XDG_CACHE_HOME=/tmp/h-$b-${tag%%-*}; s=$(date +%s.%N)
  timeout 170 .bin/perftest-$b "$@" --json $o/$b-$tag.json --output $o/$b-$tag.txt > /dev/null 2> $o/$b-$tag.stderr
  echo "$b $tag rc=$? $(python3 -c "print(f'{$(date +%s.%N) - $s:.1f}')") s $(date -u +%T)" >> $o/times.txt
}
for p in 1 2; do for b in head nospare; do run $b cases-$p "${args[@]}"; done; done
run nospare full
run head full
kill $smi; gzip $o/*.json; cat $o/times.txt; (cd $OUT && tar czf x-d.tgz x-d && rm -rf x-d)
