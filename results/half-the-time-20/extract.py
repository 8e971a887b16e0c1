#!/usr/bin/env python3
"""results/half-the-time-20/extract.py WARM COLD: from two `bash .ci/run` clones (WARM run with the
machine's shader caches filled, COLD with XDG_CACHE_HOME empty; each holding target/ and the log
beside it as WARM.log, COLD.log) writes data/ci-steps.tsv (each step's seconds),
data/shaderc-objects.tsv (each shaderc object's build seconds, from ninja's log) and
data/verify-mesa25.tsv (each case's seconds in Mesa 25's --verify)."""
import glob
import json
import re
import sys
from pathlib import Path

warm, cold = Path(sys.argv[1]), Path(sys.argv[2])
out = Path(__file__).parent / "data"


def steps(log):
    return {m[1]: int(m[2]) for m in re.finditer(r"^   (.*) (\d+) s$", log.read_text(), re.M)}


def runs(log):
    return {m[1]: int(m[2]) for m in re.finditer(r"^== (\S+): exit \d+ in (\d+) s$", log.read_text(), re.M)}


with open(out / "ci-steps.tsv", "w") as f:
    f.write("step\twarm_s\tcold_s\n")
    w, c = steps(Path(f"{warm}.log")), steps(Path(f"{cold}.log"))
    for name in w:
        f.write(f"{name}\t{w[name]}\t{c.get(name, '')}\n")
    w, c = runs(Path(f"{warm}.log")), runs(Path(f"{cold}.log"))
    for name in w:
        f.write(f"main job: {name}\t{w[name]}\t{c.get(name, '')}\n")


def objects(clone):
    (log,) = glob.glob(f"{clone}/target/release/build/shaderc-sys-*/out/build/.ninja_log")
    rows = [l.rstrip("\n").split("\t") for l in open(log) if not l.startswith("#")]
    return {r[3]: (int(r[1]) - int(r[0])) / 1000 for r in rows}


with open(out / "shaderc-objects.tsv", "w") as f:
    f.write("object\twarm_run_s\tcold_run_s\n")
    w, c = objects(warm), objects(cold)
    for name in sorted(w, key=lambda n: -w[n]):
        f.write(f"{name}\t{w[name]:.1f}\t{c.get(name, 0):.1f}\n")


def cases(clone):
    run = json.load(open(f"{clone}/target/main-job/verify-mesa25.json"))
    return {c["name"]: (c["family"], c["phases"]["total_ms"] / 1000) for c in run["cases"] if c.get("phases")}


with open(out / "verify-mesa25.tsv", "w") as f:
    f.write("case\tfamily\twarm_s\tcold_s\n")
    w, c = cases(warm), cases(cold)
    for name in sorted(c, key=lambda n: -c[n][1]):
        f.write(f"{name}\t{c[name][0]}\t{w.get(name, ('', 0))[1]:.3f}\t{c[name][1]:.3f}\n")
