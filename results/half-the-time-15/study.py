#!/usr/bin/env python3
"""Issue 61, fifteenth step: where a first run's scaling aims from, measured.

`study.py RECORDS_DIR...` prints, for each full run whose record (`*.json.gz`, written by aim.sh or
runlog.sh) is in a folder given: its wall, the cases' scaling and samples, where its counts
landed against the 20 ms target, and its rates against the 1/40 run of the same call. Then, from
the scaling logs kept in data/ (one line per run of a case: name, workgroups, GPU ms, wall ms),
where each case's first aimed run landed, and where it would have landed had the prediction
left out the one-workgroup run's time (a fixed cost per run; modelled, not built).
"""
import collections, glob, gzip, json, os, statistics as st, sys

T = 20.0
BINS = [(0, 0.8), (0.8, 0.9), (0.9, 0.95), (0.95, 1.05), (1.05, 1.25), (1.25, 99)]


def bins(xs):
    return ' '.join('%s-%s:%d' % (a, b, sum(a <= x < b for x in xs)) for a, b in BINS)


def aim_of(tag):
    return 40 if '-log-' in tag else int(tag.split('-aim')[1].split('-')[0])


def records(folders):
    print('full default runs, one H200, each from an empty cache home: wall, and wall less the SDC family')
    print('(the issue\'s 1,533 cases); the cases\' phases summed, s;')
    print('each case\'s median sample against the 20 ms target (below 0.8 or over 1.25 are off the band)')
    print('%-14s %4s %6s %6s %6s %7s %6s  %s' % ('run', 'aim', 'wall', 'no sdc', 'scale', 'samples', 'mean',
                                                'median sample / target'))
    for folder in folders:
        runs = {}
        for f in sorted(glob.glob(os.path.join(folder, '*.json.gz'))):
            tag = os.path.basename(f).split('.')[0]
            d = json.load(gzip.open(f))
            cs = [c for c in d['cases'] if c.get('phases')]
            ph = lambda k: sum(c['phases'].get(k, 0) for c in cs) / 1e3
            med = [c['median_ms'] for c in cs if c.get('median_ms')]
            sdc = sum(c['phases'].get('total_ms', 0) for c in cs if c['family'] == 'sdc') / 1e3
            print('%-14s 1/%-3d %6.1f %6.1f %6.2f %7.1f %6.2f  %s' % (tag, aim_of(tag), d['wall_s'], d['wall_s'] - sdc, ph('scale_ms'),
                  ph('samples_ms'), st.mean(med), bins([m / T for m in med])))
            runs[tag] = {c['name']: c for c in d['cases'] if c.get('rate')}
        base = [t for t in runs if aim_of(t) == 40][:1]
        for tag, cases in runs.items():
            if not base or tag == base[0]:
                continue
            rs = [c['rate']['value'] / runs[base[0]][n]['rate']['value'] for n, c in cases.items() if n in runs[base[0]]]
            print('  rates of %s against %s: median ratio %.5f, %d of %d within 2%%' % (
                tag, base[0], st.median(rs), sum(abs(r - 1) <= 0.02 for r in rs), len(rs)))
    print()


def scaling_logs():
    print('each case\'s first aimed run (the run after the first that took 1/AIM of the target or more),')
    print('its time against the target; "less one group": the count aimed with the one-workgroup run\'s')
    print('time taken off both sides, its time modelled in proportion from the aimed run\'s')
    for f in sorted(glob.glob(os.path.join(os.path.dirname(__file__) or '.', 'data', '*-runs.tsv.gz'))):
        tag = os.path.basename(f)[:-len('-runs.tsv.gz')]
        d = aim_of(tag)
        seqs, last = collections.OrderedDict(), None
        for line in gzip.open(f, 'rt'):
            name, g, ms, wall = line.rstrip('\n').split('\t')
            if name != last:
                key = name if name not in seqs else name + '#'
                seqs.setdefault(key, [])
                last = name
            seqs[key].append((int(g), float(ms), float(wall)))
        now, less = [], []
        for key, runs in seqs.items():
            if key.endswith('#') or runs[0][0] != 1:
                continue
            one = runs[0][1]
            for i, (g, ms, _) in enumerate(runs[:-1]):
                if ms >= T / d:
                    g2, t2, _ = runs[i + 1]
                    if one < ms and g2 != g:
                        now.append(t2 / T)
                        less.append(t2 * (g * (T - one) / (ms - one)) / g2 / T)
                    break
        print('%-22s 1/%-3d %4d cases  as run: median %.3f  %s' % (tag, d, len(now), st.median(now), bins(now)))
        print('%-22s %5s %10s  less one group: median %.3f  %s' % ('', '', '', st.median(less), bins(less)))


if __name__ == '__main__':
    if sys.argv[1:]:
        records(sys.argv[1:])
    scaling_logs()
