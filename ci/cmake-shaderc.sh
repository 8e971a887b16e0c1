#!/usr/bin/env bash
# ci/cmake-shaderc.sh: cmake as ci/test.sh has shaderc-sys's build script run it (cmake-rs takes
# the program named by CMAKE). Its build of the install target compiles all of shaderc's tree:
# SPIRV-Tools twice (a static and a shared library), its reduce, lint, diff and link libraries,
# glslc and a shared shaderc, none of which perftest links. Here that call builds the one library
# the build script links (shaderc_combined: shaderc, glslang, SPIRV-Tools and its optimizer) and
# puts it where the install would; if that fails, the call runs as asked. The configure call gets
# precompiled headers for SPIRV-Tools (ci/shaderc-pch.cmake); every other call (--version) passes
# through unchanged.
set -uo pipefail

# narrowed --build DIR ARGS...: where ARGS ask for the install target, builds shaderc_combined
# instead and copies it to the install prefix's lib/; fails where they do not, or where that fails.
narrowed() {
    local dir=$2 rest=() install=0 prefix lib
    shift 2
    while [ $# -gt 0 ]; do
        if [ "$1" = --target ] && [ "${2:-}" = install ]; then
            install=1
            shift 2
            continue
        fi
        rest+=("$1")
        shift
    done
    ((install)) || return 1
    prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$dir/CMakeCache.txt" 2>/dev/null)
    if [ -n "$prefix" ] &&
        cmake --build "$dir" --target shaderc_combined "${rest[@]}" &&
        lib=$(find "$dir" -name libshaderc_combined.a -print -quit) && [ -n "$lib" ] &&
        mkdir -p "$prefix/lib" && cp "$lib" "$prefix/lib/libshaderc_combined.a"; then
        echo "ci/cmake-shaderc.sh: built shaderc_combined alone into $prefix/lib"
        return 0
    fi
    echo "ci/cmake-shaderc.sh: shaderc_combined alone did not build; building the install target" >&2
    return 1
}

if [ "${1:-}" = --build ] && [ $# -ge 2 ] && narrowed "$@"; then
    exit 0
fi
# The configure call (its first argument the source tree) also has SPIRV-Tools' headers precompiled
# (ci/shaderc-pch.cmake).
if [ -f "${1:-}/CMakeLists.txt" ]; then
    exec cmake "$@" "-DCMAKE_PROJECT_INCLUDE=$(cd "$(dirname "$0")" && pwd)/shaderc-pch.cmake"
fi
exec cmake "$@"
