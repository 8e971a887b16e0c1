#!/usr/bin/env bash
# results/instructions/run.sh: on a lent GPU, from the repository root, after tools/h100-prepare.sh
# here: CUDA's instruction table (instr.cu) and perftest's `instr` family in the same call, kept
# as $OUT/LABEL-instr.csv, LABEL-instr-vulkan.json and .txt, with the SASS of CUDA's loops, the
# family verified on the card (LABEL-instr-verify.txt) and the driver's statistics held to the
# chains' steps (LABEL-instr-stats.txt).
# Usage: bash results/instructions/run.sh LABEL
set -uo pipefail
# shellcheck source=tools/device-env.sh
source tools/device-env.sh
label=$1
nvcc -O3 -arch=sm_90 results/instructions/instr.cu -o /tmp/instr
cuobjdump -sass /tmp/instr > "$out/$label-instr-sass.txt" 2>&1
/tmp/instr > "$out/$label-instr.csv"
echo "cuda exit $?"
.bin/perftest --family instr --verify --json "$out/$label-instr-verify.json" > "$out/$label-instr-verify.txt" 2>&1
echo "perftest --verify exit $?"
# The driver's known faults (the float16_t round trips it drops): every other case must verify.
.bin/perftest check "$out/$label-instr-verify.json" --expect ci/expectations/nvidia-580.json
echo "perftest check exit $?"
.bin/perftest --family instr --shader-stats --json "$out/$label-instr-vulkan.json" > "$out/$label-instr-vulkan.txt" 2>&1
echo "perftest exit $?"
python3 tools/instr-stats.py "$out/$label-instr-vulkan.json" > "$out/$label-instr-stats.txt" 2>&1
echo "instr-stats exit $?"
# The CUDA table again after perftest's: the same card, later, to show how far the clock moved.
/tmp/instr > "$out/$label-instr-after.csv"
echo "cuda again exit $?"
