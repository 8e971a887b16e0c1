#!/usr/bin/env bash
# tools/radv-noop-env.sh: source it to make RADV (Mesa 25's AMD driver, from tools/mesa25-env.sh's
# cache) the only Vulkan driver, on Mesa's no-op DRM shim: the loader sees a real AMD GPU whose
# dispatches do nothing. Use it with `perftest --compile-only --shader-stats`: every pipeline is built
# by AMD's compiler (ACO) and its statistics printed. A timed run there ends in implausible-time
# errors (its timestamps never move) and --verify in differences: nothing runs.
# AMDGPU_GPU_ID picks the chip (default navi31: RDNA3, wave32 compute; polaris10: GCN, wave64).
source "$(dirname "${BASH_SOURCE[0]}")/mesa25-env.sh" || return 1 2>/dev/null || exit 1
perftest_radv_dir="$(dirname "$VK_DRIVER_FILES")"
export VK_DRIVER_FILES="$perftest_radv_dir/radv_icd.json"
export VK_ICD_FILENAMES="$perftest_radv_dir/radv_icd.json"
export LD_PRELOAD="$perftest_radv_dir/root/usr/lib/x86_64-linux-gnu/libamdgpu_noop_drm_shim.so"
export AMDGPU_GPU_ID="${AMDGPU_GPU_ID:-navi31}"
unset perftest_radv_dir
