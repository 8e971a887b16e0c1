#!/usr/bin/env python3
"""results/half-the-time-21/extract.py NAME=CLONE...: from `bash .ci/run` clones (each CLONE holding
target/, with its log beside it as CLONE.log, its lines stamped with the epoch second where the run
was stamped, and CLONE.cpu, CLONE.start where the machine's load was sampled) writes
data/ci-steps.tsv (each step's and each main-job run's seconds, by run), data/cpu-busy.tsv (the
share of both cores busy in each 20 s of each sampled run, and the step running then) and
data/shaderc-objects.tsv (each shaderc object's build seconds, from ninja's log, by run)."""
import glob
import re
import sys
from pathlib import Path

runs = [arg.split("=", 1) for arg in sys.argv[1:]]
out = Path(__file__).parent / "data"


def lines(clone):
    """The log's lines, less the stamp; and (second, line) where stamped."""
    raw = Path(f"{clone}.log").read_text().splitlines()
    stamped = [(int(l.split(" ", 1)[0]), l.split(" ", 1)[1] if " " in l else "") for l in raw if re.match(r"^\d{10} ", l)]
    return ([l for _, l in stamped] if stamped else raw), stamped


def steps(text):
    found = {m[1]: int(m[2]) for m in re.finditer(r"^   (.*) (\d+) s$", text, re.M)}
    found.update({f"main job: {m[1]}": int(m[2]) for m in re.finditer(r"^== (\S+): exit \d+ in (\d+) s$", text, re.M)})
    found.update({f"beside: {m[1]}": int(m[2]) for m in re.finditer(r"^== (\S+): exit \d+ after (\d+) s", text, re.M)})
    return found


logs = {name: lines(clone) for name, clone in runs}
table = {name: steps("\n".join(text)) for name, (text, _) in logs.items()}
for name, (_, stamped) in logs.items():
    # The main job's own build, from the stamps: its line to the next.
    marks = [(t, l) for t, l in stamped if l.startswith("== ")]
    for (t, l), (t_next, _) in zip(marks, marks[1:]):
        if l == "== cargo build --release":
            table[name]["main job: cargo build --release (stamped)"] = t_next - t
names = list(dict.fromkeys(k for t in table.values() for k in t))
with open(out / "ci-steps.tsv", "w") as f:
    f.write("step\t" + "\t".join(f"{n}_s" for n, _ in runs) + "\n")
    for step in names:
        f.write(step + "\t" + "\t".join(str(table[n].get(step, "")) for n, _ in runs) + "\n")

with open(out / "cpu-busy.tsv", "w") as f:
    f.write("run\tfrom_s\tbusy\tstep\n")
    for name, clone in runs:
        if not Path(f"{clone}.cpu").exists():
            continue
        start = int(Path(f"{clone}.start").read_text())
        samples = [tuple(map(int, l.split())) for l in open(f"{clone}.cpu") if len(l.split()) == 2]
        marks = [(t - start, l[3:]) for t, l in logs[name][1] if l.startswith("== ") and not l.startswith("== (")]
        bins = {}
        for t, per_mille in samples:
            bins.setdefault((t - start) // 20, []).append(per_mille)
        for b, values in sorted(bins.items()):
            step = ""
            for at, title in marks:
                if at <= b * 20 and re.search(r"^(cargo|the |perftest|health|--verify)", title) and ":" not in title[-8:]:
                    step = title.split(" (")[0]
            f.write(f"{name}\t{b * 20}\t{sum(values) / len(values) / 1000:.2f}\t{step}\n")


def objects(clone):
    found = glob.glob(f"{clone}/target/release/build/shaderc-sys-*/out/build/.ninja_log")
    if not found:
        return {}
    rows = [l.rstrip("\n").split("\t") for l in open(found[0]) if not l.startswith("#")]
    return {r[3]: (int(r[1]) - int(r[0])) / 1000 for r in rows}


built = {name: objects(clone) for name, clone in runs}
paths = sorted({p for b in built.values() for p in b})
with open(out / "shaderc-objects.tsv", "w") as f:
    f.write("object\t" + "\t".join(f"{n}_s" for n, _ in runs) + "\n")
    for p in paths:
        f.write(p + "\t" + "\t".join(f"{built[n][p]:.1f}" if p in built[n] else "" for n, _ in runs) + "\n")
