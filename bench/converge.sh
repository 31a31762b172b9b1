#!/usr/bin/env bash
# What --converge buys (docs/method.md#convergence): network_load_test on
# NP emulated nodes,
# for each seed once with the full time limit and once with --converge TOL,
# alternated. Prints the wall-time ratio and, for every Avg, 99% and CI, the
# largest relative difference between the converged and the full run of the
# same seed, next to the run-to-run noise: the largest relative difference
# between full runs of different seeds. Target: differences within the
# noise in under 1/5 of the wall time.
#
#   bash bench/converge.sh                       # seeds 1 2 3, TOL 0.05, NP 10
#   SEEDS="1 2 3 4" TOL=0.05 NP=10 bash bench/converge.sh [extra options...]
#
# Extra arguments go to both runs (e.g. --time-limit 5). Runs take the lock
# /tmp/gpcnet-timing.lock so no two timing runs overlap on a shared host.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
seeds="${SEEDS:-1 2 3}"; tol="${TOL:-0.05}"; np="${NP:-10}"
build="${GPCNET_BUILD_DIR:-build}"
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
    flock /tmp/gpcnet-timing.lock "${launch[@]}" "$build/network_load_test" --emulate-nodes 1 \
        --quiet --output-dir "$out/$name" "$@" >"$out/$name/stdout" 2>"$out/$name/stderr" || {
        tail -20 "$out/$name/stderr" >&2; echo "converge.sh: run $name failed" >&2; exit 1; }
    echo "$name $((SECONDS - t0))" >>"$out/walls"
    echo "  $name: $((SECONDS - t0)) s" >&2
}
for seed in $seeds; do
    run "full-$seed" --seed "$seed" "$@"
    run "conv-$seed" --seed "$seed" --converge "$tol" "$@"
done

python3 - "$out" "$tol" $seeds <<'PY'
import json, sys
from pathlib import Path
out, tol, seeds = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]

def values(name):
    doc = json.loads((out / name / "network_load_test.json").read_text())
    v = {}
    for t in doc["tables"]:
        if t["id"] in ("isolated", "loaded"):
            for r in t["rows"]:
                for s in ("avg", "p99"):
                    v[(t["id"], r["test"], s)] = r[s]
    for e in doc["impact"]:
        for s in ("avg", "p99"):
            v[("ci", e["test"], s)] = e[s]
    stops = [r.get("stop_reason") for t in doc["tables"] if t["id"] in ("isolated", "loaded") for r in t["rows"]]
    return v, stops

def rel(a, b):
    return abs(a - b) / abs(b) if b else float("inf")

walls = dict(line.split() for line in (out / "walls").read_text().splitlines())
full = {s: values(f"full-{s}")[0] for s in seeds}
conv = {s: values(f"conv-{s}") for s in seeds}
keys = sorted(full[seeds[0]])
print(f"\n--converge {tol} vs the full time limit, {len(seeds)} seeds ({' '.join(seeds)})")
print(f"{'value':<42} {'max |conv-full|/full':>20} {'noise: max full-vs-full':>24}")
worst_ratio = 0.0
for k in keys:
    diff = max(rel(conv[s][0][k], full[s][k]) for s in seeds)
    noise = max((rel(full[a][k], full[b][k]) for a in seeds for b in seeds if a != b), default=float("nan"))
    worst_ratio = max(worst_ratio, diff / noise if noise else float("inf"))
    print(f"{k[0] + ' ' + k[1] + ' ' + k[2]:<42} {diff:>20.3f} {noise:>24.3f}")
t_full = sum(int(walls[f"full-{s}"]) for s in seeds)
t_conv = sum(int(walls[f"conv-{s}"]) for s in seeds)
stops = [r for s in seeds for r in conv[s][1]]
print(f"\nwall time: full {t_full} s, converge {t_conv} s, ratio {t_conv / t_full:.3f} (target < 0.2)")
print(f"tests ended by convergence: {stops.count('converged')} of {len(stops)}")
print(f"largest difference / noise: {worst_ratio:.2f} (<= 1: within run-to-run noise)")
PY
