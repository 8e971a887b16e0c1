#!/usr/bin/env python3
"""Writes N full runs (default 1,000: 10 GPUs x 100 runs a day apart) for `perftest history`'s
memory test, each a copy of the committed full H100 run (results/report/h100/parta.json and
partb.json as one run of 1,402 cases) with every rate moved by a seeded 0.5% noise.

    python3 make_runs.py OUT_DIR [N]
"""
import copy, datetime, json, pathlib, random, sys

here = pathlib.Path(__file__).resolve().parent
h100 = here.parent / "report" / "h100"
a, b = (json.loads((h100 / f).read_text()) for f in ("parta.json", "partb.json"))
base = copy.deepcopy(a)
base["cases"] = a["cases"] + b["cases"]
base["settings"]["families"] = a["settings"]["families"] + b["settings"]["families"]
out = pathlib.Path(sys.argv[1])
n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
gpus = 10
out.mkdir(parents=True, exist_ok=False)
rng = random.Random(60)
start = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
for i in range(n):
    gpu, day = i % gpus, i // gpus
    run = copy.copy(base)
    run["date"] = (start + datetime.timedelta(days=day, minutes=gpu)).strftime("%Y-%m-%dT%H:%M:%SZ")
    run["device"] = dict(base["device"], uuid=f"GPU-history-{gpu:02d}")
    cases = []
    for c in base["cases"]:
        c = dict(c)
        f = 1.0 + rng.gauss(0.0, 0.005)
        for key in ("rate",):
            if c.get(key):
                c[key] = dict(c[key], value=c[key]["value"] * f)
        if c.get("rates"):
            c["rates"] = [dict(r, value=r["value"] * f) for r in c["rates"]]
        cases.append(c)
    run["cases"] = cases
    (out / f"gpu{gpu:02d}-day{day:03d}.json").write_text(json.dumps(run))
print(f"{n} runs of {len(base['cases'])} cases in {out}")
