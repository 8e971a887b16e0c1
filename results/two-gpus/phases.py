#!/usr/bin/env python3
"""results/two-gpus/phases.py: the phase table of the full runs of call.sh (one.json,
both-gpu1.json, both-gpu2.json in the folder given), summed over the cases, in seconds."""
import json
import sys

folder = sys.argv[1] if len(sys.argv) > 1 else "."
names = {"one.json": "first GPU alone", "both-gpu1.json": "both: GPU 1", "both-gpu2.json": "both: GPU 2"}
rows = ["setup_ms", "scale_ms", "warm_ms", "samples_ms", "samples_gpu_ms", "rewarm_ms", "remeasure_ms", "total_ms"]
runs = {n: json.load(open(f"{folder}/{f}")) for f, n in names.items()}
print("| phase | " + " | ".join(runs) + " |")
print("|---|" + "---|" * len(runs))
for row in rows:
    sums = [sum((c.get("phases") or {}).get(row, 0) for c in r["cases"]) / 1000 for r in runs.values()]
    print(f"| {row[:-3].replace('_', ' ')} | " + " | ".join(f"{s:.1f}" for s in sums) + " |")
print("| wall | " + " | ".join(f"{r['wall_s']:.1f}" for r in runs.values()) + " |")
busy = [sum((c.get("phases") or {}).get("samples_gpu_ms", 0) for c in r["cases"]) / 10 / r["wall_s"] for r in runs.values()]
print("| GPU busy with samples | " + " | ".join(f"{b:.0f}%" for b in busy) + " |")
print("| cases | " + " | ".join(str(len(r["cases"])) for r in runs.values()) + " |")
