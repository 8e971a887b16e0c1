#!/usr/bin/env python3
"""lavapipe.py DIR: lavapipe.txt's table from lavapipe.sh's four records in DIR (not kept: 2 MB
each), and data/lavapipe-cases.tsv.gz (each timed case's samples, median and cv in each run)."""
import collections, gzip, json, statistics, sys

where = sys.argv[1]
runs = [('head', 'd706ae2', 1), ('cpu5', '5 samples', 1), ('cpu5b', '5 samples', 2), ('headb', 'd706ae2', 2)]
timed = {}
with gzip.open('data/lavapipe-cases.tsv.gz', 'wt') as out:
    out.write('run\tcase\tsamples\tmedian_ms\tcv\n')
    for tag, label, pair in runs:
        run = json.load(open(f'{where}/lvab-{tag}.json'))
        phases = collections.Counter()
        for case in run['cases']:
            phases.update(case.get('phases') or {})
        cases = [c for c in run['cases'] if c.get('samples_ms')]
        timed[tag] = {c['name']: c for c in cases}
        for c in cases:
            out.write(f"{tag}\t{c['name']}\t{len(c['samples_ms'])}\t{c['median_ms']:.6f}\t{c['cv']:.6f}\n")
        counts = collections.Counter(len(c['samples_ms']) for c in cases)
        most = max(counts)
        print(f"pair {pair} {tag:6s} ({label:9s}): wall {run['wall_s']:6.1f} s; samples {phases['samples_ms'] / 1e3:6.1f}, "
              f"scaling {phases['scale_ms'] / 1e3:5.1f}, warm-up {phases['warm_ms'] / 1e3:5.1f}, "
              f"re-measuring {phases['remeasure_ms'] / 1e3:4.1f} s; {len(cases)} timed, {counts[most]} of them at the "
              f"most ({most}); median cv {statistics.median(c['cv'] for c in cases):.4f}; "
              f"statuses {dict(collections.Counter(c['status'] for c in run['cases']))}")

def against(a, b):
    ra, rb = timed[a], timed[b]
    ratios = [rb[n]['rate']['value'] / ra[n]['rate']['value'] for n in ra
              if n in rb and ra[n].get('rate') and rb[n].get('rate') and ra[n]['rate']['value'] > 0]
    return f"median {statistics.median(ratios):.4f}, {sum(abs(r - 1) <= 0.05 for r in ratios)} of {len(ratios)} within 5%"

for a, b in [('head', 'cpu5'), ('headb', 'cpu5b'), ('head', 'headb'), ('cpu5', 'cpu5b')]:
    print(f"rates {b} against {a}: {against(a, b)}")
