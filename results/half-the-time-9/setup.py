#!/usr/bin/env python3
"""Setup summed per family and the cases whose setup moved most, from full-run records
(perftest --json): `setup.py BEFORE.json... -- AFTER.json...`. Prints setup.txt's tables."""
import json
import sys
from collections import Counter

args = sys.argv[1:]
cut = args.index("--")
groups = {"before": args[:cut], "after": args[cut + 1:]}


def setup(path):
    return {c["name"]: (c["family"], (c.get("phases") or {}).get("setup_ms") or 0.0)
            for c in json.load(open(path))["cases"]}


runs = {g: [setup(p) for p in paths] for g, paths in groups.items()}
print("setup summed over each run's cases, s (per family: the largest)")
for g, rs in runs.items():
    for path, r in zip(groups[g], rs):
        fam = Counter()
        for family, ms in r.values():
            fam[family] += ms
        free = sum(ms for n, (_, ms) in r.items() if "free memory" in n)
        print(f"{g:6} {path:28} total {sum(fam.values()) / 1e3:6.2f}, without the SDC free-memory pass "
              f"{(sum(fam.values()) - free) / 1e3:5.2f}: "
              + " ".join(f"{k} {v / 1e3:.2f}" for k, v in fam.most_common(8)))
print("\nmean setup per case, ms, before -> after (the 14 that moved most each way)")
names = runs["before"][0].keys()
mean = {g: {n: sum(r[n][1] for r in rs) / len(rs) for n in names} for g, rs in runs.items()}
moved = sorted(names, key=lambda n: mean["after"][n] - mean["before"][n])
for n in moved[:14] + moved[-14:]:
    b, a = mean["before"][n], mean["after"][n]
    print(f"{a - b:+8.1f}  {b:7.1f} -> {a:7.1f}  {n}")
