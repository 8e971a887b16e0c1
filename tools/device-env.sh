#!/usr/bin/env bash
# tools/device-env.sh: source it on a lent GPU machine, from the repository root, after
# tools/h100-prepare.sh here: unpacks the carried Vulkan loader and glvnd, points the loader at the
# NVIDIA ICD (installed outside its search path there), and sets $out to $OUT (or a temporary folder).
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$icd" ] && export VK_DRIVER_FILES="$icd"
out=${OUT:-/tmp/perftest-out}
mkdir -p "$out"
