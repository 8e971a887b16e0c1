#!/usr/bin/env python3
"""Issue 61, eighteenth step: the tables of README.md from the four calls' records.

Usage, from this folder, with the calls' archives unpacked into x-a/, x-b/, x-c/ and x-d/ (not
kept: 3 MB a full run's record): python3 study.py phases|rates|moved|spare|short|export
`export` writes data/: every timed case's rate and time in each full run, and the moved cases'
rates at each commit, alone.
"""
import collections, gzip, json, os, statistics, sys

def load(path):
    with gzip.open(path) as f:
        return json.load(f)

def by_name(path):
    return {c['name']: c for c in load(path)['cases']}

def rate(c):
    return c['rate']['value'] if c and c.get('rate') and c['rate']['value'] > 0 else None

FULL = [('a', 'base-full-1'), ('a', 'head-full-1'), ('a', 'head-full-2'), ('b', 'head-full-3'),
        ('b', 'base-full-3'), ('d', 'nospare-full'), ('d', 'head-full')]
ROWS = [('pipeline_ms', 'pipelines'), ('setup_ms', 'setup'), ('scale_ms', 'scaling'), ('warm_ms', 'warm-up'),
        ('samples_ms', 'samples'), ('samples_gpu_ms', '  of it the GPU busy with samples'),
        ('rewarm_ms', 're-warming'), ('remeasure_ms', 're-measuring'), ('free_ms', 'freeing')]
# Call 3's binaries, oldest first: 6806dae ("base"), twelve commits between, 7d6d246 ("head"), and
# head with zeros copied through the staging buffer rather than cleared on the device ("pat").
BINS = ('base 4bd4954 87ed20a 762809f 280925e baf9aba 534cc47 b9cccbc bf0ff3c 6a4b5ad 4fb597c fcafcbf '
        '793597d 21fb8da head pat').split()
MOVED = [l.rstrip('\n') for l in open('moved-cases.txt')]

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

def rates():
    """Each later run's rates against base-full-1's, over the cases both timed; and run to run."""
    rs = {k: {c['name']: c for c in r['cases']} for k, r in full_runs().items()}
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

def moved():
    """Call 3: the moved cases alone at each commit, as a ratio to base's mean (the lower of two
    passes; ~ where the two differ by more than 3%); the full runs' beside them."""
    data = {b: [by_name(f'x-c/{b}-{p}.json.gz') for p in (1, 2)] for b in BINS}
    full = {'base': by_name('x-a/base-full-1.json.gz'), 'head': by_name('x-a/head-full-1.json.gz')}
    print(f"{'case':52s} " + ' '.join(f'{b[:7]:>7s}' for b in BINS) + '   fullB  fullH')
    for n in MOVED:
        ref = statistics.mean(rate(d[n]) for d in data['base'])
        cells = []
        for b in BINS:
            r = [rate(d[n]) / ref for d in data[b]]
            cells.append(f"{min(r):.2f}{'~' if max(r) - min(r) > 0.03 else ' '}")
        print(f'{n[:52]:52s} ' + ' '.join(c.rjust(7) for c in cells) +
              f"   {rate(full['base'][n]) / ref:.2f}  {rate(full['head'][n]) / ref:.2f}")

def spare():
    """Call 4: head against head with no memory kept spare, alone (twice) and in a full run; the
    full runs as a ratio to base-full-1."""
    runs = {k: by_name(f'x-d/{k}.json.gz') for k in
            ['head-cases-1', 'head-cases-2', 'nospare-cases-1', 'nospare-cases-2', 'nospare-full', 'head-full']}
    base = [by_name('x-c/base-1.json.gz'), by_name('x-c/base-2.json.gz')]
    bfull = [by_name('x-a/base-full-1.json.gz'), by_name('x-b/base-full-3.json.gz')]
    print(f"{'case':52s}  alone, to base alone (call 3)  | full, to base-full-1")
    print(f"{'':52s}  head  head  nosp  nosp | base-3 nospare head")
    for n in MOVED:
        ref = statistics.mean(rate(d[n]) for d in base)
        f0 = rate(bfull[0][n])
        print(f'{n[:52]:52s} ' + ' '.join(f"{rate(runs[k][n]) / ref:5.2f}" for k in list(runs)[:4]) + ' | ' +
              ' '.join(f"{x / f0:6.2f}" for x in [rate(bfull[1][n]), rate(runs['nospare-full'][n]),
                                                  rate(runs['head-full'][n])]))

def short():
    """Cases whose samples took under 16 ms (the band's floor) in each full run."""
    for call, tag in FULL:
        r = by_name(f'x-{call}/{tag}.json.gz')
        lo = sorted((c['median_ms'], n) for n, c in r.items() if c.get('median_ms') and c['median_ms'] < 16
                    and 'latency' not in n and 'Copy device to device' not in n)
        print(f"{call}:{tag}: " + '; '.join(f'{n} {ms:.1f} ms' for ms, n in lo))

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
                cells += ([f"{rate(c):.6g}", f"{c['median_ms']:.4f}", f"{c['cv']:.5f}"] if rate(c) else ['', '', ''])
            f.write(n + '\t' + '\t'.join(cells) + '\n')
    with open('data/moved-alone.tsv', 'w') as f:
        f.write('call\tbinary\tpass\tcase\trate_per_s\tmedian_ms\tworkgroups\n')
        runs = [('3', b, p, f'x-c/{b}-{p}.json.gz') for p in (1, 2) for b in BINS]
        runs += [('4', b, p, f'x-d/{b}-cases-{p}.json.gz') for p in (1, 2) for b in ('head', 'nospare')]
        for call, b, p, path in runs:
            for n, c in by_name(path).items():
                f.write(f"{call}\t{b}\t{p}\t{n}\t{rate(c):.6g}\t{c['median_ms']:.4f}\t{c['dispatch']['count']}\n")

{'phases': phases, 'rates': rates, 'moved': moved, 'spare': spare, 'short': short,
 'export': export}[sys.argv[1]]()
