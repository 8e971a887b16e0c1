#!/usr/bin/env python3
"""results/health-log/edit-reference.py REFERENCE OUT: writes, from a node's own reference,
OUT/differs.json (every case's median 1% higher: the node 1% slower, within the 2% tolerance),
OUT/slow.json (the ALU cases' medians 10% higher: slow in one family), OUT/noisy.json (every
case's spread 100 times wider: no difference can be told), and OUT/without-cases.json (the
cases renamed: a reference made by another selection or perftest)."""
import copy
import json
import sys

source, out = sys.argv[1], sys.argv[2]
reference = json.load(open(source))


def edited(name, change):
    made = copy.deepcopy(reference)
    for model in made["models"]:
        for case in model["cases"]:
            change(case)
    with open(f"{out}/{name}.json", "w") as f:
        json.dump(made, f, indent=1)


edited("differs", lambda c: c.update(median=c["median"] * 1.01))
edited("slow", lambda c: c.update(median=c["median"] * (1.10 if c["case"].startswith("ALU") else 1.0)))
edited("noisy", lambda c: c.update(spread=c["spread"] * 100 + abs(c["median"]) * 0.05))
edited("without-cases", lambda c: c.update(case="Retired " + c["case"]))
