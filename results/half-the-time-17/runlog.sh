#!/usr/bin/env bash
# issue 61, seventeenth step: one full default run on lavapipe (this project's two-core VM, idle)
# with 5310e11 built with runlog.patch (every timed run's case, workgroups, GPU and wall ms logged
# to stderr under PERFTEST_RUNLOG=1), from an empty cache home. BIN is that build; the record and
# the log go to $DIR (/tmp). data/ holds what study.py reads of them.
dir=${DIR:-/tmp}
source "$(dirname "$0")/../../tools/lavapipe-env.sh" >/dev/null
rm -rf "$dir/lvhome" && mkdir -p "$dir/lvhome"
XDG_CACHE_HOME=$dir/lvhome PERFTEST_RUNLOG=1 "$BIN" --json "$dir/lvp2.json" > "$dir/lvp2.txt" 2> "$dir/lvp2.err"
python3 - "$dir" <<'PY'
import gzip, json, sys
d = sys.argv[1]
r = json.load(open(f'{d}/lvp2.json'))
with gzip.open('data/logged-cases.tsv.gz', 'wt') as f:
    f.write('case\tfamily\twarmup_runs\tsamples\tmedian_ms\n')
    for c in r['cases']:
        if c.get('samples_ms'):
            f.write(f"{c['name']}\t{c['family']}\t{c['warmup_runs']}\t{len(c['samples_ms'])}\t{c['median_ms']:.6f}\n")
with gzip.open('data/runlog.tsv.gz', 'wt') as f:
    f.write('case\tgroups\tgpu_ms\twall_ms\n')
    f.writelines(line[len('RUNLOG\t'):] for line in open(f'{d}/lvp2.err') if line.startswith('RUNLOG\t'))
PY
