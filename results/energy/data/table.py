#!/usr/bin/env python3
"""results/energy/data/table.py: the level-by-data table of one sitting, perftest --energy against
the CUDA mirror (mirror.cu), from a sitting's folder: data.txt (perftest's text, its per-case
energy table), copy.txt and coopmat.txt (the same of the host-to-device copies, from the fourth
sitting on, and of the tensor cores, from the fifth) and
mirror.txt (the CUDA program's lines). Prints Markdown.

Usage: python3 results/energy/data/table.py results/energy/data/h200-3 [--above]
"""
import os
import re
import sys

DATA = ["default", "zeros", "constant", "random"]
SUFFIX = {" on zeros": "zeros", " on a constant": "constant", " on random data": "random"}


def base_and_data(name):
    """`Sweep SSBO vec4 linear on zeros 8 MiB` -> (`Sweep SSBO vec4 linear 8 MiB`, `zeros`)."""
    for suffix, data in SUFFIX.items():
        if suffix in name:
            return name.replace(suffix, ""), data
    return name, "default"


def perftest(path, above):
    """Board (or above-idle) picojoules per unit of each case in perftest's energy case table."""
    cells, inside = {}, False
    number = r"([\d.]+) pJ/\w+"
    for line in open(path):
        if line.strip().startswith("case") and "window" in line:
            inside = True
            continue
        m = re.match(r"\s+(.+?)\s+[\d.]+ s\s+[\d.]+%\s+\d+ W\s+" + number + r"\s+" + number, line)
        if inside and m:
            cells[base_and_data(m.group(1))] = float(m.group(3 if above else 2))
        elif inside and not line.strip():
            break
    return cells


def mirror(path, above):
    cells = {}
    for line in open(path):
        m = re.match(r"(.+?)\s+(default|zeros|constant|random)\s+\S+\s+\S+\s+\S+\s+\S+\s+(\S+)\s+(\S+)\s+\S+s$", line)
        if m:
            cells[(m.group(1).strip(), m.group(2))] = float(m.group(4 if above else 3))
    return cells


def main():
    folder, above = sys.argv[1], "--above" in sys.argv
    ours, theirs = perftest(f"{folder}/data.txt", above), mirror(f"{folder}/mirror.txt", above)
    for part in ("copy", "coopmat"):
        if os.path.exists(f"{folder}/{part}.txt"):
            ours.update(perftest(f"{folder}/{part}.txt", above))
    cases = list(dict.fromkeys(case for case, _ in theirs))
    print("| case | " + " | ".join(DATA) + " | random / zeros |")
    print("|---" * (len(DATA) + 2) + "|")
    worst = []
    for case in cases:
        cells = []
        for data in DATA:
            p, c = ours.get((case, data)), theirs.get((case, data))
            if p is None or c is None:
                cells.append("-")
                continue
            worst.append((abs(p / c - 1), case, data, p / c))
            cells.append(f"{p:.4g} / {c:.4g} ({p / c:.3f})")
        span = lambda t: t[(case, "random")] / t[(case, "zeros")]
        cells.append(f"{span(ours):.2f}x / {span(theirs):.2f}x")
        print(f"| {case} | " + " | ".join(cells) + " |")
    worst.sort(reverse=True)
    within = sum(1 for w in worst if w[0] <= 0.05)
    print(f"\n{within} of {len(worst)} cells within 5%; the farthest: "
          + ", ".join(f"{case} on {data} {ratio:.3f}" for _, case, data, ratio in worst[:3]))


if __name__ == "__main__":
    main()
