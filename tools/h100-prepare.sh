#!/usr/bin/env bash
# tools/h100-prepare.sh: builds the release binary into .bin/ and downloads the Vulkan loader and
# glvnd (the NVIDIA ICD needs it) into .gl/, for a device-tool call that runs tools/h100-run.sh.
# Usage, from the repository root: bash tools/h100-prepare.sh
set -euo pipefail
cd "$(dirname "$0")/.."
grep -qx '/.gl/' .git/info/exclude 2>/dev/null || printf '/.gl/\n/.bin/\n' >> .git/info/exclude
mkdir -p .gl .bin /tmp/amd64/partial
o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64)
if ! ls .gl/libvulkan1_*.deb >/dev/null 2>&1; then
    apt-get "${o[@]}" update -qq
    (cd .gl && apt-get "${o[@]}" download libvulkan1 libglvnd0 libglx0 libgl1 libegl1 libgles2 libopengl0)
fi
# shaderc linked statically with its C++ runtime: the binary needs only glibc there.
CXXSTDLIB_STATIC=1 cargo build --release
cp target/release/perftest .bin/perftest
