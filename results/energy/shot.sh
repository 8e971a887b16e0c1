#!/usr/bin/env bash
# The report page's Energy section of RUN.json files (by default the H100 and H200 runs kept here),
# in headless Chromium, as made by BINARY (a perftest): DIR/energy-page.png.
# Usage: results/energy/shot.sh BINARY DIR [RUN.json ...]   (from the repository root)
set -euo pipefail
bin=$1 out=$2
shift 2
runs=("$@")
[ ${#runs[@]} -gt 0 ] || runs=(results/energy/h100/h100-levels.json results/energy/h200/h200-levels.json)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin" report "${runs[@]}" --output "$work" >/dev/null
# Through a frame: a file URL's fragment is not followed by --screenshot.
printf '<html><body style="margin:0"><iframe src="index.html#energy" style="border:0;width:1280px;height:${HEIGHT:-1300}px"></iframe></body></html>' >"$work/frame.html"
mkdir -p "$out"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=8000 \
    --window-size=1280,${HEIGHT:-1300} --screenshot="$out/energy-page.png" "file://$work/frame.html" 2>/dev/null
