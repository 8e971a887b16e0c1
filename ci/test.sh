#!/usr/bin/env bash
# ci/test.sh: installs what the tests need on a fresh Debian/Ubuntu machine, then runs fmt, clippy,
# rustdoc, the unit tests and the GPU tests (on lavapipe, with the validation layer).
set -euo pipefail
cd "$(dirname "$0")/.."

# Vulkan loader, lavapipe, the validation layer, shaderc's build needs (cmake, python3, a C++ compiler),
# the browser that opens a report in ci/report-check.sh (chromium), and GNU time, with which
# tests/untrusted_files.rs measures what loading a results file costs;
# Debian's Slurm and munge, which ci/slurm.sh starts as a one-node cluster; systemd, whose
# systemd-analyze verifies examples/systemd/ (ci/examples-check.sh).
packages=(libvulkan1 mesa-vulkan-drivers vulkan-validationlayers cmake python3 g++ ninja-build chromium time
    munge slurmctld slurmd slurm-client systemd)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# npm (which brings node) fetches SwiftShader for ci/main-job.sh (tools/swiftshader-env.sh: npm pack,
# unpacked with node's zlib when brotli is absent). Checked as a command: a node from elsewhere (such
# as NodeSource's nodejs package, which ships npm and conflicts with Debian's npm) serves as well.
command -v npm >/dev/null || missing+=(npm)
if ((${#missing[@]})); then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "ci/test.sh: installing ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if command -v rustup >/dev/null; then
    rustup component add rustfmt clippy >/dev/null 2>&1 || true
fi

# The GPU tests run on lavapipe, whatever else the machine has (see tools/lavapipe-env.sh).
source tools/lavapipe-env.sh

# Everything uses the release profile: shaderc's C++ (about 9 minutes on two cores) is built once,
# and the main job runs the binary a user's `cargo run --release` builds. Of shaderc's tree only the
# library perftest links is built (ci/cmake-shaderc.sh, which shaderc-sys's build script runs as
# its cmake); a CMAKE of the caller's own is kept.
: "${CMAKE:=$PWD/ci/cmake-shaderc.sh}"
export CMAKE
# Each step says its wall time as it ends, and the last line lists them all: where CI's time goes.
times=()
step() {
    local title=$1 start=$SECONDS
    shift
    echo "== $title"
    "$@"
    echo "== $title: $((SECONDS - start)) s"
    times+=("$title $((SECONDS - start)) s")
}
# The cluster examples (ci/examples-check.sh, 36 s of CPU and no timing of their own) run beside the
# main job and are waited for in their place in the order (ci/beside.sh): their own step took 43 s;
# beside the main job, whose runs keep both cores busy, they gain less than that
# (results/half-the-time-21/).
beside_logs=target/ci
mkdir -p "$beside_logs"
source ci/beside.sh
step "cargo fmt --check" cargo fmt --check
step "cargo clippy --release --all-targets -- -D warnings" cargo clippy --release --all-targets -- -D warnings
step "cargo doc (warnings are errors)" env RUSTDOCFLAGS="-D warnings" cargo doc --release --no-deps --quiet
step "cargo test --release (unit tests, then tests-gpu on lavapipe with the validation layer)" cargo test --release
begin examples bash ci/examples-check.sh
step "the README's main job on lavapipe (ci/main-job.sh)" bash ci/main-job.sh
step "perftest report of the committed H100 run, in headless Chromium (ci/report-check.sh)" bash ci/report-check.sh
step "the cluster examples: Kubernetes manifests against the API's schemas, Slurm scripts parse, alerts unit-tested (ci/examples-check.sh)" \
    finish examples
step "the Containerfile: built where a builder runs, else what can be checked without one (ci/container-check.sh)" \
    bash ci/container-check.sh
step "perftest on a one-node Slurm: a two-task array, perftest fleet, the health check that drains (ci/slurm.sh)" \
    bash ci/slurm.sh
step "health --npd as node-problem-detector runs its plugin: one line for each ending (ci/npd.sh)" \
    bash ci/npd.sh
echo "== ci/test.sh passed in $SECONDS s:"
printf '   %s\n' "${times[@]}"
