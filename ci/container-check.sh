#!/usr/bin/env bash
# ci/container-check.sh: the Containerfile builds an image that runs perftest. Where a container
# builder runs (podman, or docker with its daemon), the image is built and `perftest --version`
# run in it. Where none does (this project's CI has no daemon and no registry), what can be
# checked without one is, and what could not be is said: the runtime stage's packages exist in
# its Debian release, the binary the build stage makes needs no library the runtime stage lacks,
# and the file's promises hold (not root, Vulkan's `graphics` capability, the entry point the
# binary copied, a locked build). Called by ci/test.sh after the release build.
set -euo pipefail
cd "$(dirname "$0")/.."
file=Containerfile
builder=""
if command -v podman >/dev/null && podman info >/dev/null 2>&1; then
    builder=podman
elif command -v docker >/dev/null && docker info >/dev/null 2>&1; then
    builder=docker
fi
if [ -n "$builder" ]; then
    "$builder" build -t perftest-ci -f "$file" .
    "$builder" run --rm perftest-ci --version
    echo "== container: built with $builder, perftest --version ran in it"
    exit 0
fi
# The packages of each stage, from its `apt-get install` line.
packages() { awk -v stage="$1" '/^FROM /{n++} n==stage && /apt-get install/' "$file" |
    sed 's/.*--no-install-recommends//; s/\\//; s/&&.*//'; }
runtime=$(packages 2 | xargs)
release=$(sed -n 's/^FROM .*debian:\([a-z]*\)-slim.*/\1/p' "$file")
if grep -q "VERSION_CODENAME=$release" /etc/os-release; then
    for p in $runtime; do
        apt-cache show "$p" >/dev/null 2>&1 || { echo "$file: $p is no package of Debian $release" >&2; exit 1; }
    done
    checked="its runtime packages ($runtime) are Debian $release's"
else
    checked="its runtime packages not checked (this machine is not Debian $release)"
fi
# The binary links only what debian:*-slim holds (libvulkan is opened at run time).
needed=$(readelf -d target/release/perftest | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | xargs)
for lib in $needed; do
    case $lib in
        libc.so.6 | libm.so.6 | libgcc_s.so.1 | libstdc++.so.6 | ld-linux-x86-64.so.2 | libdl.so.2 | \
            libpthread.so.0 | librt.so.1) ;;
        *) echo "$file: perftest needs $lib, which the runtime stage does not install" >&2; exit 1 ;;
    esac
done
# What the file promises.
user=$(sed -n 's/^USER \([^:]*\).*/\1/p' "$file" | tail -1)
copied=$(sed -n 's/^COPY --from=build [^ ]* \(.*\)/\1/p' "$file")
entry=$(sed -n 's/^ENTRYPOINT \["\([^"]*\)".*/\1/p' "$file")
problems=()
[ -n "$user" ] && [ "$user" != 0 ] && [ "$user" != root ] || problems+=("it runs as root")
grep -q "NVIDIA_DRIVER_CAPABILITIES=.*graphics" "$file" || problems+=("no graphics capability: no Vulkan ICD")
[ "$entry" = "$copied" ] || problems+=("its entry point $entry is not the binary copied to $copied")
grep -q "cargo build --release --locked" "$file" && git ls-files --error-unmatch Cargo.lock >/dev/null ||
    problems+=("its build is not locked to Cargo.lock")
for p in cmake python3 g++ ninja-build; do
    packages 1 | grep -qw -- "$p" || problems+=("its build stage lacks $p, which shaderc's build needs")
done
if ((${#problems[@]})); then
    printf '%s: %s\n' "$file" "${problems[@]}" >&2
    exit 1
fi
echo "== container: not built (no podman, and docker without a daemon); checked: $checked; perftest needs only \
$needed; not root, graphics capability, entry point the binary, locked build. Not checked: the base images, \
the build, the NVIDIA toolkit's mounts"
