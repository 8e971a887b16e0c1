#!/usr/bin/env python3
"""tools/scale-reference.py IN OUT FACTOR: writes OUT, the reference IN (`perftest fleet
--write-reference`) with every case's median times FACTOR: with 10, a reference no GPU can meet,
with which ci/slurm.sh and results/fleetday/run.sh make a health check fail on purpose."""
import json
import sys

source, target, factor = sys.argv[1], sys.argv[2], float(sys.argv[3])
with open(source) as f:
    reference = json.load(f)
for model in reference["models"]:
    for case in model["cases"]:
        case["median"] *= factor
with open(target, "w") as f:
    json.dump(reference, f, indent=1)
