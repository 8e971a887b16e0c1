#!/usr/bin/env bash
# issue 61, eighteenth step, call 3: the 49 cases whose rates moved between 6806dae and 7d6d246
# (every head run beyond every base run by more than 2%), alone, at the commits between; two passes,
# oldest first then newest first, each binary with its own cache home. Device tool, carry .bis and
# .gl (build.sh, tools/h100-prepare.sh): BINS="base 4bd4954 ... head pat" bash results/half-the-time-18/bisect.sh
source tools/device-env.sh >/dev/null 2>&1; o=$OUT/x-c; mkdir -p $o .bin
tar xJf .bis/bins.tar.xz -C /tmp && cp /tmp/b/* .bin/
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,temperature.gpu,power.draw,utilization.gpu --format=csv,noheader -lms 500 > $o/smi-log.csv &
smi=$!
args=(); while IFS= read -r n; do args+=(--case "$n"); done < results/half-the-time-18/moved-cases.txt
bins=($BINS); rev=(); for ((i=${#bins[@]}-1; i>=0; i--)); do rev+=(${bins[i]}); done
for pass in 1 2; do
  [ $pass = 1 ] && order=("${bins[@]}") || order=("${rev[@]}")
  for b in "${order[@]}"; do
    export XDG_CACHE_HOME=/tmp/h-$b
    s=$(date +%s.%N)
    timeout 60 .bin/perftest-$b "${args[@]}" --json $o/$b-$pass.json --output $o/$b-$pass.txt > /dev/null 2> $o/$b-$pass.stderr
    echo "$b pass $pass rc=$? $(python3 -c "print(f'{$(date +%s.%N) - $s:.1f}')") s" >> $o/times.txt
  done
done
for b in base head pat; do
  [ $SECONDS -gt 430 ] && break
  export XDG_CACHE_HOME=/tmp/h-$b; s=$(date +%s.%N)
  timeout 40 .bin/perftest-$b --filter Store --json $o/$b-store.json --output $o/$b-store.txt > /dev/null 2> $o/$b-store.stderr
  echo "$b store rc=$? $(python3 -c "print(f'{$(date +%s.%N) - $s:.1f}')") s" >> $o/times.txt
done
kill $smi; gzip $o/*.json; cat $o/times.txt; (cd $OUT && tar czf x-c.tgz x-c && rm -rf x-c)
