#!/usr/bin/env python3
"""Issue 61, fifteenth step, calls 3 and 4: today's binary (head) against the new ones, run by run.

`runs.py RECORDS_DIR...` prints for each record (`*.json.gz`, written by full.sh or train.sh) in
each folder: its wall, the wall less the SDC family (the issue's 1,533 cases) and less the dispatch
family too (five CPU-bound cases whose re-measuring swings 0-4 s from run to run), the cases'
scaling and samples, the mean sample; then each run's rates against the folder's first head run,
and the dispatch family's cases, rate and cv, run by run.
"""
import glob, gzip, json, os, statistics as st, sys

for folder in sys.argv[1:]:
    runs = {}
    for f in sorted(glob.glob(os.path.join(folder, '*.json.gz'))):
        runs[os.path.basename(f)[:-len('.json.gz')]] = json.load(gzip.open(f))
    full = {t: d for t, d in runs.items() if len(d['cases']) > 1000}
    print('%s: full default runs, one H200, each from an empty cache home; the cases summed, s' % folder)
    print('%-14s %6s %7s %9s %8s %6s %7s %6s' % ('run', 'wall', 'no sdc', 'nor disp.', 'dispatch', 'scale', 'samples', 'mean'))
    for tag, d in full.items():
        cs = [c for c in d['cases'] if c.get('phases')]
        fam = lambda n: sum(c['phases'].get('total_ms', 0) for c in cs if c['family'] == n) / 1e3
        ph = lambda k: sum(c['phases'].get(k, 0) for c in cs) / 1e3
        mean = st.mean(c['median_ms'] for c in cs if c.get('median_ms'))
        print('%-14s %6.1f %7.1f %9.1f %8.2f %6.2f %7.1f %6.2f' % (tag, d['wall_s'], d['wall_s'] - fam('sdc'),
              d['wall_s'] - fam('sdc') - fam('dispatch'), fam('dispatch'), ph('scale_ms'), ph('samples_ms'), mean))
    heads = [t for t in full if 'head' in t]
    if heads:
        base = {c['name']: c for c in full[heads[0]]['cases'] if c.get('rate')}
        for tag, d in full.items():
            if tag == heads[0]:
                continue
            rs = [c['rate']['value'] / base[c['name']]['rate']['value'] for c in d['cases']
                  if c.get('rate') and c['name'] in base]
            print('  rates of %s against %s: median ratio %.5f, %d of %d within 2%%' % (
                tag, heads[0], st.median(rs), sum(abs(r - 1) <= 0.02 for r in rs), len(rs)))
    print('the dispatch family, rate per second (cv), run by run:')
    for tag, d in runs.items():
        cases = [c for c in d['cases'] if c['family'] == 'dispatch' and c.get('rate') and 'Dispatch' in c['name']]
        if cases:
            print('  %-16s %s' % (tag, '  '.join('%s %.4g (%.3f)' % (c['name'].replace('Dispatch ', ''), c['rate']['value'], c['cv'])
                                                 for c in cases)))
    print()
