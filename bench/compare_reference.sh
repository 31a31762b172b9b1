#!/usr/bin/env bash
# Side by side with the reference GPCNeT v1.3 on the same emulated nodes.
#
# Runs the reference build in REF_DIR (you build it yourself: see
# docs/fidelity.md; this script never downloads it) and ours alternately,
# N pairs at each PPN, every run under the timing lock so that no two
# measurements overlap. The reference finds its nodes by host name, so it
# runs with bench/gethostname_shim.c preloaded (built here into a temporary
# folder): every K consecutive ranks report one made-up host name. Ours runs
# with the same shim and --emulate-nodes K. Every text output is turned into
# a results document with `gpcnet parse`; bench/side_by_side.py prints each
# table value side by side (min-max over runs) and whether ours falls inside
# the reference's min-max widened by the tolerance.
#
# By default the pairs alternate which side runs first (reference then ours,
# ours then reference, ...): a host that drifts, or a run that leaves the
# machine warmer or colder for the next one, then weighs on both sides
# alike. --order ref-first keeps the reference first in every pair.
#
#   bash bench/compare_reference.sh [options] REF_DIR
#
# Exit status: 0 every value inside, 3 some value outside, 1 a run failed
# or nothing could be compared, 2 bad usage.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: bash bench/compare_reference.sh [options] REF_DIR

REF_DIR holds your build of the reference GPCNeT v1.3 (network_load_test,
or network_test with --program network_test).

Options:
  -n, --pairs N           reference/ours run pairs per PPN (default 3)
      --ppn "LIST"        ranks per emulated node, space-separated (default "1 4")
      --nodes N           emulated nodes (default 10)
      --program NAME      network_load_test (default) or network_test
      --build DIR         our build directory (default: build)
      --mpi NAME          openmpi (default) or mpich
      --launcher-args "ARGS"  extra launcher arguments for both programs,
                          e.g. "--mca osc pt2pt" (Open MPI)
      --launcher-args-at "K=ARGS"  the same, only at PPN K (repeatable), e.g.
                          --launcher-args-at "4=--mca osc pt2pt"
      --ours-args "ARGS"  extra arguments for our program only
      --order ORDER       abba (default): pair 1 runs the reference first, pair
                          2 ours first, and so on; ref-first: the reference
                          first in every pair
      --tolerance F       widening of the reference's min-max (default 0.10)
      --timeout SEC       kill a run after SEC seconds (default 1800)
      --out DIR           keep every output here (default: a new temporary folder)
      --lock FILE         timing lock (default $GPCNET_TIMING_LOCK, else
                          /run/gpcnet/timing.lock as root or
                          $XDG_RUNTIME_DIR/gpcnet-timing.lock; a link there
                          is refused: bench/timing_lock.py)
  -h, --help              show this help
EOF
}

die_usage() { echo "compare_reference: $*" >&2; echo "Try --help." >&2; exit 2; }
is_count() { [[ "$1" =~ ^[1-9][0-9]*$ ]]; }

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pairs=3 ppns="1 4" nodes=10 program=network_load_test build="$repo/build" mpi=openmpi
launcher_args="" ours_args="" tolerance=0.10 timeout_s=1800 out="" ref_dir="" order=abba
declare -A launcher_args_at=()
lock=""

while [ $# -gt 0 ]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        -n|--pairs) [ $# -ge 2 ] || die_usage "$1 needs a value"; pairs="$2"; shift 2 ;;
        --ppn) [ $# -ge 2 ] || die_usage "$1 needs a value"; ppns="$2"; shift 2 ;;
        --nodes) [ $# -ge 2 ] || die_usage "$1 needs a value"; nodes="$2"; shift 2 ;;
        --program) [ $# -ge 2 ] || die_usage "$1 needs a value"; program="$2"; shift 2 ;;
        --build) [ $# -ge 2 ] || die_usage "$1 needs a value"; build="$2"; shift 2 ;;
        --mpi) [ $# -ge 2 ] || die_usage "$1 needs a value"; mpi="$2"; shift 2 ;;
        --launcher-args) [ $# -ge 2 ] || die_usage "$1 needs a value"; launcher_args="$2"; shift 2 ;;
        --launcher-args-at) [ $# -ge 2 ] || die_usage "$1 needs a value"
            [[ "$2" =~ ^([1-9][0-9]*)=(.*)$ ]] || die_usage "--launcher-args-at needs K=ARGS, not '$2'"
            launcher_args_at[${BASH_REMATCH[1]}]="${BASH_REMATCH[2]}"; shift 2 ;;
        --ours-args) [ $# -ge 2 ] || die_usage "$1 needs a value"; ours_args="$2"; shift 2 ;;
        --order) [ $# -ge 2 ] || die_usage "$1 needs a value"; order="$2"; shift 2 ;;
        --tolerance) [ $# -ge 2 ] || die_usage "$1 needs a value"; tolerance="$2"; shift 2 ;;
        --timeout) [ $# -ge 2 ] || die_usage "$1 needs a value"; timeout_s="$2"; shift 2 ;;
        --out) [ $# -ge 2 ] || die_usage "$1 needs a value"; out="$2"; shift 2 ;;
        --lock) [ $# -ge 2 ] || die_usage "$1 needs a value"; lock="$2"; shift 2 ;;
        -*) die_usage "unknown option $1" ;;
        *) [ -z "$ref_dir" ] || die_usage "one REF_DIR only (also got $1)"; ref_dir="$1"; shift ;;
    esac
done

[ -n "$ref_dir" ] || die_usage "REF_DIR is missing"
is_count "$pairs" || die_usage "--pairs must be a positive integer, not '$pairs'"
is_count "$nodes" || die_usage "--nodes must be a positive integer, not '$nodes'"
is_count "$timeout_s" || die_usage "--timeout must be a positive integer, not '$timeout_s'"
[ -n "${ppns// /}" ] || die_usage "--ppn needs at least one value"
for k in $ppns; do is_count "$k" || die_usage "--ppn values must be positive integers, not '$k'"; done
[[ "$tolerance" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die_usage "--tolerance must be a number >= 0, not '$tolerance'"
case "$program" in network_load_test|network_test) ;; *) die_usage "--program must be network_load_test or network_test" ;; esac
case "$mpi" in openmpi|mpich) ;; *) die_usage "--mpi must be openmpi or mpich" ;; esac
case "$order" in abba|ref-first) ;; *) die_usage "--order must be abba or ref-first, not '$order'" ;; esac
# The lock is opened by the helper (never through a link), here once so
# that a bad one stops the script before any run.
lock="$(python3 "$repo/bench/timing_lock.py" ${lock:+--lock "$lock"} --check)" || exit 2

ref_bin="$(cd "$ref_dir" 2>/dev/null && pwd)/$program" || die_usage "REF_DIR $ref_dir is not a folder"
[ -x "$ref_bin" ] || die_usage "no executable $program in $ref_dir (build the reference first: docs/fidelity.md)"
build="$(cd "$build" 2>/dev/null && pwd)" || die_usage "our build folder does not exist"
ours_bin="$build/$program"
[ -x "$ours_bin" ] || die_usage "no executable $program in $build (cmake -S . -B build && cmake --build build)"
if [ "$mpi" = openmpi ]; then
    launcher="$(command -v mpirun.openmpi || command -v mpirun || true)"
else
    launcher="$(command -v mpiexec.mpich || command -v mpiexec || true)"
fi
[ -n "$launcher" ] || die_usage "no $mpi launcher found"
for tool in timeout cc python3; do
    command -v "$tool" >/dev/null || die_usage "$tool is required"
done
export PYTHONPATH="$repo/python${PYTHONPATH:+:$PYTHONPATH}"
python3 -c "import gpcnet" 2>/dev/null || die_usage "the gpcnet Python package does not import (bash scripts/setup-python.sh)"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cc -O2 -shared -fPIC -o "$tmp/gethostname_shim.so" "$repo/bench/gethostname_shim.c" -ldl \
    || { echo "compare_reference: cannot build the gethostname shim" >&2; exit 1; }
if [ -z "$out" ]; then
    out="$(mktemp -d "${TMPDIR:-/tmp}/gpcnet-compare.XXXXXX")"
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"

# One host, many ranks: let the launcher oversubscribe the cores and yield
# when idle (harness settings, applied alike to both programs).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
export MPIR_CVAR_POLLS_BEFORE_YIELD=1
read -r -a extra_launcher <<<"$launcher_args"
read -r -a extra_ours <<<"$ours_args"

# run SIDE PPN INDEX: one run in its own folder (the reference writes its
# node lists into the working folder), text output to SIDE-INDEX.txt.
failures=0
run() {
    local side="$1" k="$2" i="$3" np=$(( nodes * $2 )) dir="$out/ppn$2"
    local rundir="$dir/$side-$i.d" txt="$dir/$side-$i.txt" cmd at=()
    read -r -a at <<<"${launcher_args_at[$k]:-}"
    mkdir -p "$rundir"
    if [ "$mpi" = openmpi ]; then
        cmd=("$launcher" --oversubscribe -np "$np" -x LD_PRELOAD="$tmp/gethostname_shim.so"
             -x GPCNET_SHIM_PPN="$k" "${extra_launcher[@]}" "${at[@]}")
    else
        cmd=("$launcher" -n "$np" -genv LD_PRELOAD "$tmp/gethostname_shim.so"
             -genv GPCNET_SHIM_PPN "$k" "${extra_launcher[@]}" "${at[@]}")
    fi
    if [ "$side" = ref ]; then
        cmd+=("$ref_bin")
    else
        cmd+=("$ours_bin" --emulate-nodes "$k" --quiet --force --output-dir "$rundir" "${extra_ours[@]}")
    fi
    echo "[$(date -u +%H:%M:%S)] ppn $k pair $i: $side" >&2
    # The load when the run got the lock: other jobs on the machine skew numbers.
    cmd=(sh -c 'echo "$0 $(date -u +%H:%M:%S) load $(cut -d" " -f1-3 /proc/loadavg 2>/dev/null)" \
        >>"$1"; shift; exec "$@"' "$side-$i(ppn $k)" "$out/runs.log" "${cmd[@]}")
    if (cd "$rundir" && python3 "$repo/bench/timing_lock.py" --lock "$lock" -- \
            timeout -k 10 "$timeout_s" "${cmd[@]}") \
            >"$txt" 2>"$dir/$side-$i.err" </dev/null \
        && python3 -m gpcnet parse "$txt" -o "$dir/$side-$i.json" 2>>"$dir/$side-$i.err"; then
        return 0
    fi
    failures=$(( failures + 1 ))
    rm -f "$dir/$side-$i.json"
    echo "compare_reference: the $side run (ppn $k, pair $i) failed; its stderr ends:" >&2
    tail -n 5 "$dir/$side-$i.err" >&2
}

echo "outputs in $out" >&2
shown_args="$launcher_args"
for k in "${!launcher_args_at[@]}"; do shown_args="$shown_args (at PPN $k: ${launcher_args_at[$k]})"; done
printf '%s\n' "reference: $ref_bin" "ours: $ours_bin" "launcher: $launcher $shown_args" \
    "ours args: ${ours_args}" "nodes: $nodes  ppn: $ppns  pairs: $pairs  order: $order" \
    >"$out/setup.txt"
for k in $ppns; do
    mkdir -p "$out/ppn$k"
    for i in $(seq 1 "$pairs"); do
        if [ "$order" = abba ] && [ $(( i % 2 )) -eq 0 ]; then
            run ours "$k" "$i"
            run ref "$k" "$i"
        else
            run ref "$k" "$i"
            run ours "$k" "$i"
        fi
    done
done

status=0
python3 "$repo/bench/side_by_side.py" --tolerance "$tolerance" "$out" >"$out/side_by_side.txt" || status=$?
cat "$out/side_by_side.txt"
if [ "$failures" -gt 0 ]; then
    echo "compare_reference: $failures run(s) failed (outputs in $out)" >&2
    exit 1
fi
exit "$status"
