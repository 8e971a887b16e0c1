#!/usr/bin/env bash
# issue 61, sixteenth step: a full default run on lavapipe (this project's two-core VM, idle) with
# d706ae2 ("head", HEAD_BIN) and with five samples a case on a CPU implementation ("cpu5", NEW_BIN),
# each from an empty cache home, in the order given: `lavapipe.sh head cpu5` then
# `lavapipe.sh cpu5b headb` (a tag ending in b is the second pair). Records go to $DIR (/tmp).
dir=${DIR:-/tmp}
source "$(dirname "$0")/../../tools/lavapipe-env.sh" >/dev/null
for tag in "$@"; do
  case $tag in head*) bin=$HEAD_BIN ;; *) bin=$NEW_BIN ;; esac
  rm -rf "$dir/lvhome-$tag"; mkdir -p "$dir/lvhome-$tag"
  s=$(date +%s.%N)
  XDG_CACHE_HOME=$dir/lvhome-$tag "$bin" --json "$dir/lvab-$tag.json" > "$dir/lvab-$tag.txt" 2>&1
  echo "$tag rc=$? wall $(python3 -c "print(f'{$(date +%s.%N) - $s:.1f}')") s, began $(date -d "@${s%.*}" +%T)"
done
