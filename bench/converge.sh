#!/usr/bin/env bash
# What --converge buys and costs (docs/method.md#convergence):
# network_load_test on NP emulated nodes, for each seed once with the full
# time limit and once with --converge TOL for each TOL, alternated. For
# every TOL it prints the wall-time ratio, how the tests ended, and for
# every Avg, 99% and CI the largest relative difference between the
# converged and the full run of the same seed next to the run-to-run noise
# (the largest relative difference between full runs of different seeds);
# then the trade-off: ratio against the worst difference / noise per TOL.
# Targets: difference / noise <= 1 at a ratio <= 0.2.
#
#   bash bench/converge.sh                          # seeds 1 2 3, TOLS 0.05, NP 10
#   SEEDS="1 2 3 4" TOLS="0.02 0.05 0.1" NP=10 bash bench/converge.sh [extra options...]
#
# Extra arguments go to every run (e.g. --time-limit 5). Runs take the
# timing lock (bench/timing_lock.py: $GPCNET_TIMING_LOCK, else
# /run/gpcnet/timing.lock as root or $XDG_RUNTIME_DIR/gpcnet-timing.lock)
# so no two timing runs overlap on a shared host.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
seeds="${SEEDS:-1 2 3}"; tols="${TOLS:-${TOL:-0.05}}"; np="${NP:-10}"
[ "$(wc -w <<<"$seeds")" -ge 2 ] || { echo "converge.sh: SEEDS needs at least 2 seeds (the noise is between full runs)" >&2; exit 2; }
build="${GPCNET_BUILD_DIR:-build}"
lock="$(python3 bench/timing_lock.py --check)" || exit 2 # never through a link
[ -x "$build/network_load_test" ] || { cmake -S . -B "$build" >/dev/null && cmake --build "$build" -j2 >/dev/null; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
launch=(mpirun -np "$np")
mpirun --version 2>/dev/null | grep -q "Open MPI" && launch=(mpirun --oversubscribe -np "$np")

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
run() { # name, options...
    local name="$1"; shift
    mkdir -p "$out/$name"
    local t0=$SECONDS
    python3 bench/timing_lock.py --lock "$lock" -- \
        "${launch[@]}" "$build/network_load_test" --emulate-nodes 1 \
        --quiet --output-dir "$out/$name" "$@" >"$out/$name/stdout" 2>"$out/$name/stderr" || {
        tail -20 "$out/$name/stderr" >&2; echo "converge.sh: run $name failed" >&2; exit 1; }
    echo "$name $((SECONDS - t0))" >>"$out/walls"
    echo "  $name: $((SECONDS - t0)) s" >&2
}
for seed in $seeds; do
    run "full-$seed" --seed "$seed" "$@"
    for tol in $tols; do
        run "conv$tol-$seed" --seed "$seed" --converge "$tol" "$@"
    done
done

python3 - "$out" "$tols" $seeds <<'PY'
import json, sys
from pathlib import Path
out, tols, seeds = Path(sys.argv[1]), sys.argv[2].split(), sys.argv[3:]

def values(name):
    doc = json.loads((out / name / "network_load_test.json").read_text())
    v, rows = {}, []
    for t in doc["tables"]:
        if t["id"] in ("isolated", "loaded"):
            for r in t["rows"]:
                rows.append(r)
                for s in ("avg", "p99"):
                    v[(t["id"], r["test"], s)] = r[s]
    for e in doc["impact"]:
        for s in ("avg", "p99"):
            v[("ci", e["test"], s)] = e[s]
    return v, rows

def rel(a, b):
    return abs(a - b) / abs(b) if b else float("inf")

walls = {k: int(w) for k, w in (line.split() for line in (out / "walls").read_text().splitlines())}
full = {s: values(f"full-{s}")[0] for s in seeds}
keys = sorted(full[seeds[0]])
noise = {k: max(rel(full[a][k], full[b][k]) for a in seeds for b in seeds if a != b) for k in keys}
t_full = sum(walls[f"full-{s}"] for s in seeds)
curve = []
for tol in tols:
    conv = {s: values(f"conv{tol}-{s}") for s in seeds}
    print(f"\n--converge {tol} vs the full time limit, {len(seeds)} seeds ({' '.join(seeds)})")
    print(f"{'value':<42} {'max |conv-full|/full':>20} {'noise':>8} {'ratio':>7}")
    worst, worst_key = 0.0, None
    for k in keys:
        diff = max(rel(conv[s][0][k], full[s][k]) for s in seeds)
        r = diff / noise[k] if noise[k] else float("inf")
        if r > worst:
            worst, worst_key = r, k
        print(f"{' '.join(k):<42} {diff:>20.3f} {noise[k]:>8.3f} {r:>7.2f}")
    t_conv = sum(walls[f"conv{tol}-{s}"] for s in seeds)
    rows = [r for s in seeds for r in conv[s][1]]
    ended = {}
    for r in rows:
        ended[r["stop_reason"]] = ended.get(r["stop_reason"], 0) + 1
    p99s = [r["precision"]["p99"] for r in rows if r["precision"] and r["precision"]["p99"] is not None]
    print(f"wall time: full {t_full} s, converge {t_conv} s, ratio {t_conv / t_full:.3f}")
    print("tests ended by: " + ", ".join(f"{k} {n}" for k, n in sorted(ended.items())) + f" (of {len(rows)})")
    if p99s:
        print(f"99% half-width reached: median {sorted(p99s)[len(p99s) // 2]:.3f}, worst {max(p99s):.3f}")
    print(f"largest difference / noise: {worst:.2f} ({' '.join(worst_key) if worst_key else '-'})")
    curve.append((tol, t_conv / t_full, worst, ended.get("converged", 0), len(rows)))
print("\ntrade-off (targets: ratio <= 0.2, difference / noise <= 1)")
print(f"{'TOL':>6} {'wall ratio':>11} {'worst diff/noise':>17} {'converged':>10}")
for tol, ratio, worst, nconv, n in curve:
    print(f"{tol:>6} {ratio:>11.3f} {worst:>17.2f} {nconv:>6} of {n}")
PY
