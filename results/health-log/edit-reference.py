#!/usr/bin/env python3
"""results/health-log/edit-reference.py REFERENCE OUT: writes, from a node's own reference,
OUT/differs.json (every case's median 1.5% higher: the node 1.5% slower, within the 2% tolerance),
OUT/slow.json (every median 5% higher: the node 5% slow, as a GPU held back by its clock or power
is), OUT/wide.json (every case's spread a tenth of its median: no slowdown past the tolerance can
be told), and OUT/without-cases.json (the cases renamed: a reference made by another selection
or perftest)."""
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


edited("differs", lambda c: c.update(median=c["median"] * 1.015))
edited("slow", lambda c: c.update(median=c["median"] * 1.05))
edited("wide", lambda c: c.update(spread=c["spread"] + abs(c["median"]) * 0.10))
edited("without-cases", lambda c: c.update(case="Retired " + c["case"]))
