#!/usr/bin/env python3
"""Issue 61, nineteenth step: the tables of README.md from the two calls' records.

Usage, from this folder, with the calls' archives unpacked into x-a/ to x-e/ (not kept: 3 MB a
full run's record): python3 study.py phases|rates|moved|short|alone|pinned|settle|export
`export` writes data/full-runs.tsv.gz (every timed case's rate, median and cv in each full run)
and data/alone.tsv (the store and coopmat families alone, call 3; four cases at pinned counts,
call 4).
"""
import collections, gzip, json, os, statistics, sys

def load(path):
    with gzip.open(path) as f:
        return json.load(f)

def rate(c):
    return c['rate']['value'] if c and c.get('rate') and c['rate']['value'] > 0 else None

FULL = [('a', 'base-full-1'), ('a', 'head-full-1'), ('a', 'head-full-2'), ('b', 'head-full-3'),
        ('b', 'base-full-3')]
ROWS = [('pipeline_ms', 'pipelines'), ('setup_ms', 'setup'), ('scale_ms', 'scaling'), ('warm_ms', 'warm-up'),
        ('samples_ms', 'samples'), ('samples_gpu_ms', '  of it the GPU busy with samples'),
        ('rewarm_ms', 're-warming'), ('remeasure_ms', 're-measuring'), ('free_ms', 'freeing')]
# The 49 cases that moved from 6806dae to 7d6d246 (../half-the-time-18/moved-cases.txt).
MOVED18 = [l.rstrip('\n') for l in open('../half-the-time-18/moved-cases.txt')]
# Beyond this share outside the other binary's runs, a case moved.
BAND = 0.02

def full_runs():
    return {f'{call}:{tag}': load(f'x-{call}/{tag}.json.gz') for call, tag in FULL}

def phases():
    """Each full run's phases summed over its cases, seconds."""
    rs = full_runs()
    base_names = {c['name'] for k, r in rs.items() if 'base' in k for c in r['cases']}
    sums = {k: collections.Counter() for k in rs}
    for k, r in rs.items():
        for c in r['cases']:
            sums[k].update(c['phases'])
    print('| phase, s | ' + ' | '.join(rs) + ' |')
    print('|---|' + '---|' * len(rs))
    for key, label in ROWS:
        print(f'| {label} | ' + ' | '.join(f"{sums[k][key] / 1e3:.1f}" for k in rs) + ' |')
    named = [key for key, _ in ROWS if key != 'samples_gpu_ms'] + ['verify_ms', 'energy_ms']
    print('| the rest of the cases (statistics, clock chains, fault log) | ' + ' | '.join(
        f"{(sums[k]['total_ms'] - sum(sums[k][n] for n in named)) / 1e3:.1f}" for k in rs) + ' |')
    print('| between cases (start-up, workers, the report) | ' + ' | '.join(
        f"{r['wall_s'] - sums[k]['total_ms'] / 1e3:.1f}" for k, r in rs.items()) + ' |')
    print('| **wall** | ' + ' | '.join(f"**{r['wall_s']:.1f}**" for r in rs.values()) + ' |')
    print('| GPU busy with samples | ' + ' | '.join(
        f"{sums[k]['samples_gpu_ms'] / 1e3 / r['wall_s']:.0%}" for k, r in rs.items()) + ' |')
    print('| cases run; of them timed | ' + ' | '.join(
        f"{len(r['cases'])}; {sum(1 for c in r['cases'] if rate(c))}" for r in rs.values()) + ' |')
    print("| the base's 1,533 cases, summed | " + ' | '.join(
        f"{sum(c['phases']['total_ms'] for c in r['cases'] if c['name'] in base_names) / 1e3:.1f}"
        for r in rs.values()) + ' |')
    print("| the 14 corruption-screen cases, summed | " + ' | '.join(
        f"{sum(c['phases']['total_ms'] for c in r['cases'] if c['family'] == 'sdc') / 1e3:.1f}"
        for r in rs.values()) + ' |')

def runs_by_name():
    rs = {k: {c['name']: c for c in r['cases']} for k, r in full_runs().items()}
    base = [v for k, v in rs.items() if 'base' in k]
    head = [v for k, v in rs.items() if 'head' in k]
    return rs, base, head

def judged(base, head):
    """Each case both time: (name, base rates, head rates, verdict), the verdict 'slower' or
    'faster' where every head run lies beyond every base run by more than BAND, else ''."""
    out = []
    for n in base[0]:
        b = [rate(r.get(n)) for r in base]
        h = [rate(r.get(n)) for r in head]
        if None in b or None in h:
            continue
        verdict = ''
        if max(h) < min(b) * (1 - BAND):
            verdict = 'slower'
        elif min(h) > max(b) * (1 + BAND):
            verdict = 'faster'
        out.append((n, b, h, verdict))
    return out

def rates():
    """Each run's rates against base-full-1's; base against base, head against head; and the
    cases that moved beyond both binaries' run-to-run spread."""
    rs, base, head = runs_by_name()
    first = rs['a:base-full-1']
    for k, r in rs.items():
        if k == 'a:base-full-1':
            continue
        both = [n for n in first if rate(first[n]) and rate(r.get(n))]
        ratios = sorted(rate(r[n]) / rate(first[n]) for n in both)
        q = lambda p: ratios[min(len(ratios) - 1, int(p * len(ratios)))]
        print(f'{k} / a:base-full-1: {len(both)} cases, median ratio {statistics.median(ratios):.4f}, '
              f'5th-95th percentile {q(0.05):.3f}-{q(0.95):.3f}, {sum(abs(x - 1) <= 0.02 for x in ratios)} within 2%, '
              f'{sum(abs(x - 1) > 0.05 for x in ratios)} beyond 5%')
    cases = judged(base, head)
    med = statistics.median(statistics.mean(h) / statistics.mean(b) for _, b, h, _ in cases)
    print(f'\nmedian over {len(cases)} cases of head (mean of 3 runs) / base (mean of 2 runs): {med:.4f}')
    moved = [c for c in cases if c[3]]
    print(f'moved beyond every run of the other binary by more than {BAND:.0%}: {len(moved)} '
          f'({sum(c[3] == "slower" for c in moved)} slower, {sum(c[3] == "faster" for c in moved)} faster)')
    # The same rule, base against itself: how many a binary "moves" against its own runs.
    selfb = judged([base[0]], [base[1]])
    selfh = judged([head[0]], head[1:])
    print(f'the same rule, one base run against the other: {sum(1 for c in selfb if c[3])}; '
          f'head-full-1 against head-full-2 and -3: {sum(1 for c in selfh if c[3])}')
    print(f"\n{'case':60s} {'base runs':>12s} {'head runs, to base mean':>26s}")
    for n, b, h, v in sorted(moved, key=lambda c: statistics.mean(c[2]) / statistics.mean(c[1])):
        m = statistics.mean(b)
        print(f"{n[:60]:60s} {min(b) / m:5.2f}-{max(b) / m:4.2f}   " + ' '.join(f'{x / m:5.2f}' for x in h) + f'  {v}')

def moved():
    """The 49 cases that had moved at 7d6d246: where each stands now, head's runs to base's mean."""
    _, base, head = runs_by_name()
    verdicts = {n: (b, h, v) for n, b, h, v in judged(base, head)}
    print(f"{'case (moved at 7d6d246)':60s} base runs   head runs, to base mean")
    for n in MOVED18:
        b, h, v = verdicts[n]
        m = statistics.mean(b)
        print(f"{n[:60]:60s} {min(b) / m:4.2f}-{max(b) / m:4.2f}   " + ' '.join(f'{x / m:5.2f}' for x in h) +
              f"  {v or 'held'}")

def short():
    """The cases settled under 16 ms or over 25 ms (outside the band) in head's full runs."""
    for call, tag in FULL:
        r = {c['name']: c for c in load(f'x-{call}/{tag}.json.gz')['cases']}
        off = sorted((c['median_ms'], n) for n, c in r.items() if rate(c) and not 16 <= c['median_ms'] <= 25
                     and c['family'] not in ('latency', 'copy', 'sdc', 'host'))
        print(f"{call}:{tag}: {len(off)}: " + '; '.join(f'{n} {ms:.1f} ms' for ms, n in off))

def alone_runs():
    """Call 3: the store and coopmat families alone, base and head alternately, three times."""
    return {f'{b}-{k}': {**{c['name']: c for c in load(f'x-c/{b}-store-{k}.json.gz')['cases']},
                         **{c['name']: c for c in load(f'x-c/{b}-coopmat-{k}.json.gz')['cases']}}
            for b in ('base', 'head') for k in (1, 2, 3)}

def pinned_runs():
    """Call 4: four cases at counts written into the counts file (pin-SET-PASS), the first run
    that learned them, and the store family twice at the last set's counts."""
    names = [f'pin-{i}-{k}' for k in (1, 2) for i in range(4)] + ['learn', 'family-1', 'family-2']
    return {n: {c['name']: c for c in load(f'x-d/{n}.json.gz')['cases']} for n in names}

ALONE = ['Store uint linear 256 KiB', 'Store uint random 256 KiB', 'Store uint linear 64 KiB',
         'Store uint2 linear 64 KiB', 'Store uint linear 1 MiB',
         'CoopMat f16*f16+f32 128x128x16 workgroup (32 invocations)',
         'CoopMat bf16*bf16+f32 128x128x16 workgroup (64 invocations)']

def alone():
    """The moved cases alone (call 3) beside the full runs: each run's rate to base's full mean."""
    _, base, head = runs_by_name()
    runs = alone_runs()
    print(f"{'case':58s} full: base | head        alone: base | head")
    for n in ALONE:
        m = statistics.mean(rate(r[n]) for r in base)
        f = lambda rs: ' '.join(f'{rate(r[n]) / m:.2f}' for r in rs)
        print(f"{n[:58]:58s} {f(base)} | {f(head)}   {f(runs[k] for k in runs if 'base' in k)} | "
              f"{f(runs[k] for k in runs if 'head' in k)}")

def pinned():
    """Call 4: time per thousand workgroups at each pinned count, and the full and alone runs'."""
    runs = pinned_runs()
    for n in ALONE[:1] + ALONE[2:3] + ALONE[4:6]:
        print(n)
        pts = sorted((c['dispatch']['count'], c['median_ms'], k) for k, r in runs.items() if n in r
                     for c in [r[n]])
        for g, ms, k in pts:
            print(f'   {g:9d} workgroups  {ms:6.2f} ms  {ms * 1e6 / g:9.3f} us per 1000  {k}')

SETTLE = ['CoopMat f16*f16+f32 128x128x16 workgroup (32 invocations)',
          'CoopMat bf16*bf16+f32 128x128x16 workgroup (32 invocations)',
          'CoopMat s8*s8+s32 128x128x32 workgroup (32 invocations)',
          'AtomicCompSwap u32 add loop 32 addresses', 'AtomicCompSwap u32 add loop 1024 addresses',
          'Instr fp32 atan throughput']

def settle():
    """Call 5: new (the band widened only for aims that swung across it) against head, alone and
    in a full run; rates to base's mean (calls 1-2), the median time beside each."""
    by = lambda t: {c['name']: c for c in load(f'x-e/{t}.json.gz')['cases']}
    fam = {f'{b}-{k}': by(f'{b}-fam-{k}') for b in ('head', 'new') for k in (1, 2)}
    full = {b: by(f'{b}-full') for b in ('head', 'new')}
    _, base, _ = runs_by_name()
    for k, r in {**fam, **{f'{b}-full': v for b, v in full.items()}}.items():
        off = sorted(f"{n} {c['median_ms']:.1f} ms" for n, c in r.items() if rate(c) and not 16 <= c['median_ms'] <= 25
                     and c['family'] not in ('latency', 'copy', 'sdc', 'host') and 'latency' not in n)
        print(f"{k}: scaling {sum(c['phases']['scale_ms'] for c in r.values()) / 1e3:.2f} s; "
              f"{len(off)} outside 16-25 ms: {'; '.join(off)}")
    moved = [n for n in fam['head-1'] if all(rate(fam[k].get(n)) for k in fam) and (
        max(rate(fam[f'new-{k}'][n]) for k in (1, 2)) < min(rate(fam[f'head-{k}'][n]) for k in (1, 2)) * (1 - BAND) or
        min(rate(fam[f'new-{k}'][n]) for k in (1, 2)) > max(rate(fam[f'head-{k}'][n]) for k in (1, 2)) * (1 + BAND))]
    print(f'\nalone, new beyond both head runs by more than {BAND:.0%}: {len(moved)}: ' + '; '.join(moved))
    print(f"\n{'case, rate to base mean (median ms)':60s} {'full: new':>16s} {'head':>16s}   alone: new | head")
    for n in SETTLE:
        m = statistics.mean(rate(r[n]) for r in base)
        cell = lambda c: f"{rate(c) / m:.2f} ({c['median_ms']:.1f})"
        print(f"{n[:60]:60s} {cell(full['new'][n]):>16s} {cell(full['head'][n]):>16s}   " +
              ' '.join(f"{rate(fam[f'new-{k}'][n]) / m:.2f}" for k in (1, 2)) + ' | ' +
              ' '.join(f"{rate(fam[f'head-{k}'][n]) / m:.2f}" for k in (1, 2)))
    for b, r in full.items():
        both = [n for n in base[0] if rate(base[0][n]) and rate(base[1].get(n)) and rate(r.get(n))]
        ratios = [rate(r[n]) / statistics.mean([rate(base[0][n]), rate(base[1][n])]) for n in both]
        beyond = sum(1 for n in both if rate(r[n]) < min(rate(x[n]) for x in base) * (1 - BAND)
                     or rate(r[n]) > max(rate(x[n]) for x in base) * (1 + BAND))
        print(f"{b}'s full run against base's two: median ratio {statistics.median(ratios):.4f}, "
              f"{sum(abs(x - 1) <= BAND for x in ratios)} of {len(both)} within 2% of their mean, "
              f"{beyond} beyond both by more than 2%")

def export():
    os.makedirs('data', exist_ok=True)
    rs = full_runs()
    names = list(dict.fromkeys(c['name'] for r in rs.values() for c in r['cases']))
    cols = {k: {c['name']: c for c in r['cases']} for k, r in rs.items()}
    with gzip.open('data/full-runs.tsv.gz', 'wt') as f:
        f.write('case\t' + '\t'.join(f'{k}:rate_per_s\t{k}:median_ms\t{k}:cv' for k in rs) + '\n')
        for n in names:
            cells = []
            for k in rs:
                c = cols[k].get(n)
                r = rate(c)
                cells += [f'{r:.6g}' if r else '', f"{c['median_ms']:.4f}" if c and c.get('median_ms') else '',
                          f"{c['cv']:.5f}" if c and c.get('cv') is not None else '']
            f.write(n + '\t' + '\t'.join(cells) + '\n')
    with open('data/alone.tsv', 'w') as f:
        f.write('call\trun\tcase\tworkgroups\tmedian_ms\trate_per_s\n')
        for call, runs in (('3', alone_runs()), ('4', pinned_runs())):
            for k, r in runs.items():
                for n in sorted(r):
                    c = r[n]
                    if rate(c):
                        f.write(f"{call}\t{k}\t{n}\t{c['dispatch']['count']}\t{c['median_ms']:.4f}\t{rate(c):.6g}\n")

if __name__ == '__main__':
    {'phases': phases, 'rates': rates, 'moved': moved, 'short': short, 'alone': alone, 'pinned': pinned,
     'settle': settle, 'export': export}[sys.argv[1]]()
