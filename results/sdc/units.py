#!/usr/bin/env python3
"""results/sdc/units.py extract RAW DIR | units.py tables DIR...: the atomics and cooperative
matrices of results/sdc/README.md, from units.sh calls. `extract` turns a call's unpacked
sdc6/ folder (RAW: every run's JSON) into DIR/cases.jsonl, a line per case and run: the run, the
case, its rate, cv, median, and its fault log's counts and named units. `tables` prints, per
call: the default screen's cases, the overhead of checking (median rate of ROUNDS runs with the
checks against ROUNDS without), the injected flips and the soak."""
import json
import statistics
import sys
from pathlib import Path


def extract(raw, into):
    into.mkdir(parents=True, exist_ok=True)
    lines = []
    for f in sorted(raw.glob("*.json")):
        run = json.loads(f.read_text())
        for c in run.get("cases") or run["devices"][0]["cases"]:
            faults = c.get("faults") or {}
            records = faults.get("faults") or []
            lines.append({
                "run": f.stem,
                "name": c["name"],
                "status": c["status"],
                "rate": (c.get("rate") or {}).get("value"),
                "unit": (c.get("rate") or {}).get("unit"),
                "cv": c.get("cv"),
                "median_ms": c.get("median_ms"),
                "checked": faults.get("checked"),
                "mismatches": faults.get("mismatches"),
                "injected": faults.get("injected"),
                "units": sorted({r["unit"] for r in records if r["unit"] is not None}),
                "first": records[0] if records else None,
            })
    (into / "cases.jsonl").write_text("".join(json.dumps(l) + "\n" for l in lines))


def tables(d):
    rows = [json.loads(l) for l in (d / "cases.jsonl").read_text().splitlines()]
    runs = {}
    for r in rows:
        runs.setdefault(r["run"], {})[r["name"]] = r
    codes = (d / "codes.txt").read_text()
    print(f"## {d.name}\n\n```\n{codes}```\n")
    print("| case | rate | checked | mismatches |\n|---|---|---|---|")
    for name, r in runs["screen"].items():
        if r["checked"] is not None:
            print(f"| {name} | {r['rate']:.4g} {r['unit']} | {r['checked']:.3g} | {r['mismatches']} |")
    rounds = sorted(k for k in runs if k.startswith("checked"))
    print(f"\nOverhead, median of {len(rounds)} runs each, alternating:\n")
    print("| case | checked | unchecked | cost of checking | spread checked, unchecked |\n|---|---|---|---|---|")
    for name in runs[rounds[0]]:
        a = [runs[k][name]["rate"] for k in rounds]
        b = [runs["un" + k][name]["rate"] for k in rounds]
        cost = 1 - statistics.median(a) / statistics.median(b)
        spread = f"{max(a) / min(a) - 1:.2%}, {max(b) / min(b) - 1:.2%}"
        print(f"| {name} | {statistics.median(a):.4g} | {statistics.median(b):.4g} | {cost:+.2%} | {spread} |")
    print("\nInjected flips:\n\n| case | injected | mismatches | units named | first record |\n|---|---|---|---|---|")
    for run in sorted(k for k in runs if k.startswith("inject")):
        for name, r in runs[run].items():
            if r["injected"]:
                first = r["first"]
                what = f"workgroup {first['workgroup']}, result {first['result']}: {first['expected']:#x} -> {first['observed']:#x}"
                print(f"| {name} | {r['injected']} | {r['mismatches']} | {r['units']} | {what} |")
    total = sum(r["checked"] for r in runs["soak"].values())
    print(f"\nSoak ({total:.3g} results checked):\n\n| case | rate | median ms | checked | mismatches |\n|---|---|---|---|---|")
    for name, r in runs["soak"].items():
        print(f"| {name} | {r['rate']:.4g} {r['unit']} | {r['median_ms']:.1f} | {r['checked']:.3g} | {r['mismatches']} |")
    print()


if __name__ == "__main__":
    if sys.argv[1] == "extract":
        extract(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        for d in sys.argv[2:]:
            tables(Path(d))
