#!/usr/bin/env bash
# Cost of one hist_add (the binning a canary does after each ring), with the
# project's Release flags. Pass a git revision to compare with the histogram
# of that revision, e.g.  bash bench/hist_add_bench.sh HEAD~3
# Timing numbers: run it alone (e.g. under flock on a shared machine).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
build() { # $1: directory holding infra/histogram.[ch]
    gcc -std=c11 -O3 -DNDEBUG -I"$1" -I"$repo/src" -o "$tmp/bench" \
        "$repo/bench/hist_add_bench.c" "$1/infra/histogram.c" "$repo/src/infra/rng.c" -lm
}
if [ $# -ge 1 ]; then
    mkdir -p "$tmp/old/infra"
    git -C "$repo" show "$1:src/infra/histogram.h" >"$tmp/old/infra/histogram.h"
    git -C "$repo" show "$1:src/infra/histogram.c" >"$tmp/old/infra/histogram.c"
    echo "== $1"
    build "$tmp/old" && "$tmp/bench"
fi
echo "== working tree"
build "$repo/src" && "$tmp/bench"
