#!/usr/bin/env bash
# ci/main-job.sh: the README's main job, as a new user runs it, on lavapipe: `perftest` with no filter
# and default settings but three samples a case, and `perftest --verify --validation` of every case
# at subgroup sizes 8, 4 and 16 (LP_NATIVE_VECTOR_WIDTH=256, 128, 512); then `--verify --validation`
# of every case on SwiftShader (tools/swiftshader-env.sh), a driver of another shape; `--all-devices`
# with lavapipe and SwiftShader both loaded, two devices at once; and `--compile-only --shader-stats`
# of every case with AMD's compiler (RADV on Mesa's no-op DRM shim, tools/radv-noop-env.sh) for RDNA3
# as wave32 and GCN (wave64). Beside them all, `--verify --validation` of every case on Mesa 25's
# lavapipe (tools/mesa25-env.sh: Vulkan 1.4, a newer compiler).
# Each run writes JSON; `perftest check` then
# holds it to its driver's file in ci/expectations/: every listed case present with a status, every
# failure a known driver fault, every known fault still happening. Called by ci/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/lavapipe-env.sh
lavapipe_icd=$VK_DRIVER_FILES
lavapipe=ci/expectations/lavapipe-22.3.json
dir=target/main-job
mkdir -p "$dir"

echo "== cargo build --release"
cargo build --release --quiet
bin=target/release/perftest

# A run's own exit code says what failed (14: a case crashed); check decides whether that was expected.
run() {
    local name=$1 expect=$2
    shift 2
    local start=$SECONDS code=0
    "$@" --format json --output "$dir/$name.json" || code=$?
    echo "== $name: exit $code in $((SECONDS - start)) s"
    "$bin" check "$dir/$name.json" --expect "$expect"
}

# Every case at the default target (20 ms a measurement, so the same workgroup counts, buffers and
# axes as a user's run: the sizes at which crashes hide), three samples each where a user's run
# takes ten: on a CPU driver the samples are most of the main job's time and check nothing more.
# Mesa 25's lavapipe compiles each shader when a case first runs it, on one core: with its shader cache
# empty (a fresh machine) its --verify took 228 s, 39 of them one corruption-screen shader, beside
# 25 s with the cache filled (results/half-the-time-20/). It starts beside the timed run, whose
# samples take the time they are set to whatever the other core does, and goes on beside the runs
# after it, which keep the other core busy; its watchdog is widened so that a slow compile is not
# taken for a hung case. Its output is shown at the end.
echo "== perftest --verify --validation on Mesa 25's lavapipe, beside the other runs (its output at the end)"
# Fetched here, before anything runs beside it: tools/radv-noop-env.sh, later, uses the same download.
(source tools/mesa25-env.sh)
beside_logs=$dir
source ci/beside.sh
verify_mesa25() {
    source tools/mesa25-env.sh
    run verify-mesa25 ci/expectations/lavapipe-25.0.json "$bin" --verify --validation --watchdog 600
}
begin verify-mesa25 verify_mesa25
echo "== perftest --samples 3 (every case, timed at the default target)"
run timed "$lavapipe" "$bin" --samples 3
for width in 256 128 512; do
    echo "== perftest --verify --validation (LP_NATIVE_VECTOR_WIDTH=$width)"
    run "verify-$width" "$lavapipe" env LP_NATIVE_VECTOR_WIDTH="$width" "$bin" --verify --validation
done
echo "== perftest --verify --validation on SwiftShader"
source tools/swiftshader-env.sh
run verify-swiftshader ci/expectations/swiftshader.json "$bin" --verify --validation
echo "== perftest --all-devices --validation with lavapipe and SwiftShader: two devices at once"
(
    export VK_DRIVER_FILES="$lavapipe_icd:$VK_DRIVER_FILES" VK_ICD_FILENAMES="$lavapipe_icd:$VK_DRIVER_FILES"
    "$bin" --all-devices --validation --filter "ALU int32" --target-ms 1 --samples 3 --format json \
        --output "$dir/together.json"
)
# Each document names the other device as the one it ran with, by its UUID.
python3 - "$dir"/together-gpu1.json "$dir"/together-gpu2.json <<'PY'
import json, sys
runs = [json.load(open(path)) for path in sys.argv[1:]]
for run, other in zip(runs, reversed(runs)):
    peers = [(p["name"], p.get("slot")) for p in run.get("together", [])]
    assert peers == [(other["device"]["name"], other["device"]["uuid"])], (run["device"]["name"], peers)
    assert run["cases"] and all(c["status"] == "ok" for c in run["cases"]), run["cases"]
print("== together: " + "; ".join(f"{r['device']['name']} ran with {r['together'][0]['name']}" for r in runs))
PY
for chip in navi31 polaris10; do
    echo "== perftest --compile-only --shader-stats on RADV ($chip, no-op DRM shim)"
    (
        export AMDGPU_GPU_ID=$chip
        # RDNA can run compute as wave32 or wave64; RADV's option picks wave32. GCN is wave64 only.
        if [ "$chip" = navi31 ]; then export RADV_PERFTEST=cswave32; fi
        source tools/radv-noop-env.sh
        run "compile-$chip" ci/expectations/radv-noop.json "$bin" --compile-only --shader-stats
    )
    # ACO's instruction count of each instr shader against its steps: no chain folded.
    python3 tools/instr-stats.py "$dir/compile-$chip.json"
done
finish verify-mesa25
