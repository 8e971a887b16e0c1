#!/usr/bin/env python3
"""tools/instr-stats.py RUN.json: checks that no driver folded an `instr` chain.

Reads the driver's statistics of each `instr` case (a run or `--compile-only` with
`--shader-stats`) and holds its instruction count to the steps the shader holds: a throughput
shader has 8 chains of 17 written-out steps (one before the loop, 16 in it), a latency shader one
chain of 17, and each step is at least one instruction (four for the integer round trips, which
add between each pair of conversions: a fold would make them fewer). The float16_t
and unorm round trips are held to one: a GPU with packed conversions (RDNA's v_cvt_pkrtz, Hopper's
F2FP) or conversions folded into a mixed-precision FMA (v_fma_mix) does two chains' steps in fewer
instructions honestly, and a count cannot tell that from a fold; their verify paths can (a skipped
rounding differs from the CPU reference). A count below that is a chain the compiler shortened,
and exits 1.

The count is ACO's `Instructions` (RADV) where the driver gives one, else NVIDIA's `Binary Size`
over 16 bytes per instruction (Hopper and its predecessors since Volta encode every instruction
in 128 bits). A driver with neither is reported and passes: there is nothing to hold.
"""
import json
import re
import sys

CHAINS, STEPS = 8, 17
# The instructions a step cannot do with fewer, by operation (the case name without "Instr " and
# its measure); one for every other.
LEAST_PER_STEP = {
    "float -> int -> float (+ add)": 4,
    "float -> uint -> float (+ add)": 4,
}


def count(lines):
    """The instruction count of the statistics lines, and what it was read from."""
    text = " ".join(lines)
    found = re.search(r"\bInstructions = (\d+)", text)
    if found:
        return int(found.group(1)), "Instructions"
    found = re.search(r"\bBinary Size = (\d+)", text)
    if found:
        return int(found.group(1)) // 16, "Binary Size / 16"
    return None, None


def main(path):
    run = json.load(open(path))
    checked, short, unread = 0, [], 0
    for case in run["cases"]:
        if case.get("family") != "instr" or case.get("status") not in ("ok", "compiled", "verified"):
            continue
        least = CHAINS * STEPS if case["name"].endswith(" throughput") else STEPS
        op = case["name"].removeprefix("Instr ").rsplit(" ", 1)[0]
        least *= LEAST_PER_STEP.get(op, 1)
        n, source = count(case.get("shader_stats", []))
        if n is None:
            unread += 1
            continue
        checked += 1
        if n < least:
            short.append(f"{case['name']}: {n} instructions ({source}), fewer than the {least} its steps need")
    print(
        f"{path}: {checked - len(short)} of {checked} instr shaders hold at least one instruction per step; "
        f"{unread} without statistics"
    )
    for line in short:
        print("  " + line)
    return 1 if short else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
