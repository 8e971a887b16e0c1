#!/usr/bin/env python3
"""What freeing, allocating and copying beside a timed sample do to it, from the runs' records:
`samples.py WALLS ALLOC UPLOAD` (the folders walls.sh and the two probe.sh calls left). For each run: the phases summed
over its cases and the samples taken; then the first sample of each case against the median of
its others, where the case before let go of memory (freed between the cases, or beside the first
long run), and where the first long run had 1 GiB allocated or 256 MiB copied beside it (the
probe binaries' PROBE lines)."""
import json
import statistics
import sys

walls, probe, upload = sys.argv[1], sys.argv[2], sys.argv[3]
WALLS = ["full-1-free", "full-2-retire", "full-3-retire", "full-4-free"]


def load(path):
    return json.load(open(path))["cases"]


def phases(cases):
    keys = ["samples_ms", "samples_gpu_ms", "setup_ms", "scale_ms", "free_ms"]
    return {k: sum((c.get("phases") or {}).get(k, 0) for c in cases) / 1e3 for k in keys}


def first_vs_rest(case):
    s = case.get("samples_ms") or []
    return s[0] / statistics.median(s[1:]) - 1 if len(s) >= 3 else None


runs = {n: load(f"{walls}/{n}.json") for n in WALLS}
print("run               samples taken  their GPU s  samples s  setup s  scaling s  freeing s")
for n, cases in runs.items():
    p = phases(cases)
    taken = sum(len(c.get("samples_ms") or []) for c in cases)
    print(f"{n:17} {taken:13} {p['samples_gpu_ms']:12.2f} {p['samples_ms']:10.2f} {p['setup_ms']:8.2f} "
          f"{p['scale_ms']:10.2f} {p['free_ms']:10.2f}")

print("\nthe first sample against the median of the others, by what the case before freed (ms, in the"
      "\nfirst free run; the SDC pass over free memory left out): freed between the cases (free) or"
      "\nbeside the first long run of the next (retire)")
before = runs["full-1-free"]
rows = []
for i, case in enumerate(before[1:], 1):
    prev = before[i - 1]
    freed = (prev.get("phases") or {}).get("free_ms", 0)
    if freed < 1 or "free memory" in prev["name"]:
        continue
    for n, cases in runs.items():
        other = next((c for c in cases if c["name"] == case["name"]), None)
        v = first_vs_rest(other) if other else None
        if v is not None:
            rows.append((n.split("-")[2], freed, v))
for lo, hi in ((1, 5), (5, 20), (20, 1000)):
    for kind in ("free", "retire"):
        v = [r[2] for r in rows if r[0] == kind and lo <= r[1] < hi]
        print(f"  freed {lo:>2}-{hi:<4} ms  {kind:6}  cases x runs {len(v):3}  median {100 * statistics.median(v):+.2f}%  "
              f"mean {100 * statistics.mean(v):+.2f}%  largest {100 * max(v):+.2f}%  over 0.5%: {sum(x > 0.005 for x in v)}")



def beside(folder, binary, what):
    """The first sample of each case the probe binary ran `what` beside, against its others."""
    mine_run = {c["name"]: c for c in load(f"{folder}/full-1-{binary}.json")}
    ref = {c["name"]: c for c in load(f"{folder}/full-2-free.json")}
    probes = [line.rstrip("\n").split("\t") for line in open(f"{folder}/full-1-{binary}.err")
              if line.startswith("PROBE")]
    print(f"\n{what} beside the first long run of {len(probes)} cases ({binary}): the first sample against the others")
    for kind in sorted({p[1] for p in probes}):
        mine = [p for p in probes if p[1] == kind]
        took = statistics.median(float(p[2]) for p in mine)
        for label, run in (("beside", mine_run), ("not (free run)", ref)):
            v = [first_vs_rest(run[p[3]]) for p in mine if p[3] in run]
            v = [x for x in v if x is not None]
            taken = sum(len(run[p[3]].get("samples_ms") or []) for p in mine if p[3] in run)
            print(f"  {kind:6} {label:15} cases {len(v):3}  median {100 * statistics.median(v):+.3f}%  "
                  f"mean {100 * statistics.mean(v):+.3f}%  largest {100 * max(v):+.2f}%  over 0.5%: "
                  f"{sum(x > 0.005 for x in v)}  samples {taken}"
                  + (f"  (it took {took:.1f} ms, median)" if label == "beside" else ""))


beside(probe, "alloc", "1 GiB allocated (device-local or host-visible memory)")
beside(upload, "upload", "256 MiB copied from a host-visible buffer on the copy engine")
