#!/usr/bin/env python3
"""sass_counts.py SASS.txt: the opcodes of each latency kernel of instr.cu between its two clock
reads (CS2R SR_CLOCKLO), counted, most frequent first: what CUDA compiled each chain step to.

The input is `cuobjdump -sass` of instr.cu (run.sh keeps it as LABEL-instr-sass.txt). nvcc
unrolls the loop (16 steps a trip, and 4 trips more), so the counts are of its 64-step body plus
the remainder loop: divide by about 80 for one step.
"""
import collections
import re
import sys

FUNCTION = re.compile(r"Function : _Z7latencyI\d+(\w+?)E")
INSTRUCTION = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)")


def main(path):
    kernels, name, inside, counts = [], None, False, None
    for line in open(path):
        found = FUNCTION.search(line)
        if found:
            name, inside, counts = found.group(1), False, collections.Counter()
            kernels.append((name, counts))
            continue
        if "Function :" in line:
            name = None
            continue
        if name is None:
            continue
        if "SR_CLOCKLO" in line:
            inside = not inside
            continue
        op = INSTRUCTION.search(line)
        if inside and op:
            counts[op.group(1)] += 1
    print("# latency kernels of instr.cu (nvcc -O3): SASS opcodes between the two clock reads, counted;")
    print("# the unrolled 64-step body plus the remainder loop: divide by about 80 for one step.")
    for name, counts in kernels:
        top = ", ".join(f"{op} {n}" for op, n in counts.most_common(8))
        print(f"{name}: {top}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
