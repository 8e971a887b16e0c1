#!/usr/bin/env python3
"""results/sdc/free.py DIR: the free-memory table of results/sdc/README.md from one memory.sh call
(DIR/runs.txt, clean.json, and stuck.jsonl: each stuck run's case): the default screen's memory pass (what it covered, its rate),
then each stuck bit injected at a random word of the pass: the word and bit, the exit code, the
mismatches, whether every record names that word with only that bit flipped, and the wall time
of the whole command (device, allocation, passes)."""
import json
import re
import sys
from pathlib import Path

d = Path(sys.argv[1])
FREE = "SDC memory moving inversions, free memory"


def case(name):
    run = json.loads((d / name).read_text())
    return next(c for c in run["cases"] if c["name"] == FREE)


# Each stuck run's free-memory case (the call's stuckN.json, its one case kept).
stuck = {}
for line in (d / "stuck.jsonl").read_text().splitlines():
    entry = json.loads(line)
    stuck[entry["run"]] = entry["case"]


runs = (d / "runs.txt").read_text().splitlines()
clean = case("clean.json")
wall = next(float(l.split()[-1]) for l in runs if l.startswith("clean "))
covers = next(n for n in clean["notes"] if "covers" in n)
print("## The memory pass over free memory\n")
print(f"Default screen (`perftest --family sdc`, all seven cases): {wall:.1f} s of wall time.")
print(f"The free-memory pass: {covers}; one pass {clean['median_ms']:.1f} ms, "
      f"{clean['rate']['value'] / 1e12:.2f} TB/s read and written; "
      f"{clean['faults']['mismatches']} of {clean['faults']['checked']:,} words differ.\n")
print("| run | word | byte, GiB | bit | exit | mismatches | records name the word and bit | wall, s |")
print("|---|---|---|---|---|---|---|---|")
for line in runs:
    m = re.match(r"stuck (\d+) word (\d+) bit (\d+) exit (\d+) wall ([\d.]+)", line)
    if not m:
        continue
    t, word, bit, code, secs = int(m[1]), int(m[2]), int(m[3]), int(m[4]), float(m[5])
    faults = stuck[t]["faults"]
    right = all(f["result"] == word and f["expected"] ^ f["observed"] == 1 << bit for f in faults["faults"])
    right = right and bool(faults["faults"])
    print(f"| {t} | {word:,} | {4 * word / 2**30:.1f} | {bit} | {code} | {faults['mismatches']} | "
          f"{'yes' if right else 'no'} | {secs:.1f} |")
