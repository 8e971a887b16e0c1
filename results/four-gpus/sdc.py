#!/usr/bin/env python3
"""Issue 63 on four H200s: the corruption screen's 14 cases in every run of the full --all-devices
screens of results/half-the-time-13/ (callN-BIN-all-gpuK.json.gz in the folder given, not kept:
3.3 MB each): their outcome, the results checked, the mismatches and the transcendental chains'
fingerprint, per run; prints sdc.txt."""
import glob
import gzip
import json
import os
import sys

total_checked = total_mismatches = 0
fingerprints = set()
print(f"{'run':<22}{'GPU (Vulkan UUID)':<40}{'cases':>6}{'clean':>6}{'checked':>10}{'mismatches':>11}  fingerprint")
for path in sorted(glob.glob(f"{sys.argv[1]}/call*-all-gpu*.json.gz")):
    with gzip.open(path) as f:
        run = json.load(f)
    sdc = [c for c in run["cases"] if c["family"] == "sdc"]
    clean = sum(c["status"] == "ok" for c in sdc)
    checked = sum((c.get("faults") or {}).get("checked", 0) for c in sdc)
    mismatches = sum((c.get("faults") or {}).get("mismatches", 0) for c in sdc)
    prints = {(c.get("faults") or {}).get("fingerprint") for c in sdc} - {None}
    fingerprints |= prints
    total_checked += checked
    total_mismatches += mismatches
    name = os.path.basename(path)[: -len(".json.gz")]
    shown = ", ".join(f"{p:#010x}" for p in sorted(prints))
    print(f"{name:<22}{run['device']['uuid']:<40}{len(sdc):>6}{clean:>6}{checked:>10.3g}{mismatches:>11}  {shown}")
shown = ", ".join(f"{p:#010x}" for p in sorted(fingerprints))
print(f"\nin all: {total_checked:.3g} results checked, {total_mismatches} mismatches; fingerprints: {shown}")
