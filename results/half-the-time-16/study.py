#!/usr/bin/env python3
"""Issue 61, sixteenth step: tables from the two calls' records (not kept: 3 MB each).

study.py CALL1_DIR CALL2_DIR [setup|dispatch|standing]  writes data/setup-parts.tsv.gz and
data/dispatch-rates.tsv and prints setup.txt's, dispatch.txt's and standing.txt's tables;
study.py CALL3_DIR CALL4_DIR early  prints early.txt's (see README.md)."""
import collections, gzip, json, statistics, sys

call1, call2 = sys.argv[1:3]
load = lambda p: json.load(gzip.open(p))
out = sys.argv[3] if len(sys.argv) > 3 else 'all'

def setup():
    """Where the first full run's setup goes: the setup log's allocations, fills and copies."""
    run = load(f'{call1}/full-1.json.gz')
    family = {r['name']: r['family'] for r in run['cases']}
    setup_ms = {r['name']: r['phases']['setup_ms'] for r in run['cases']}
    parts = collections.defaultdict(collections.Counter)
    case = None
    for line in gzip.open(f'{call1}/full-1.stderr.gz', 'rt'):
        if not line.startswith('SETUP\t'):
            continue
        _, what, name, size, ms = line.rstrip('\n').split('\t')
        if what == 'case':
            case = name
            continue
        parts[case][what] += float(ms)
        parts[case][what + ' bytes'] += int(size)
    with gzip.open('data/setup-parts.tsv.gz', 'wt') as f:
        f.write('case\tfamily\tsetup_ms\talloc_ms\tfill_ms\tfill_bytes\tzero_ms\tcopy_ms\n')
        for name, p in parts.items():
            f.write(f"{name}\t{family.get(name, '')}\t{setup_ms.get(name, 0):.3f}\t{p['alloc']:.3f}\t"
                    f"{p['fill']:.3f}\t{p['fill bytes']}\t{p['zero']:.3f}\t{p['copy']:.3f}\n")
    total = sum(setup_ms.values()) / 1e3
    print(f"call 1, full-1 (a first run, d706ae2 with setuplog.patch): wall {run['wall_s']:.1f} s, "
          f"setup summed over the cases {total:.2f} s")
    by = collections.defaultdict(collections.Counter)
    for name, p in parts.items():
        by[family.get(name, '?')].update({k: v for k, v in p.items() if not k.endswith('bytes')})
    logged = collections.Counter()
    for c in by.values():
        logged.update(c)
    print(f"  logged: allocation {logged['alloc'] / 1e3:.2f} s, fills {logged['fill'] / 1e3:.2f} s, "
          f"zeroing {logged['zero'] / 1e3:.2f} s, copies {logged['copy'] / 1e3:.2f} s")
    print('  family      alloc   fill   copy  (s)')
    for f, c in sorted(by.items(), key=lambda x: -sum(x[1].values())):
        if sum(c.values()) > 50:
            print(f"  {f:10s} {c['alloc'] / 1e3:6.2f} {c['fill'] / 1e3:6.2f} {c['copy'] / 1e3:6.2f}")
    print('  the largest, ms: setup = allocation + fill (GB/s) + copy')
    top = sorted(parts.items(), key=lambda x: -setup_ms.get(x[0], 0))[:20]
    for name, p in top:
        rate = p['fill bytes'] / p['fill'] / 1e6 if p['fill'] > 1 else 0
        print(f"  {setup_ms.get(name, 0):7.1f} = {p['alloc']:6.1f} + {p['fill']:6.1f} ({rate:4.1f}) + "
              f"{p['copy']:4.1f}  {name}")

def dispatch():
    """The dispatch family's rates, run by run, in both calls."""
    runs = [(1, t) for t in ['dispatch-1', 'dispatch-2', 'atomic-dispatch', 'sweep-dispatch',
                             'host-dispatch', 'full-1', 'dispatch-3']]
    runs += [(2, t) for t in ['full-1', 'full-2'] + [f'barrier-{k:02}' for k in range(1, 13)]]
    rows = []
    print('call run               direct  barrier  indirect  barrier   (k dispatches/s; ns each; cv %)')
    for call, tag in runs:
        cases = {r['name']: r for r in load(f"{(call1, call2)[call - 1]}/{tag}.json.gz")['cases']
                 if r['family'] == 'dispatch' and r.get('rate')}
        cells = []
        for name in ['Dispatch direct', 'Dispatch direct, barrier between', 'Dispatch indirect',
                     'Dispatch indirect, barrier between']:
            r = cases.get(name)
            if r is None:
                cells.append(f"{'':>21s}")
                continue
            rate = r['rate']['value']
            rows.append((call, tag, name, rate, r['cv']))
            cells.append(f"{rate / 1e3:6.1f} {1e9 / rate:6.1f} {r['cv'] * 100:3.1f}")
        print(f"{call:4d} {tag:16s} " + ' | '.join(cells))
    with open('data/dispatch-rates.tsv', 'w') as f:
        f.write('call\trun\tcase\trate_per_s\tcv\n')
        for call, tag, name, rate, cv in rows:
            f.write(f'{call}\t{tag}\t{name}\t{rate:.1f}\t{cv:.5f}\n')

def standing():
    """Call 2: the issue's commands at d706ae2, one cache home throughout."""
    for tag in ['full-1', 'full-2']:
        run = load(f'{call2}/{tag}.json.gz')
        ph = collections.Counter()
        for r in run['cases']:
            ph.update(r['phases'])
        sdc = sum(r['phases']['total_ms'] for r in run['cases'] if r['family'] == 'sdc') / 1e3
        busy = ph['samples_gpu_ms'] / 1e3 / run['wall_s']
        print(f"{tag}: wall {run['wall_s']:.1f} s, busy {busy:.0%}, less the SDC family {run['wall_s'] - sdc:.1f} s; "
              f"setup {ph['setup_ms'] / 1e3:.2f}, scaling {ph['scale_ms'] / 1e3:.2f}, samples {ph['samples_ms'] / 1e3:.2f} "
              f"(GPU {ph['samples_gpu_ms'] / 1e3:.2f}), freeing {ph['free_ms'] / 1e3:.2f} s")
        gaps = sorted((r['phases']['samples_ms'] - r['phases']['samples_gpu_ms']) / len(r['samples_ms'])
                      for r in run['cases'] if r.get('samples_ms'))
        n = sum(len(r['samples_ms']) for r in run['cases'] if r.get('samples_ms'))
        total = sum((r['phases']['samples_ms'] - r['phases']['samples_gpu_ms']) for r in run['cases'] if r.get('samples_ms'))
        disp = sum((r['phases']['samples_ms'] - r['phases']['samples_gpu_ms']) for r in run['cases']
                   if r['family'] == 'dispatch')
        print(f"  samples {n}: wall beyond their GPU time {total / 1e3:.2f} s ({disp / 1e3:.2f} s the dispatch family's); "
              f"per sample, median over cases {gaps[len(gaps) // 2]:.3f} ms, 90th percentile {gaps[9 * len(gaps) // 10]:.3f} ms")
    print(open(f'{call2}/times.txt').read().rstrip())

def early():
    """Calls 3 and 4: early.patch ("early") against d706ae2 ("head"), full runs and --verify."""
    pass_name = 'SDC memory moving inversions, free memory'
    for call, where in [(3, call1), (4, call2)]:
        runs = {t: load(f'{where}/{t}.json.gz') for t in
                ['full-1-early', 'full-1-head', 'full-2-early', 'full-2-head', 'verify-early']}
        for tag, run in runs.items():
            cases = run['cases']
            names = [c['name'] for c in cases]
            at = names.index(pass_name)
            p = cases[at]['phases']
            window = sum(c['phases']['total_ms'] for c in cases[at - 64:at]) / 1e3
            noted = [n for n in cases[at].get('notes') or [] if 'early' in n]
            print(f"call {call} {tag:13s} wall {run['wall_s']:6.1f} s; the pass: setup {p['setup_ms'] / 1e3:.2f} s, "
                  f"whole {p['total_ms'] / 1e3:.2f} s; the 64 cases before it {window:.2f} s; {noted}")
        for kind in ['1', '2']:
            a, b = runs[f'full-{kind}-early'], runs[f'full-{kind}-head']
            ra = {c['name']: c['rate']['value'] for c in a['cases'] if c.get('rate')}
            rb = {c['name']: c['rate']['value'] for c in b['cases'] if c.get('rate')}
            ratios = [ra[n] / rb[n] for n in ra if n in rb and rb[n] > 0]
            within = sum(abs(r - 1) <= 0.02 for r in ratios)
            print(f"call {call} full-{kind}: rates early/head, median ratio {statistics.median(ratios):.5f}, "
                  f"{within} of {len(ratios)} within 2%")
        slow = [c for c in runs['full-1-early']['cases'] if c['name'] == 'Instr fp32 max latency'][0]
        print(f"call {call} full-1-early, Instr fp32 max latency: {slow.get('notes')}")

{'setup': setup, 'dispatch': dispatch, 'standing': standing, 'early': early}.get(out, lambda: [setup(), dispatch(), standing()])()
