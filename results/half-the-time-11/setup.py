#!/usr/bin/env python3
"""Setup before and after the kept staging buffer, from the runs' records: `setup.py DIR` (the
records staging.sh left: full-1-before.json, full-2-after.json, quick-*.json). Setup summed per
run and per family, the cases whose setup moved most, and the rates' median ratio."""
import json
import statistics
import sys
from collections import Counter

d = sys.argv[1]


def load(name):
    return json.load(open(f"{d}/{name}"))["cases"]


def setup(case):
    return (case.get("phases") or {}).get("setup_ms") or 0


for name in ["full-1-before.json", "full-2-after.json", "quick-1-before.json", "quick-1-after.json",
             "quick-2-before.json", "quick-2-after.json"]:
    cases = load(name)
    families = Counter()
    for c in cases:
        families[c["family"]] += setup(c)
    free = sum(setup(c) for c in cases if "free memory" in c["name"])
    total = sum(families.values())
    print(f"{name:22} setup {total / 1e3:5.2f} s, without the SDC free-memory pass {(total - free) / 1e3:5.2f} s: "
          + " ".join(f"{k} {v / 1e3:.2f}" for k, v in families.most_common(8)))

before = {c["name"]: c for c in load("full-1-before.json")}
after = {c["name"]: c for c in load("full-2-after.json")}
moved = sorted((setup(after[n]) - setup(c), n, setup(c), setup(after[n])) for n, c in before.items() if n in after)
print("\nsetup per case, ms, before -> after (the 12 that fell most, the 4 that rose most)")
for delta, name, a, b in moved[:12] + moved[-4:]:
    print(f"  {delta:+8.1f} {a:8.1f} -> {b:8.1f}  {name}")
ratios = [before[n]["median_ms"] / after[n]["median_ms"] for n in before
          if n in after and before[n].get("median_ms") and after[n].get("median_ms")]
within = sum(abs(r - 1) <= 0.02 for r in ratios)
print(f"\nrates, after against before: median ratio {statistics.median(ratios):.5f} over {len(ratios)} cases, "
      f"{within} within 2%")
