#!/usr/bin/env bash
# A/B of two builds of ours on the same emulated nodes: did a change move
# the numbers? Runs build A (e.g. the commit before a restructuring) and
# build B alternately (A B, B A, ...), N pairs, each run under the timing
# lock, with the same arguments and fixed seeds, then prints every canary
# value side by side with how much of the difference is chance
# (bench/side_by_side.py: A is its "ref" side, B its "ours") and the
# congestors' own bandwidths (verbose tables) with a permutation p.
#
#   bash bench/ab_builds.sh [options] BUILD_A BUILD_B
#
# Build A of an older commit, for example:
#   git worktree add /tmp/base <commit> && cmake -S /tmp/base -B /tmp/base/build \
#       && cmake --build /tmp/base/build -j
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: bash bench/ab_builds.sh [options] BUILD_A BUILD_B

Options:
  -n, --pairs N      A/B run pairs (default 4)
      --ppn K        ranks per emulated node (default 1)
      --nodes N      emulated nodes (default 10)
      --args "ARGS"  extra arguments for both builds (default: none; the
                     published loop limits and 10 s per test)
      --out DIR      keep the runs here (default: a new temporary folder)
      --lock FILE    timing lock (default $GPCNET_TIMING_LOCK, else
                     /run/gpcnet/timing.lock as root or
                     $XDG_RUNTIME_DIR/gpcnet-timing.lock; a link there is
                     refused: bench/timing_lock.py)
  -h, --help         show this help
EOF
}
die_usage() { echo "ab_builds: $*" >&2; echo "Try --help." >&2; exit 2; }
is_count() { [[ "$1" =~ ^[1-9][0-9]*$ ]]; }

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pairs=4 ppn=1 nodes=10 args="" out="" a="" b=""
lock=""
while [ $# -gt 0 ]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        -n|--pairs) [ $# -ge 2 ] || die_usage "$1 needs a value"; pairs="$2"; shift 2 ;;
        --ppn) [ $# -ge 2 ] || die_usage "$1 needs a value"; ppn="$2"; shift 2 ;;
        --nodes) [ $# -ge 2 ] || die_usage "$1 needs a value"; nodes="$2"; shift 2 ;;
        --args) [ $# -ge 2 ] || die_usage "$1 needs a value"; args="$2"; shift 2 ;;
        --out) [ $# -ge 2 ] || die_usage "$1 needs a value"; out="$2"; shift 2 ;;
        --lock) [ $# -ge 2 ] || die_usage "$1 needs a value"; lock="$2"; shift 2 ;;
        -*) die_usage "unknown option $1" ;;
        *) if [ -z "$a" ]; then a="$1"; elif [ -z "$b" ]; then b="$1";
           else die_usage "two builds only (also got $1)"; fi; shift ;;
    esac
done
[ -n "$b" ] || die_usage "BUILD_A and BUILD_B are both needed"
for v in "$pairs" "$ppn" "$nodes"; do is_count "$v" || die_usage "counts must be positive integers, not '$v'"; done
# The lock is opened by the helper (never through a link), here once so
# that a bad one stops the script before any run.
lock="$(python3 "$repo/bench/timing_lock.py" ${lock:+--lock "$lock"} --check)" || exit 2
for d in "$a" "$b"; do
    [ -x "$d/network_load_test" ] || die_usage "no executable network_load_test in $d"
done
a="$(cd "$a" && pwd)" b="$(cd "$b" && pwd)"
launcher="$(command -v mpirun.openmpi || command -v mpirun || true)"
[ -n "$launcher" ] || die_usage "no Open MPI launcher (mpirun) found"
[ -n "$out" ] || out="$(mktemp -d "${TMPDIR:-/tmp}/gpcnet-ab.XXXXXX")"
mkdir -p "$out/ppn$ppn"
out="$(cd "$out" && pwd)"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
read -r -a extra <<<"$args"
np=$(( nodes * ppn ))
run() { # side build index
    local json="$out/ppn$ppn/$1-$3.json"
    echo "ab_builds: pair $3, $1 ($2)" >&2
    mkdir -p "$out/ppn$ppn/$1-$3.d" # older builds do not make it themselves
    python3 "$repo/bench/timing_lock.py" --lock "$lock" -- \
        "$launcher" --oversubscribe -np "$np" "$2/network_load_test" \
        --emulate-nodes "$ppn" --seed 11 --ring-seed 1000 --verbose --quiet --force \
        --output-dir "$out/ppn$ppn/$1-$3.d" --json "$json" "${extra[@]}" \
        >"$out/ppn$ppn/$1-$3.txt"
}
for i in $(seq 1 "$pairs"); do
    if [ $(( i % 2 )) -eq 1 ]; then run ref "$a" "$i"; run ours "$b" "$i"
    else run ours "$b" "$i"; run ref "$a" "$i"; fi
done
echo "A = $a"
echo "B = $b"
set +e
python3 "$repo/bench/side_by_side.py" "$out"
rc=$?
python3 - "$out/ppn$ppn" "$repo/bench" <<'EOF'
# The congestors' bandwidth alone (the verbose "isolated_congestors" table):
# mean of each side and a permutation p of the difference of the means, over
# side_by_side's relabellings (every one while there are at most a million).
import json, sys
from pathlib import Path
import numpy as np
sys.path.insert(0, sys.argv[2])
from side_by_side import labellings
folder = Path(sys.argv[1])
def rows(side):
    out = []
    for p in sorted(folder.glob(f"{side}-*.json")):
        doc = json.loads(p.read_text())
        t = {t["id"]: t for t in doc["tables"]}.get("isolated_congestors", {"rows": []})
        out.append({r["test"]: r["avg"] for r in t["rows"]})
    return out
A, B = rows("ref"), rows("ours")
print("\ncongestor bandwidth alone (MiB/s/rank): A mean, B mean, B/A, permutation p")
if A and B:
    as_ref, _ = labellings(len(A), len(A) + len(B), 10**6, seed=1)
for test in (A[0] if A else {}):
    a = np.array([r[test] for r in A]); b = np.array([r[test] for r in B])
    pool = np.concatenate([a, b])
    ref_means = as_ref @ pool / len(a)
    ours_means = ~as_ref @ pool / len(b)
    p = np.mean(np.abs(ours_means - ref_means) >= abs(b.mean() - a.mean()) - 1e-12)
    print(f"  {test:12s} {a.mean():10.1f} {b.mean():10.1f} {b.mean() / a.mean():6.3f}  p={p:.2f}")
EOF
echo "runs kept in $out"
exit $rc
