#!/usr/bin/env python3
"""study.py runs | study.py ab DIR

runs: from data/runlog.tsv.gz (every timed run of a logged lavapipe run, runlog.sh) and
data/logged-cases.tsv.gz (that run's record: each case's warm-up runs, samples and median), where
a lavapipe run's scaling and warm-up go, and what other warm-up rules would have cost and given,
replayed on the same runs (runs.txt).

ab DIR TAG: the four full runs of ab.sh in DIR (head1, TAG1, head2, TAG2; records not kept: 2 MB
each; TAG: unguarded, ontarget, repeated): wall, phases, samples, noise, statuses and rates, and data/ab-TAG.tsv.gz (each timed case's
samples, median, cv and warm-up runs in each run) (ab-TAG.txt)."""
import collections, gzip, json, math, statistics, sys

LEAST, MOST, SPREAD, SETTLED = 3, 5, 0.003, 0.02  # a CPU implementation's sampling (f97c4fa)


def table(path):
    with gzip.open(path, 'rt') as f:
        head = f.readline().rstrip('\n').split('\t')
        return [dict(zip(head, line.rstrip('\n').split('\t'))) for line in f]


def take(stream):
    """The samples the converging rule takes from `stream`, and whether it stopped by itself."""
    out = []
    for ms in stream:
        out.append(ms)
        if len(out) >= MOST:
            return out, True
        if len(out) >= LEAST and statistics.stdev(out) / statistics.mean(out) / math.sqrt(len(out)) <= SPREAD:
            return out, True
    return out, False


def agreeing_start(ms, first, band):
    """Where samples start under the warm-up rule that waits until a run agrees within `band` with
    one of the two before it (from `first`, the first run at the final size): the run it agreed
    with where that was the one just before, else itself."""
    for k in range(first + 1, len(ms)):
        if abs(ms[k] / ms[k - 1] - 1) <= band:
            return k - 1
        if k - 2 >= first and abs(ms[k] / ms[k - 2] - 1) <= band:
            return k
    return None


def runs():
    log = collections.defaultdict(list)
    for row in table('data/runlog.tsv.gz'):
        log[row['case']].append((int(row['groups']), float(row['gpu_ms'])))
    cases = table('data/logged-cases.tsv.gz')
    print(f"{len(cases)} timed cases, {sum(len(v) for v in log.values())} runs, "
          f"{sum(ms for v in log.values() for _, ms in v) / 1e3:.1f} s of GPU time (lavapipe's)")
    # Each case's first run, at one workgroup: lavapipe builds the shader's machine code there.
    by_family = collections.defaultdict(list)
    cases = [c for c in cases if log.get(c['case'])]  # the trains of `dispatch` are timed otherwise
    for c in cases:
        seq = log[c['case']]
        again = seq[1][1] if len(seq) > 1 and seq[1][0] == seq[0][0] else None
        by_family[c['family']].append((seq[0][1], again))
    print("\nthe first run of each case (one workgroup), by family, largest sum first:")
    print("family        cases  sum s  median ms  the same count again, median ms")
    for family, v in sorted(by_family.items(), key=lambda kv: -sum(x[0] for x in kv[1])):
        again = [x[1] for x in v if x[1] is not None]
        print(f"{family:12s} {len(v):6d} {sum(x[0] for x in v) / 1e3:6.2f} {statistics.median(x[0] for x in v):10.2f}  "
              + (f"{statistics.median(again):.2f} ({len(again)} cases)" if again else "-"))
    # Runs at the final size before the samples, and the second against the first there.
    at_final, second = collections.Counter(), []
    rules = collections.defaultdict(lambda: {'saved': 0.0, 'ratios': [], 'open': 0})
    replayed = 0
    for c in cases:
        seq, w, s = log[c['case']], int(c['warmup_runs']), int(c['samples'])
        # Only cases measured once (no retry): their runs are the warm-up's and the samples, the
        # one or two that settled the warm-up counted in both.
        if len(seq) not in (w + s - 2, w + s - 1):
            continue
        replayed += 1
        ms = [x[1] for x in seq]
        final = seq[-1][0]
        first = next(i for i, x in enumerate(seq) if x[0] == final)
        before = len(seq) - s
        at_final[before - first] += 1
        if first + 1 < len(ms):
            second.append(ms[first + 1] / ms[first] - 1)
        starts = {'on target (the first run at the final size)': first,
                  'agreeing within 2% (the rule as it was)': agreeing_start(ms, first, 0.02),
                  'agreeing within 5%': agreeing_start(ms, first, 0.05),
                  'one run after the first on target': first + 1,
                  'the first on target if the next agrees within 2%, else the next':
                      first if first + 1 < len(ms) and abs(ms[first + 1] / ms[first] - 1) <= SETTLED else first + 1}
        for rule, start in starts.items():
            start = before if start is None else start
            samples, stopped = take(ms[start:])
            rules[rule]['open'] += not stopped
            rules[rule]['saved'] += sum(ms[start + len(samples):])
            rules[rule]['ratios'].append(statistics.median(samples) / float(c['median_ms']))
    second.sort()
    # The first run at the final size against the median of the case's samples.
    first_off = sorted(log[c['case']][next(i for i, x in enumerate(log[c['case']]) if x[0] == log[c['case']][-1][0])][1]
                       / float(c['median_ms']) - 1 for c in cases)
    q = lambda v, p: v[round(p * (len(v) - 1))]
    print(f"\n{replayed} cases measured once (no retry) replayed")
    print("runs at the final size spent waiting (no samples): "
          + ", ".join(f"{k}: {v}" for k, v in sorted(at_final.items())))
    print(f"the second run at the final size against the first: median {statistics.median(second):+.4f}, "
          f"5/25/75/95th percentiles {q(second, .05):+.4f} {q(second, .25):+.4f} {q(second, .75):+.4f} "
          f"{q(second, .95):+.4f}; first slower by more than 2%: {sum(x < -SETTLED for x in second) / len(second):.0%}, "
          f"faster: {sum(x > SETTLED for x in second) / len(second):.0%}")
    print(f"the first run at the final size against the case's median: median {statistics.median(first_off):+.4f}, "
          f"5/25/75/95th percentiles {q(first_off, .05):+.4f} {q(first_off, .25):+.4f} {q(first_off, .75):+.4f} "
          f"{q(first_off, .95):+.4f}")
    print("\nwarm-up rules replayed on the same runs (samples taken by the converging rule from where each "
          "starts; 'saved' is the GPU time of the logged runs it would not have needed; 'ran out': the "
          "log ended before the rule stopped, so its cost is understated)")
    print("rule                                          saved s  median ratio  within 2%  within 5%  5th   95th  ran out")
    for rule, v in rules.items():
        r = sorted(v['ratios'])
        print(f"{rule:45s} {v['saved'] / 1e3:7.1f}  {statistics.median(r):12.4f}  {sum(abs(x - 1) <= .02 for x in r):9d}  "
              f"{sum(abs(x - 1) <= .05 for x in r):9d}  {q(r, .05):.3f} {q(r, .95):.3f} {v['open']:6d}")


def ab(where, new):
    tags = ['head1', f'{new}1', 'head2', f'{new}2']
    timed = {}
    with gzip.open(f'data/ab-{new}.tsv.gz', 'wt') as out:
        out.write('run\tcase\tsamples\tmedian_ms\tcv\twarmup_runs\n')
        for tag in tags:
            run = json.load(open(f'{where}/{tag}.json'))
            phases = collections.Counter()
            for case in run['cases']:
                phases.update(case.get('phases') or {})
            cases = [c for c in run['cases'] if c.get('samples_ms')]
            timed[tag] = {c['name']: c for c in cases}
            for c in cases:
                out.write(f"{tag}\t{c['name']}\t{len(c['samples_ms'])}\t{c['median_ms']:.6f}\t{c['cv']:.6f}\t{c['warmup_runs']}\n")
            runs = sum(c['warmup_runs'] for c in cases)
            print(f"{tag:9s}: wall {run['wall_s']:6.1f} s; scaling {phases['scale_ms'] / 1e3:5.1f}, warm-up "
                  f"{phases['warm_ms'] / 1e3:5.1f}, samples {phases['samples_ms'] / 1e3:6.1f}, re-measuring "
                  f"{phases['remeasure_ms'] / 1e3:4.1f} s; warm-up runs {runs}; median cv "
                  f"{statistics.median(c['cv'] for c in cases):.4f}, {sum(c['cv'] > 0.03 for c in cases)} noisy "
                  f"(cv above 3%); samples a case {statistics.mean(len(c['samples_ms']) for c in cases):.2f}; "
                  f"{sum((c.get('dispatch') or {}).get('count') == 1 for c in cases)} timed at one workgroup; statuses "
                  f"{dict(collections.Counter(c['status'] for c in run['cases']))}")

    def against(a, b):
        ra, rb = timed[a], timed[b]
        ratios = [rb[n]['rate']['value'] / ra[n]['rate']['value'] for n in ra
                  if n in rb and ra[n].get('rate') and rb[n].get('rate') and ra[n]['rate']['value'] > 0]
        return (f"median {statistics.median(ratios):.4f}, {sum(abs(r - 1) <= 0.02 for r in ratios)} within 2%, "
                f"{sum(abs(r - 1) <= 0.05 for r in ratios)} within 5% of {len(ratios)}")

    for a, b in [('head1', f'{new}1'), ('head2', f'{new}2'), ('head1', 'head2'), (f'{new}1', f'{new}2')]:
        print(f"rates {b} against {a}: {against(a, b)}")


if __name__ == '__main__':
    {'runs': lambda: runs(), 'ab': lambda: ab(sys.argv[2], sys.argv[3])}[sys.argv[1]]()
