#!/usr/bin/env bash
# The report's top, its texture family and its instruction section in headless Chromium, as made
# by BINARY (a perftest), into DIR: top-NAME.png, texture-NAME.png, instr-NAME.png.
# Usage: results/first-minutes/shots.sh BINARY NAME DIR   (from the repository root)
set -euo pipefail
bin=$1 name=$2 out=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin" report results/report/h100/parta.json results/report/h100/partb.json --output "$work/run" >/dev/null
"$bin" report results/instructions/h100-instr-vulkan.json --output "$work/instr" >/dev/null
shot() { # page-dir anchor png: the page scrolled to the anchor, through a frame (a file URL's
         # fragment is not followed by --screenshot)
    if [ -n "$2" ]; then
        printf '<html><body style="margin:0"><iframe src="index.html#%s" style="border:0;width:1280px;height:1400px"></iframe></body></html>' "$2" >"$1/frame.html"
        page=$1/frame.html
    else
        page=$1/index.html
    fi
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=3000 \
        --window-size=1280,1400 --screenshot="$3" "file://$page" 2>/dev/null
}
mkdir -p "$out"
shot "$work/run" "" "$out/top-$name.png"
shot "$work/run" family-texture "$out/texture-$name.png"
shot "$work/instr" instructions "$out/instr-$name.png"
