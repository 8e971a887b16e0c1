#!/usr/bin/env python3
"""Issue 61, twenty-third step: the tables of README.md from the call's records.

Usage, from this folder, with the call's archive unpacked into x/ (not kept: 3 MB a full run's
record): python3 study.py phases|rates
"""
import collections, gzip, json, statistics, sys

FULL = ['base-full-1', 'head-full-1', 'head-full-2']
ROWS = [('pipeline_ms', 'pipelines built before a case'), ('setup_ms', 'setup'), ('scale_ms', 'scaling'),
        ('warm_ms', 'warm-up'), ('samples_ms', 'samples'), ('samples_gpu_ms', '  of it the GPU busy with samples'),
        ('rewarm_ms', 're-warming'), ('remeasure_ms', 're-measuring'), ('free_ms', 'freeing')]


def load(tag):
    with gzip.open(f'x/{tag}.json.gz') as f:
        return json.load(f)


def rate(c):
    return c['rate']['value'] if c.get('rate') and c['rate']['value'] > 0 else None


def phases(runs):
    base_names = {c['name'] for c in runs['base-full-1']['cases']}
    sums = {k: collections.Counter() for k in runs}
    for k, r in runs.items():
        for c in r['cases']:
            sums[k].update(c['phases'])
    print('| phase, s | ' + ' | '.join(runs) + ' |')
    print('|---|' + '---|' * len(runs))
    for key, label in ROWS:
        print(f'| {label} | ' + ' | '.join(f"{sums[k][key] / 1e3:.1f}" for k in runs) + ' |')
    named = [key for key, _ in ROWS if key != 'samples_gpu_ms'] + ['verify_ms', 'energy_ms']
    print('| the rest of the cases | ' + ' | '.join(
        f"{(sums[k]['total_ms'] - sum(sums[k][n] for n in named)) / 1e3:.1f}" for k in runs) + ' |')
    print('| between the cases (start-up, workers, the report) | ' + ' | '.join(
        f"{r['wall_s'] - sums[k]['total_ms'] / 1e3:.1f}" for k, r in runs.items()) + ' |')
    print('| **wall** | ' + ' | '.join(f"**{r['wall_s']:.1f}**" for r in runs.values()) + ' |')
    print('| GPU busy with samples | ' + ' | '.join(
        f"{sums[k]['samples_gpu_ms'] / 1e3 / r['wall_s']:.0%}" for k, r in runs.items()) + ' |')
    print("| the base's cases, summed | " + ' | '.join(
        f"{sum(c['phases']['total_ms'] for c in r['cases'] if c['name'] in base_names) / 1e3:.1f}"
        for r in runs.values()) + ' |')
    print('| the corruption-screen cases, summed | ' + ' | '.join(
        f"{sum(c['phases']['total_ms'] for c in r['cases'] if c['family'] == 'sdc') / 1e3:.1f}"
        for r in runs.values()) + ' |')
    sdc = 'SDC memory moving inversions, free memory'
    for k, r in runs.items():
        for c in r['cases']:
            if c['name'] == sdc:
                p = c['phases']
                print(f"{k}: {sdc}: setup {p['setup_ms'] / 1e3:.2f} s, freeing {p['free_ms'] / 1e3:.2f} s, "
                      f"whole {p['total_ms'] / 1e3:.2f} s")


def rates(runs):
    base = {c['name']: rate(c) for c in runs['base-full-1']['cases'] if rate(c)}
    for k in FULL[1:]:
        ratios = [rate(c) / base[c['name']] for c in runs[k]['cases'] if rate(c) and c['name'] in base]
        near = sum(1 for x in ratios if abs(x - 1) <= 0.02)
        print(f"{k} against base-full-1: {len(ratios)} cases, median ratio {statistics.median(ratios):.4f}, "
              f"{near} within 2%")
    a = {c['name']: rate(c) for c in runs['head-full-1']['cases'] if rate(c)}
    ratios = [rate(c) / a[c['name']] for c in runs['head-full-2']['cases'] if rate(c) and c['name'] in a]
    print(f"head-full-2 against head-full-1: {len(ratios)} cases, median ratio {statistics.median(ratios):.4f}, "
          f"{sum(1 for x in ratios if abs(x - 1) <= 0.02)} within 2%")


if __name__ == '__main__':
    runs = {tag: load(tag) for tag in FULL}
    {'phases': phases, 'rates': rates}[sys.argv[1]](runs)
