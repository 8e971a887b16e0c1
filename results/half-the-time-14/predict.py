#!/usr/bin/env python3
"""Issue 61, fourteenth step: would starting each case's scaling from its family's case before
pay? A model on a full H200 record (results/answers/h200-full.json): a case's time per unit of its
count is its median over its count; a run costs its GPU time (plus 4 us) and 0.1 ms of overhead,
the overhead that brings the model's scaling to the record's; a run on target (0.8 to 1.25 times
the 20 ms target) is a sample, not scaling. Prints predict.txt."""
import json
import os

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "../answers/h200-full.json")) as f:
    run = json.load(f)
cases = [c for c in run["cases"] if c.get("phases") and c["status"] == "ok"
         and c["dispatch"]["counted"] in ("workgroups", "repeats")]
T, OVERHEAD, LAUNCH = 20.0, 0.1, 0.004


def ramp(per, count=1):
    """Modelled scaling from `count`: x10 under a fortieth of the target, then one aimed run."""
    spent = 0.0
    while True:
        ms = count * per + LAUNCH
        if 0.8 * T <= ms <= 1.25 * T:
            return spent, ms
        spent += ms + OVERHEAD
        if ms >= T / 40:
            return spent, ms
        count *= 10


per_case = [(c["family"], c["median_ms"] / c["dispatch"]["count"]) for c in cases]
observed = sum(c["phases"]["scale_ms"] for c in cases) / 1000
grown = sum(ramp(per)[0] for _, per in per_case) / 1000
print(f"{len(cases)} cases; scaling in the record {observed:.2f} s; modelled, from one unit {grown:.2f} s")
print("from the family's case before: its count for the target divided by K")
for k in (1, 1.5, 2, 4, 8):
    for guarded in (False, True):
        before, spent, worst = {}, 0.0, 0.0
        for family, per in per_case:
            if family not in before:
                spent += ramp(per)[0]
            else:
                start = max(1, round(T / before[family] / k))
                if guarded:  # one unit first; never a start predicted over 50 ms at its time
                    first = per + LAUNCH
                    spent += first + OVERHEAD
                    start = min(start, max(1, int(50.0 / first)))
                cost, _ = ramp(per, start)
                spent += cost
                worst = max(worst, start * per)
            before[family] = per
        form = "one unit first, capped" if guarded else "unguarded"
        print(f"  K {k:<4} {form:<23} {spent / 1000:6.2f} s; longest first run {worst:,.0f} ms")
