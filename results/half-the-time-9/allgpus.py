#!/usr/bin/env python3
"""Each worker's phases of an --all-devices screen, from its record: `allgpus.py all-gpu*.json`."""
import json
import sys
from collections import Counter

for path in sys.argv[1:]:
    run = json.load(open(path))
    phases, families, free = Counter(), Counter(), None
    for case in run["cases"]:
        p = case.get("phases") or {}
        for k, v in p.items():
            phases[k] += v or 0
        families[case["family"]] += p.get("setup_ms") or 0
        if "free memory" in case["name"]:
            free = p
    print(f"{path}: wall {run['wall_s']:.1f} s; summed over the cases: "
          + ", ".join(f"{k[:-3]} {v / 1e3:.1f} s" for k, v in phases.items() if v > 100))
    print("  setup per family: " + ", ".join(f"{k} {v / 1e3:.2f}" for k, v in families.most_common(7)))
    print(f"  the SDC free-memory pass: setup {free['setup_ms'] / 1e3:.2f} s, samples {free['samples_ms'] / 1e3:.2f} s, "
          f"the whole case {free['total_ms'] / 1e3:.2f} s")
