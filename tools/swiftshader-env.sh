#!/usr/bin/env bash
# tools/swiftshader-env.sh: source it to make Google's SwiftShader (a CPU Vulkan 1.3 driver of another
# shape than lavapipe: subgroup size 4, at most 256 invocations per workgroup, 32 KiB of shared memory,
# one memory type, no int64, fp64, fp16 or 8/16-bit storage) the only Vulkan driver. The build is the
# one inside the npm package @sparticuz/chromium 153.0.0 (bin/swiftshader.tar.br); it is fetched and
# unpacked once into ${PERFTEST_CACHE:-~/.cache/perftest}/swiftshader-153.0.0. Needs curl, and
# brotli or node to unpack.
# Sourced: every name it sets but the two exported ones starts with perftest_ss_ and is unset at the end.
perftest_ss_version=153.0.0
perftest_ss_dir="${PERFTEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/perftest}/swiftshader-$perftest_ss_version"
if [ ! -f "$perftest_ss_dir/swiftshader_icd.json" ]; then
    (
        set -euo pipefail
        mkdir -p "$perftest_ss_dir"
        cd "$perftest_ss_dir"
        url="https://registry.npmjs.org/@sparticuz/chromium/-/chromium-$perftest_ss_version.tgz"
        echo "tools/swiftshader-env.sh: fetching $url" >&2
        curl -sSfLo chromium.tgz "$url"
        tar xzf chromium.tgz package/bin/swiftshader.tar.br
        if command -v brotli >/dev/null; then
            brotli -d -c package/bin/swiftshader.tar.br > swiftshader.tar
        elif command -v node >/dev/null; then
            node -e "const z=require('zlib'),fs=require('fs');fs.writeFileSync('swiftshader.tar',z.brotliDecompressSync(fs.readFileSync('package/bin/swiftshader.tar.br')))"
        else
            echo "tools/swiftshader-env.sh: install brotli (apt-get install brotli) or node to unpack SwiftShader" >&2
            exit 1
        fi
        tar xf swiftshader.tar libvk_swiftshader.so
        rm -rf chromium.tgz package swiftshader.tar
        printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s/libvk_swiftshader.so", "api_version": "1.3.0"}}\n' \
            "$perftest_ss_dir" > swiftshader_icd.json
    ) || { rm -rf "$perftest_ss_dir"; unset perftest_ss_dir perftest_ss_version; return 1 2>/dev/null || exit 1; }
fi
export VK_DRIVER_FILES="$perftest_ss_dir/swiftshader_icd.json"
export VK_ICD_FILENAMES="$perftest_ss_dir/swiftshader_icd.json"
unset perftest_ss_dir perftest_ss_version
