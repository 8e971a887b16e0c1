#!/usr/bin/env bash
# ci/promtool.sh: prints the path of Prometheus's promtool, fetching it first where needed.
# Debian ships promtool only inside its `prometheus` package (the server, 96 MB installed, with a
# service to start); CI needs the one binary, so the package is downloaded with apt-get download
# and unpacked under target/promtool/, not installed. Called by ci/slurm.sh and ci/examples-check.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
if command -v promtool >/dev/null; then
    command -v promtool
    exit 0
fi
dir=$PWD/target/promtool
bin=$dir/usr/bin/promtool
if [ ! -x "$bin" ]; then
    mkdir -p "$dir"
    (
        cd "$dir"
        if ! apt-get download prometheus >/dev/null 2>&1; then
            sudo=""
            [ "$(id -u)" -eq 0 ] || sudo="sudo"
            $sudo apt-get update -qq >&2
            apt-get download prometheus >/dev/null
        fi
        dpkg-deb -x prometheus_*.deb .
        rm -f prometheus_*.deb
    )
fi
echo "$bin"
