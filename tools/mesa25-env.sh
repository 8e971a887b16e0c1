#!/usr/bin/env bash
# tools/mesa25-env.sh: source it to make the lavapipe of Mesa 25 (Debian bookworm-backports: Vulkan
# 1.4, a newer compiler) the only Vulkan driver, beside the system's Mesa 22.3 and without touching it.
# The first time, it downloads mesa-vulkan-drivers, the libdrm2 it needs and mesa-drm-shim (for
# tools/radv-noop-env.sh) from <codename>-backports (VERSION_CODENAME of /etc/os-release: bookworm)
# with apt-get (its own package lists, nothing installed) and unpacks them into
# ${PERFTEST_CACHE:-~/.cache/perftest}/mesa-backports; later it reuses them. The backports suite is
# taken from the same archive (URI and Signed-By keyring) as this release's Debian main archive in the
# machine's own apt sources (one-line or deb822, as apt-get indextargets reads them), so whatever
# mirror or proxy apt is set up with is used. Needs apt-get and dpkg, on Debian. Mesa 25's lavapipe
# links the system's LLVM 15.
# Sourced: every name it sets but the three exported ones starts with perftest_m25_ and is unset at the end.
perftest_m25_dir="${PERFTEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/perftest}/mesa-backports"
# The fetch runs in a bash of its own: set -e does nothing in a subshell or function whose status is
# tested, as it is here and in tools/radv-noop-env.sh's `source tools/mesa25-env.sh || ...`.
# shellcheck disable=SC2317 # called indirectly, through declare -f
perftest_m25_fetch() {
    set -euo pipefail
    rm -rf "$perftest_m25_dir"
    mkdir -p "$perftest_m25_dir"/{apt/lists/partial,apt/cache/archives/partial,debs,root}
    cd "$perftest_m25_dir"
    local codename fmt entry uri src signed apt deb lib
    # shellcheck source=/dev/null
    codename=$(. /etc/os-release 2>/dev/null; echo "${VERSION_CODENAME:-}")
    if [ -z "$codename" ]; then
        echo "tools/mesa25-env.sh: /etc/os-release names no VERSION_CODENAME; Mesa 25 comes from a Debian release's backports (12 bookworm or later)" >&2
        exit 1
    fi
    # This release's Debian main archive, as apt reads the machine's sources: the first deb entry of
    # suite $codename with component main, one whose Release file says Origin: Debian first (known
    # once apt-get update has run), else any (lists not fetched yet).
    fmt=$'$(TARGET_OF)\t$(IDENTIFIER)\t$(RELEASE)\t$(COMPONENT)\t$(ORIGIN)\t$(REPO_URI)\t$(SOURCESENTRY)'
    entry=$({ apt-get indextargets --format "$fmt" || true; apt-get indextargets --no-release-info --format "$fmt" || true; } |
        awk -F'\t' -v c="$codename" '$1 == "deb" && $2 == "Packages" && $3 == c && $4 == "main" {
            if ($5 == "Debian" && !debian) debian = $6 "\t" $7; if (!any) any = $6 "\t" $7 }
            END { if (debian) print debian; else if (any) print any }')
    if [ -z "$entry" ]; then
        echo "tools/mesa25-env.sh: apt's sources (/etc/apt/sources.list, /etc/apt/sources.list.d/) have no Debian archive for $codename main; add Debian's archive or a mirror of it there (deb URI $codename main), then source this again" >&2
        exit 1
    fi
    uri=${entry%%$'\t'*}
    src=${entry#*$'\t'}
    # Its Signed-By, if it has one: src is FILE:STANZA for a deb822 .sources file (the field is copied
    # as it is, an inline key too), FILE:LINE for a one-line file ([signed-by=...] among the options).
    case "${src%:*}" in
        *.sources)
            signed=$(awk -v n="${src##*:}" '
                /^#/ { next }
                /^[ \t]*$/ { if (in_stanza) { in_stanza = 0; if (i == n) exit } next }
                !in_stanza { in_stanza = 1; i++ }
                i != n { next }
                /^[^ \t]/ { keep = tolower($0) ~ /^signed-by:/ }
                keep' "${src%:*}") ;;
        *)
            signed=$(sed -n "${src##*:}p" "${src%:*}" | sed -n 's/^[^[]*\[\([^]]*\)\].*/\1/p' | tr -s '[:blank:]' '\n' |
                sed -n 's/^signed-by=\(.*\)/Signed-By: \1/Ip') ;;
    esac
    printf 'Types: deb\nURIs: %s\nSuites: %s-backports\nComponents: main\n' "$uri" "$codename" > apt/backports.sources
    if [ -n "$signed" ]; then printf '%s\n' "$signed" >> apt/backports.sources; fi
    apt=(-o Dir::Etc::sourcelist="$PWD/apt/backports.sources" -o Dir::Etc::sourceparts=-
         -o Dir::State::Lists="$PWD/apt/lists" -o Dir::Cache="$PWD/apt/cache"
         -o Dir::State::status=/dev/null -o APT::Sandbox::User=root -qq)
    echo "tools/mesa25-env.sh: fetching mesa-vulkan-drivers, libdrm2 and mesa-drm-shim from $uri $codename-backports (the Debian source of ${src%:*})" >&2
    apt-get "${apt[@]}" update
    if ! (cd debs && apt-get "${apt[@]}" download mesa-vulkan-drivers libdrm2 mesa-drm-shim); then
        echo "tools/mesa25-env.sh: apt-get could not download them from $uri $codename-backports; check that apt reaches that archive (apt-get update) and that it carries $codename-backports" >&2
        exit 1
    fi
    for deb in debs/*.deb; do dpkg-deb -x "$deb" root; done
    lib="$PWD/root/usr/lib/x86_64-linux-gnu"
    printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s/libvulkan_lvp.so", "api_version": "1.4.0"}}\n' \
        "$lib" > lvp_icd.json
    printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s/libvulkan_radeon.so", "api_version": "1.4.0"}}\n' \
        "$lib" > radv_icd.json
    ls debs > versions.txt
    rm -rf apt
}
if { [ ! -f "$perftest_m25_dir/lvp_icd.json" ] || [ ! -f "$perftest_m25_dir/radv_icd.json" ]; } &&
    ! perftest_m25_dir=$perftest_m25_dir bash -c "$(declare -f perftest_m25_fetch); perftest_m25_fetch"; then
    rm -rf "$perftest_m25_dir"
    unset -f perftest_m25_fetch
    unset perftest_m25_dir
    # shellcheck disable=SC2317 # the exit is reached when the script is run rather than sourced
    return 1 2>/dev/null || exit 1
fi
unset -f perftest_m25_fetch
export VK_DRIVER_FILES="$perftest_m25_dir/lvp_icd.json"
export VK_ICD_FILENAMES="$perftest_m25_dir/lvp_icd.json"
export LD_LIBRARY_PATH="$perftest_m25_dir/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
unset perftest_m25_dir
