#!/usr/bin/env bash
# issue 61, seventeenth step: four full default runs on lavapipe (this project's two-core VM,
# idle), 5310e11 ("head", HEAD_BIN) and a warm-up rule for a CPU implementation (NEW_BIN, named
# TAG: "ontarget", the first run on target a sample; "repeated", the second run on target at one
# size) in turn, head first in each pair, each from an empty cache home. Records go to $DIR
# (/tmp/lvab); then `study.py ab $DIR $TAG`.
dir=${DIR:-/tmp/lvab}
mkdir -p "$dir"
source "$(dirname "$0")/../../tools/lavapipe-env.sh" >/dev/null
for pair in 1 2; do
  for tag in head "$TAG"; do
    case $tag in head) bin=$HEAD_BIN ;; *) bin=$NEW_BIN ;; esac
    rm -rf "$dir/home" && mkdir -p "$dir/home"
    s=$(date +%s.%N)
    XDG_CACHE_HOME=$dir/home "$bin" --json "$dir/$tag$pair.json" > "$dir/$tag$pair.txt" 2>&1
    echo "$tag$pair rc=$? wall $(python3 -c "print(f'{$(date +%s.%N) - $s:.1f}')") s, ended $(date -u +%T)"
  done
done
