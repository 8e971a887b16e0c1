#!/usr/bin/env python3
"""results/verdicts/flags.py BEFORE.json AFTER.json: what the verdicts study reads off two full runs
of one GPU, made back to back: flags by kind, the clocks each run read per case (the old probe's
around the samples, the witness's beside them), what the witness cost the sample it rode in,
the samples' share of their wall time on the GPU, and the instruction cases issue 46 names."""
import json
import statistics
import sys
from collections import Counter


def kind(flag):
    """The flag's kind: a typed flag's key, an old sentence's first words."""
    if isinstance(flag, dict):
        return next(iter(flag))
    if isinstance(flag, str):
        return flag.split(":")[0].split(" (")[0]
    return str(flag)


def load(path):
    return json.load(open(path))


def timed(run):
    return [c for c in run["cases"] if c["status"] == "ok" and c.get("rate")]


def summary(name, run):
    cases = timed(run)
    flagged = [c for c in cases if c.get("flags")]
    kinds = Counter(kind(f) for c in cases for f in c.get("flags", []))
    print(f"== {name}: perftest {run['perftest_version']}, format {run['format_version']}, {run['device']['name']}")
    print(f"   {len(cases)} timed cases, {len(flagged)} with a flag ({100 * len(flagged) / len(cases):.1f}%), wall {run.get('wall_s', 0):.0f} s")
    for k, n in kinds.most_common():
        print(f"   {n:5d}  {k}")
    for c in flagged[:40] if len(flagged) <= 40 else []:
        print(f"     {c['name']}: {[str(f)[:160] for f in c['flags']]}")
    return {c["name"]: c for c in cases}


def main(before_path, after_path):
    before, after = load(before_path), load(after_path)
    b = summary("before", before)
    a = summary("after", after)
    # Clocks: the old probe's reading against the witness's, case by case.
    pairs = [(b[n]["clock_mhz"], a[n]["clock_mhz"]) for n in a if n in b and b[n].get("clock_mhz") and a[n].get("clock_mhz")]
    sources = Counter((c.get("clock") or {}).get("source", "none") for c in a.values())
    print(f"== clocks: {len(pairs)} cases in both; the after run's sources: {dict(sources)}")
    probe = [p for p, _ in pairs]
    witness = [w for _, w in pairs]
    for label, xs in (("old probe", probe), ("witness", witness)):
        q = statistics.quantiles(xs, n=20)
        print(f"   {label:10s} median {statistics.median(xs):7.1f} MHz, 5th {q[0]:7.1f}, 95th {q[-1]:7.1f}, min {min(xs):7.1f}, max {max(xs):7.1f}")
    above = sum(1 for p in probe if p > 1980.0)
    print(f"   old probe above 1980 MHz: {above} of {len(probe)}; witness above 1980: {sum(1 for w in witness if w > 1980.0)}")
    unc = [c["clock"]["uncertainty"] for c in a.values() if (c.get("clock") or {}).get("uncertainty") is not None]
    if unc:
        print(f"   witness uncertainty: median {statistics.median(unc) * 100:.4f}%, max {max(unc) * 100:.4f}%")
    changes = [c["clock"]["witness_change"] for c in a.values() if (c.get("clock") or {}).get("witness_change") is not None]
    if changes:
        q = statistics.quantiles(changes, n=20)
        print(f"   the witnessed sample against the others' median: median {statistics.median(changes) * 100:+.3f}%, 5th {q[0] * 100:+.3f}%, 95th {q[-1] * 100:+.3f}%, over {len(changes)} cases")
    own = [c["name"] for c in a.values() if (c.get("clock") or {}).get("own_load")]
    print(f"   own load (below the warm-up level, the same after a re-warm): {len(own)}: {own[:8]}")
    by_family = {}
    for c in a.values():
        if c.get("clock_mhz"):
            by_family.setdefault(c["family"], []).append(c["clock_mhz"])
    print("   witness clock by family (median, min, max): " + "; ".join(
        f"{f} {statistics.median(v):.0f} ({min(v):.0f}-{max(v):.0f})" for f, v in by_family.items()))
    # Rates: the same cases, before and after.
    ratios = [a[n]["rate"]["value"] / b[n]["rate"]["value"] for n in a if n in b]
    q = statistics.quantiles(ratios, n=20)
    print(f"== rates after / before: median {statistics.median(ratios):.4f}, 5th {q[0]:.4f}, 95th {q[-1]:.4f} over {len(ratios)} cases")
    # Busy share of the samples.
    for name, run in (("before", before), ("after", after)):
        shares = [c["phases"]["samples_gpu_ms"] / c["phases"]["samples_ms"] for c in timed(run)
                  if c.get("phases") and c["phases"].get("samples_ms", 0) > 0 and c["phases"].get("samples_gpu_ms", 0) > 0]
        if shares:
            q = statistics.quantiles(shares, n=20)
            print(f"== {name}: samples' GPU time over wall: median {statistics.median(shares):.3f}, 5th {q[0]:.3f}, min {min(shares):.3f}")
    # The instruction cases.
    for n in a:
        if n.startswith("Instr float -> int") or n.startswith("Instr float -> uint") or n == "Instr fp32 add throughput":
            pc = a[n].get("per_clock") or [{}]
            print(f"   {n}: {a[n]['rate']['value']:.4g} {a[n]['rate']['unit']}, per clock {pc[0].get('value')} {pc[0].get('unit')}, clock {a[n]['clock_mhz']:.1f}, peak {a[n].get('peak_percent')}")
    for n in b:
        if n.startswith("Instr float -> int") or n.startswith("Instr float -> uint") or n == "Instr fp32 add throughput":
            pc = b[n].get("per_clock") or [{}]
            print(f"   before {n}: per clock {pc[0].get('value')} {pc[0].get('unit')}, clock {b[n]['clock_mhz']:.1f}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
