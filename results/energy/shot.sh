#!/usr/bin/env bash
# The report page's Energy section of the H100 and H200 runs kept here, in headless Chromium, as
# made by BINARY (a perftest): DIR/energy-page.png.
# Usage: results/energy/shot.sh BINARY DIR   (from the repository root)
set -euo pipefail
bin=$1 out=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin" report results/energy/h100/h100-levels.json results/energy/h200/h200-levels.json --output "$work" >/dev/null
# Through a frame: a file URL's fragment is not followed by --screenshot.
printf '<html><body style="margin:0"><iframe src="index.html#energy" style="border:0;width:1280px;height:1300px"></iframe></body></html>' >"$work/frame.html"
mkdir -p "$out"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=3000 \
    --window-size=1280,1300 --screenshot="$out/energy-page.png" "file://$work/frame.html" 2>/dev/null
