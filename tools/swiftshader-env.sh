#!/usr/bin/env bash
# tools/swiftshader-env.sh: source it to make Google's SwiftShader (a CPU Vulkan 1.3 driver of another
# shape than lavapipe: subgroup size 4, at most 256 invocations per workgroup, 32 KiB of shared memory,
# one memory type, no int64, fp64, fp16 or 8/16-bit storage) the only Vulkan driver. The build is the
# one inside the npm package @sparticuz/chromium 153.0.0 (bin/swiftshader.tar.br); it is fetched once
# with `npm pack` (from whatever registry, mirror or proxy the machine's npm config names) and
# unpacked into ${PERFTEST_CACHE:-~/.cache/perftest}/swiftshader-153.0.0. Needs npm (Debian: apt-get
# install npm), and brotli or the node that npm runs on to unpack.
# Sourced: every name it sets but the two exported ones starts with perftest_ss_ and is unset at the end.
perftest_ss_version=153.0.0
perftest_ss_dir="${PERFTEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/perftest}/swiftshader-$perftest_ss_version"
# The fetch runs in a bash of its own: set -e does nothing in a subshell or function whose status is
# tested, as it is here and wherever a caller writes `source tools/swiftshader-env.sh || ...`.
# shellcheck disable=SC2317 # called indirectly, through declare -f
perftest_ss_fetch() {
    set -euo pipefail
    mkdir -p "$perftest_ss_dir"
    cd "$perftest_ss_dir"
    if ! command -v npm >/dev/null; then
        echo "tools/swiftshader-env.sh: install npm (apt-get install npm) to fetch SwiftShader" >&2
        exit 1
    fi
    echo "tools/swiftshader-env.sh: fetching @sparticuz/chromium@$perftest_ss_version with npm pack" >&2
    local tgz
    if ! tgz=$(npm pack --loglevel=error --ignore-scripts "@sparticuz/chromium@$perftest_ss_version" | tail -n 1) ||
        [ ! -f "$tgz" ]; then
        echo "tools/swiftshader-env.sh: npm pack @sparticuz/chromium@$perftest_ss_version failed; check npm's registry setting (npm config get registry)" >&2
        exit 1
    fi
    tar xzf "$tgz" package/bin/swiftshader.tar.br
    if command -v brotli >/dev/null; then
        brotli -d -c package/bin/swiftshader.tar.br > swiftshader.tar
    elif command -v node >/dev/null; then
        node -e "const z=require('zlib'),fs=require('fs');fs.writeFileSync('swiftshader.tar',z.brotliDecompressSync(fs.readFileSync('package/bin/swiftshader.tar.br')))"
    else
        echo "tools/swiftshader-env.sh: install brotli (apt-get install brotli) or node to unpack SwiftShader" >&2
        exit 1
    fi
    tar xf swiftshader.tar libvk_swiftshader.so
    rm -rf "$tgz" package swiftshader.tar
    printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s/libvk_swiftshader.so", "api_version": "1.3.0"}}\n' \
        "$perftest_ss_dir" > swiftshader_icd.json
}
if [ ! -f "$perftest_ss_dir/swiftshader_icd.json" ] &&
    ! perftest_ss_dir=$perftest_ss_dir perftest_ss_version=$perftest_ss_version \
        bash -c "$(declare -f perftest_ss_fetch); perftest_ss_fetch"; then
    rm -rf "$perftest_ss_dir"
    unset -f perftest_ss_fetch
    unset perftest_ss_dir perftest_ss_version
    # shellcheck disable=SC2317 # the exit is reached when the script is run rather than sourced
    return 1 2>/dev/null || exit 1
fi
unset -f perftest_ss_fetch
export VK_DRIVER_FILES="$perftest_ss_dir/swiftshader_icd.json"
export VK_ICD_FILENAMES="$perftest_ss_dir/swiftshader_icd.json"
unset perftest_ss_dir perftest_ss_version
