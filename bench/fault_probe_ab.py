"""What --fault-probe costs the measurements: paired runs of network_test
with and without it (MPI_THREAD_MULTIPLE and a sleeping thread against
MPI_Init), alternated so that drifts of the host hit both sides alike.

For every test of the isolated table, the ratio of the medians over the
runs (with / without; latency: above 1 is slower, bandwidth: below 1 is
slower) and a two-sided permutation p-value of the difference of the means
(how often relabelling the runs at random gives a difference at least as
large): a small p says the difference is not chance alone.

    python3 bench/fault_probe_ab.py --pairs 8 [--build build] [--np 4]

Open MPI as root needs OMPI_ALLOW_RUN_AS_ROOT=1 and
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1. Absolute values on a shared host are
noise; only the ratios and p-values mean something, and only as a bound.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

RUN = ["--emulate-nodes", "1", "--time-limit", "1", "--measurements", "10", "--iterations", "50",
       "--tests", "rr_two_sided_lat,rr_two_sided_bw,multiple_allreduce", "--ring-seed", "1", "--force"]


def one_run(binary: Path, np: int, probe: bool, out: Path) -> dict:
    extra = ["--deadline", "600", "--fault-probe", "5"] if probe else []
    cmd = ["mpirun", "-np", str(np), "--oversubscribe", "--mca", "mpi_yield_when_idle", "1",
           str(binary), *RUN, *extra, "--json", str(out), "--quiet"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, timeout=600)
    doc = json.loads(out.read_text())
    table = next(t for t in doc["tables"] if t["id"] == "isolated")
    return {row["name"]: row["avg"] for row in table["rows"]}


def permutation_p(a: list[float], b: list[float], rounds: int = 20000) -> float:
    observed = abs(statistics.fmean(a) - statistics.fmean(b))
    pooled, n = a + b, len(a)
    rng = random.Random(1)
    if len(pooled) <= 16:
        splits = [set(c) for c in itertools.combinations(range(len(pooled)), n)]
    else:
        splits = [set(rng.sample(range(len(pooled)), n)) for _ in range(rounds)]
    hits = 0
    for s in splits:
        x = [pooled[i] for i in s]
        y = [pooled[i] for i in range(len(pooled)) if i not in s]
        hits += abs(statistics.fmean(x) - statistics.fmean(y)) >= observed - 1e-12
    return hits / len(splits)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=8, help="runs of each side (default 8)")
    ap.add_argument("--build", type=Path, default=Path("build"), help="build directory (default build)")
    ap.add_argument("--np", type=int, default=4, help="ranks (default 4)")
    args = ap.parse_args()
    binary = args.build / "network_test"
    if not binary.exists():
        print(f"fault_probe_ab: {binary} is not built", file=sys.stderr)
        return 2
    without: dict[str, list[float]] = {}
    with_probe: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as d:
        for i in range(args.pairs):
            # Alternate which side goes first.
            for probe in ((False, True) if i % 2 == 0 else (True, False)):
                rows = one_run(binary, args.np, probe, Path(d) / "run.json")
                for name, v in rows.items():
                    (with_probe if probe else without).setdefault(name, []).append(v)
    print(f"{'test':34} {'without':>10} {'with':>10} {'ratio':>7} {'p':>6}   ({args.pairs} runs each, medians)")
    for name in without:
        a, b = without[name], with_probe[name]
        ma, mb = statistics.median(a), statistics.median(b)
        print(f"{name:34} {ma:10.1f} {mb:10.1f} {mb / ma:7.3f} {permutation_p(a, b):6.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
