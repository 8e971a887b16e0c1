#!/usr/bin/env python3
"""interference.py TOGETHER-gpuN.json ALONE-gpuN.json [...]: how each family's rates moved when
the GPUs ran at once (--all-devices) against each alone (--one-at-a-time), per GPU: the median
change and how many cases moved by more than 1%; then, as the baseline of run-to-run variation,
the same count between the two GPUs' runs alone.

Pass the files in order: together-gpu1, alone-gpu1, together-gpu2, alone-gpu2, ...
"""
import collections
import json
import statistics
import sys


def rates(path):
    run = json.load(open(path))
    return {c["name"]: c for c in run["cases"] if c["status"] == "ok" and c.get("rate")}


def moved(a, b):
    """Per family: the changes of b's rates against a's, for the cases both timed."""
    out = collections.defaultdict(list)
    for name, case in b.items():
        if name in a:
            out[case["family"]].append(case["rate"]["value"] / a[name]["rate"]["value"] - 1)
    return out


def main(paths):
    pairs = [(rates(paths[i]), rates(paths[i + 1])) for i in range(0, len(paths), 2)]
    per_gpu = [moved(alone, together) for together, alone in pairs]
    baseline = moved(pairs[0][1], pairs[1][1]) if len(pairs) > 1 else {}
    header = " | ".join(f"GPU {i + 1} median, >1%" for i in range(len(pairs)))
    print(f"| family | cases | {header} | GPU 2 against GPU 1, both alone: >1% |")
    print("|---|---|" + "---|" * len(pairs) + "---|")
    for family in sorted(per_gpu[0]):
        cells = []
        for changes in per_gpu:
            v = changes.get(family, [])
            big = sum(1 for c in v if abs(c) > 0.01)
            cells.append(f"{statistics.median(v) * 100:+.2f}%, {big}" if v else "-")
        base = baseline.get(family, [])
        base_big = sum(1 for c in base if abs(c) > 0.01)
        print(f"| {family} | {len(per_gpu[0][family])} | " + " | ".join(cells) + f" | {base_big} |")


if __name__ == "__main__":
    if len(sys.argv) < 3 or len(sys.argv) % 2 == 0:
        sys.exit(__doc__)
    main(sys.argv[1:])
