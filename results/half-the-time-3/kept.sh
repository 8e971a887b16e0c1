#!/usr/bin/env bash
# issue 61, third step, call B: the families whose cases now share kept contents (conv, branch,
# sweep, host, GEMM), before (.bin/perftest-before, 1d065d3's binary) and after (this tree), twice
# each alternating, to tell a change of rate from run-to-run noise; then --verify of every case
# before and after. After tools/h100-prepare.sh here, with the old binary in .bin/perftest-before.
set -uo pipefail
source tools/device-env.sh
o=$out/k; mkdir -p "$o"
export XDG_CACHE_HOME=/tmp/perftest-cache-home
stamp() { date +%s.%N; }
took() { python3 -c "print(f'{$(stamp) - $1:.2f}')"; }
families=(--family conv --family branch --family sweep --family host --family gemm)
for n in 1 2; do
  for b in before after; do
    bin=.bin/perftest; [ $b = before ] && bin=.bin/perftest-before
    t=$(stamp)
    timeout 100 $bin "${families[@]}" --verbose --json "$o/kept-$b$n.json" > "$o/kept-$b$n.txt" 2> "$o/kept-$b$n.err"
    echo "kept-$b$n rc=$? wall $(took "$t") s" >> "$o/times.txt"
  done
done
for b in after before; do
  bin=.bin/perftest; [ $b = before ] && bin=.bin/perftest-before
  t=$(stamp)
  timeout 100 $bin --verify --json "$o/verify-$b.json" > "$o/verify-$b.txt" 2> "$o/verify-$b.err"
  echo "verify-$b rc=$? wall $(took "$t") s" >> "$o/times.txt"
done
cat "$o/times.txt"
tar czf $out/k.tgz -C $out k && rm -rf "$o"
