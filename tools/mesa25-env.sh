#!/usr/bin/env bash
# tools/mesa25-env.sh: source it to make the lavapipe of Mesa 25 (Debian bookworm-backports: Vulkan
# 1.4, a newer compiler) the only Vulkan driver, beside the system's Mesa 22.3 and without touching it.
# The first time, it downloads mesa-vulkan-drivers, the libdrm2 it needs and mesa-drm-shim (for
# tools/radv-noop-env.sh) from bookworm-backports
# with apt-get (its own package lists, nothing installed) and unpacks them into
# ${PERFTEST_CACHE:-~/.cache/perftest}/mesa-backports; later it reuses them. Needs apt-get and dpkg
# (Debian or Ubuntu). Mesa 25's lavapipe links the system's LLVM 15.
# Sourced: every name it sets but the three exported ones starts with perftest_m25_ and is unset at the end.
perftest_m25_dir="${PERFTEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/perftest}/mesa-backports"
if [ ! -f "$perftest_m25_dir/lvp_icd.json" ] || [ ! -f "$perftest_m25_dir/radv_icd.json" ]; then
    (
        set -euo pipefail
        rm -rf "$perftest_m25_dir"
        mkdir -p "$perftest_m25_dir"/{apt/lists/partial,apt/cache/archives/partial,debs,root}
        cd "$perftest_m25_dir"
        echo "deb http://deb.debian.org/debian bookworm-backports main" > apt/sources.list
        apt=(-o Dir::Etc::sourcelist="$PWD/apt/sources.list" -o Dir::Etc::sourceparts=-
             -o Dir::State::Lists="$PWD/apt/lists" -o Dir::Cache="$PWD/apt/cache"
             -o Dir::State::status=/dev/null -o APT::Sandbox::User=root -qq)
        echo "tools/mesa25-env.sh: fetching mesa-vulkan-drivers, libdrm2 and mesa-drm-shim from bookworm-backports" >&2
        apt-get "${apt[@]}" update
        (cd debs && apt-get "${apt[@]}" download mesa-vulkan-drivers libdrm2 mesa-drm-shim)
        for deb in debs/*.deb; do dpkg-deb -x "$deb" root; done
        lib="$PWD/root/usr/lib/x86_64-linux-gnu"
        printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s/libvulkan_lvp.so", "api_version": "1.4.0"}}\n' \
            "$lib" > lvp_icd.json
        printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s/libvulkan_radeon.so", "api_version": "1.4.0"}}\n' \
            "$lib" > radv_icd.json
        ls debs > versions.txt
        rm -rf apt
    ) || { rm -rf "$perftest_m25_dir"; unset perftest_m25_dir; return 1 2>/dev/null || exit 1; }
fi
export VK_DRIVER_FILES="$perftest_m25_dir/lvp_icd.json"
export VK_ICD_FILENAMES="$perftest_m25_dir/lvp_icd.json"
export LD_LIBRARY_PATH="$perftest_m25_dir/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
unset perftest_m25_dir
