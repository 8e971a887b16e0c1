#!/usr/bin/env python3
"""results/sdc/analyse.py DIR [TRIALS_DIR]: the tables of results/sdc/README.md from one screen.sh call's files (the trials
from TRIALS_DIR, trials.sh's call, where given).

Coverage (each injection trial: the SM and bit injected, the flips the rate predicts from the
results checked, the mismatches found, the units they name), the stuck memory bits (the word and
bit named), what checking costs (checked against unchecked builds, and the alu family's same
chains), and the healthy soak (operations checked, mismatches)."""
import json
import math
import re
import statistics
import sys
from pathlib import Path

d = Path(sys.argv[1])
SMS = 132
# Multiply-adds behind one checked result: a chain's steps (fp16: 512 steps of two lanes).
PER_RESULT = {"SDC fp32 FMA chains": 1024, "SDC fp16 FMA chains (f16vec2)": 1024,
              "SDC fp64 FMA chains": 1024, "SDC int32 multiply-add chains": 1024}


def cases(name):
    return {c["name"]: c for c in json.loads((d / name).read_text())["cases"]}


trials_dir = Path(sys.argv[2]) if len(sys.argv) > 2 else d
print("## Coverage: one SM's fp32 FMAs flipped at one per 10^12\n")
print("| trial | SM | bit | seed | fp32 work, s | flips expected | mismatches | units named | named right | "
      "first flip at, s |")
print("|---|---|---|---|---|---|---|---|---|---|")
found, right, expected_all, mismatches_all, seconds_all, firsts = 0, 0, 0.0, 0, 0.0, []
trials = [l.split() for l in (trials_dir / "trials.txt").read_text().splitlines() if l.startswith("trial")]
kept = {json.loads(line)["trial"]: json.loads(line) for line in (trials_dir / "trials.jsonl").read_text().splitlines()}
for t in trials:
    n, unit, bit, code = t[1], int(t[3]), int(t[5]), int(t[7])
    seed = t[11] if len(t) > 11 else "none"
    # trials.jsonl keeps each trial's case (trial1.json is one whole run as perftest wrote it).
    c = kept[int(n)]
    f = c["faults"]
    seconds = c["samples_s"]
    # The injector draws over every dispatch of the case: scaling and samples.
    dispatched = seconds + c["scale_s"]
    expected = 1e-12 * f["checked"] * 1024 / SMS
    units = sorted({x["unit"] for x in f["faults"]})
    ok = code == 21 and units == [unit]
    found += code == 21
    right += ok
    expected_all += expected
    mismatches_all += f["mismatches"]
    seconds_all += dispatched
    first = f.get("first_flip")
    first_text = f"{first * dispatched:.1f}" if first is not None else "none"
    if first is not None:
        firsts.append(first * dispatched)
    print(f"| {n} | {unit} | {bit} | {seed} | {seconds:.1f} | {expected:.1f} | {f['mismatches']} | "
          f"{', '.join(map(str, units)) or '-'} | {'yes' if ok else ('-' if code == 0 else 'NO')} | {first_text} |")
flips = mismatches_all / seconds_all
firsts.sort()
print(f"\n{found} of {len(trials)} trials ended 21; {right} named the injected SM and no other. Mismatches "
      f"{mismatches_all} against {expected_all:.1f} flips the rate predicts ({mismatches_all / expected_all:.2f}x): "
      f"{flips:.3f} a second of fp32 chains. First flips (where one came): median {statistics.median(firsts):.1f} s, "
      f"latest {max(firsts):.1f} s into the case. As a Poisson process at that rate the first comes within "
      f"{math.log(100) / flips:.1f} s of fp32 chains in 99% of screens.\n")

print("## Stuck memory bits (2 GiB pass)\n")
print("| word | bit | exit | mismatches | records naming that word | only that bit flipped |")
print("|---|---|---|---|---|---|")
for line in (d / "trials.txt").read_text().splitlines():
    if not line.startswith("stuck"):
        continue
    s = line.split()
    n, word, bit, code = s[1], int(s[3]), int(s[5]), int(s[7])
    c = next(iter(cases(f"stuck{n}.json").values()))
    f = c["faults"]
    at = sum(1 for x in f["faults"] if x["result"] == word)
    only = all(x["expected"] ^ x["observed"] == 1 << bit for x in f["faults"])
    print(f"| {word} | {bit} | {code} | {f['mismatches']} | {at} of {len(f['faults'])} | {'yes' if only else 'NO'} |")

print("\n## What checking costs (50 samples each, two runs alternating)\n")
print("| case | checked, T/s | unchecked, T/s | cost | checked over alu's same chains |")
print("|---|---|---|---|---|")
alu = {"SDC fp32 FMA chains": "ALU fp32 FMA", "SDC fp64 FMA chains": "ALU fp64 FMA",
       "SDC int32 multiply-add chains": "ALU int32 multiply-add"}
for name in PER_RESULT:
    rate = lambda run: run[name]["rate"]["value"]
    checked = [rate(cases(f"checked{i}.json")) for i in (1, 2)]
    unchecked = [rate(cases(f"unchecked{i}.json")) for i in (1, 2)]
    cost = 1 - statistics.mean(checked) / statistics.mean(unchecked)
    other = ""
    if name in alu:
        a = [cases(f"alu{i}.json")[alu[name]]["rate"]["value"] for i in (1, 2)]
        other = f"{statistics.mean(checked) / statistics.mean(a):.4f}x"
    fmt = lambda xs: ", ".join(f"{x / 1e12:.2f}" for x in xs)
    print(f"| {name} | {fmt(checked)} | {fmt(unchecked)} | {cost * 100:+.2f}% | {other} |")

print("\n## Healthy soak\n")
print("| case | seconds of samples | results checked | multiply-adds (words) checked | mismatches |")
print("|---|---|---|---|---|")
total = 0
for name, c in cases("soak.json").items():
    f = c["faults"]
    seconds = sum(c["samples_ms"]) / 1e3
    ops = f["checked"] * PER_RESULT.get(name, 1)
    if name in PER_RESULT:
        total += ops
    print(f"| {name} | {seconds:.0f} | {f['checked']:.3e} | {ops:.3e} | {f['mismatches']} |")
print(f"\nMultiply-adds checked: {total:.3e} ({2 * total:.3e} operations, a multiply-add being two); "
      f"memory words as listed.")

prologs = d.parent / "call3" / "prologs.jsonl"
if prologs.exists():
    print("\n## Screens of a prolog's length (call 3: the four chain kinds, 15 s each, one SM at 10^-12)\n")
    print("| trial | case | s of samples | mismatches | units named | first flip at, s |")
    print("|---|---|---|---|---|---|")
    for line in prologs.read_text().splitlines():
        c = json.loads(line)
        f = c["faults"]
        units = ", ".join(str(u) for u in sorted({x["unit"] for x in f["faults"]})) or "-"
        first = f.get("first_flip")
        at = f"{first * (c['samples_s'] + c['scale_s']):.1f}" if first is not None else "none"
        print(f"| {c['trial']} | {c['name']} | {c['samples_s']:.1f} | {f['mismatches']} | {units} | {at} |")
