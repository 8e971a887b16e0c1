#!/usr/bin/env bash
# issue 61, eighteenth step: builds perftest at each commit given into .bin/perftest-COMMIT, in a
# worktree at /tmp/base sharing this checkout's target folder (shaderc is built once). Then, for a
# device call: strip the binaries and pack them as one .bis/bins.tar.xz (16 binaries: 17 MB), so
# that the call's carry (.bis, .gl) stays under 64 MiB.
# Usage, from the repository root: bash results/half-the-time-18/build.sh COMMIT...
root=$(git rev-parse --show-toplevel)
[ -d /tmp/base ] || git worktree add -q /tmp/base HEAD
for c in "$@"; do
  [ -x "$root/.bin/perftest-$c" ] && continue
  git -C /tmp/base checkout -q -f "$c" || continue
  (cd /tmp/base && CXXSTDLIB_STATIC=1 CARGO_TARGET_DIR="$root/target" cargo build --release -q) || continue
  cp "$root/target/release/perftest" "$root/.bin/perftest-$c"
  echo "$c built $(date +%T)"
done
rm -rf /tmp/bz && mkdir -p /tmp/bz/b "$root/.bis"
for f in "$root"/.bin/perftest-*; do cp "$f" /tmp/bz/b/ && strip "/tmp/bz/b/$(basename "$f")"; done
(cd /tmp/bz && tar cf - b | xz -9 -T2 > "$root/.bis/bins.tar.xz")
