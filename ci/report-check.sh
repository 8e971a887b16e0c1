#!/usr/bin/env bash
# ci/report-check.sh: `perftest report` of the committed H100 run (results/report/h100/), opened in
# headless Chromium (Debian's chromium): fails on any console message (the page has no script, so
# any is an error: a broken resource, a parse problem) or a page without its findings, tables and
# charts; keeps a screenshot to look at in target/report-check/h100.png. Called by ci/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=target/report-check
rm -rf "$dir" && mkdir -p "$dir"
bin=target/release/perftest
"$bin" report results/report/h100/parta.json results/report/h100/partb.json --output "$dir/h100"
page="file://$PWD/$dir/h100/index.html"
# --no-sandbox: CI runs as root. Console messages go to stderr as INFO:CONSOLE lines.
browser=(chromium --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0)
timeout 120 "${browser[@]}" --window-size=1280,2400 --screenshot="$dir/h100.png" "$page" 2> "$dir/chromium.log"
timeout 120 "${browser[@]}" --dump-dom "$page" > "$dir/dom.html" 2>> "$dir/chromium.log"
if grep -q ":CONSOLE" "$dir/chromium.log"; then
    echo "ci/report-check.sh: the page logged to the console:"
    grep ":CONSOLE" "$dir/chromium.log"
    exit 1
fi
count() { grep -o "$1" "$dir/dom.html" | wc -l || true; }
findings=$(count '<a href="#case-')
charts=$(count '<figure><svg')
rows=$(count '<tr id="case-')
echo "== report: $findings evidence links, $charts charts, $rows case rows; screenshot $dir/h100.png"
[ "$findings" -ge 10 ] && [ "$charts" -ge 15 ] && [ "$rows" -ge 1300 ] || {
    echo "ci/report-check.sh: the page in Chromium lacks findings, charts or rows"
    exit 1
}
# Every in-page link has its target.
missing=0
for id in $(grep -o 'href="#[^"]*"' "$dir/dom.html" | sed 's/href="#//; s/"$//' | sort -u); do
    grep -q "id=\"$id\"" "$dir/dom.html" || { echo "ci/report-check.sh: a link to #$id has no target"; missing=1; }
done
[ "$missing" = 0 ]
test -s "$dir/h100.png"
