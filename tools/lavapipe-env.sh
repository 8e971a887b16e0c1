#!/usr/bin/env bash
# tools/lavapipe-env.sh: source it to make Mesa's CPU driver lavapipe the only Vulkan driver.
# Usage: source tools/lavapipe-env.sh && cargo run --release -- --devices
icd=$(ls /usr/share/vulkan/icd.d/lvp_icd.*.json 2>/dev/null | head -n 1)
if [ -z "$icd" ]; then
    echo "lavapipe is not installed: apt-get install mesa-vulkan-drivers" >&2
    return 1 2>/dev/null || exit 1
fi
export VK_DRIVER_FILES="$icd"
# Older loaders read the previous name of the variable.
export VK_ICD_FILENAMES="$icd"
