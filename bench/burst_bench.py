"""Two measurements of the bursty congestion options on emulated nodes
(docs/experiments.md#bench).

timeline-overhead: interleaved A/B pairs of network_load_test with and
  without --timeline (steady congestors, the same seed within a pair, the
  order alternating from pair to pair). Per canary and table (isolated,
  loaded) the ratio of the Avg with / without, as the geometric mean over
  the pairs, and how much of it is chance: the same statistic under random
  sign flips of the pairs' log ratios (each pair's two runs relabelled at
  random; with nothing different, that is how far the ratio strays), given
  as the central 95% of the flips and the share of flips at least as far
  from 1 as the observed one (a two-sided permutation p).

pacing: network_congestor with --burst-intensity F alone (one ON period
  without pauses) for every kernel and F, the intensities of one kernel and
  seed run back to back in a rotating order. The achieved share of the
  full rate is the mean per-rank bandwidth at F over that at 1 (the
  congestor JSON's mib_s_per_rank); achieved / requested = share / F.

contrast: network_load_test with --burst 200ms,300ms --burst-intensity 1
  --timeline, rr_two_sided_lat only, --pairs runs per seed: per run the
  ratio of the canary's Avg during bursts to its Avg between them (the
  timeline's phases), and over the runs their geometric mean with the
  same sign-flip chance interval. On emulated nodes the ratio measures
  how the host shares its cores as much as the network, which is why the
  test suite does not assert it (tests/integration/test_bursts.py).

All print the exact command of every run. Run them under the team's MPI
lock on a shared host; Open MPI is launched with --oversubscribe and
mpi_yield_when_idle 1 (10 ranks on a few cores).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LAUNCH = ["mpirun", "--oversubscribe", "--mca", "mpi_yield_when_idle", "1"]
LOAD_ARGS = ["--time-limit", "0.5", "--congestor-measurements", "8",
             "--congestor-iterations", "64"]


def run(build: Path, np: int, program: str, args: list, out: Path) -> dict:
    cmd = LAUNCH + ["-np", str(np), str(build / program), "--emulate-nodes", "1", "--quiet",
                    "--force", "--output-dir", str(out)] + args
    print("$", shlex.join(cmd), flush=True)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300,
                       stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        sys.exit(f"burst_bench: run failed ({p.returncode}): {p.stderr[-500:]}")
    with open(out / f"{program}.json") as f:
        return json.load(f)


def canary_avgs(doc: dict) -> dict:
    return {(t["id"], r["test"]): r["avg"] for t in doc["tables"]
            if t["id"] in ("isolated", "loaded") for r in t["rows"]}


def sign_flips(logs: list, draws: int, rng: random.Random) -> list:
    return [statistics.fmean(x if rng.random() < 0.5 else -x for x in logs)
            for _ in range(draws)]


def chance_interval(logs: list, rng: random.Random) -> tuple:
    """The mean of the log ratios, the central 95% of it under sign flips,
    and the sorted flips."""
    flips = sorted(sign_flips(logs, 4000, rng))
    return (statistics.fmean(logs), flips[int(0.025 * len(flips))],
            flips[int(0.975 * len(flips)) - 1], flips)


def timeline_overhead(a) -> None:
    rng = random.Random(12345)
    logs: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in a.seeds:
            for pair in range(a.pairs):
                avgs = {}
                order = (False, True) if pair % 2 == 0 else (True, False)
                for timeline in order:
                    args = ["--seed", str(seed)] + LOAD_ARGS + (["--timeline"] if timeline else [])
                    avgs[timeline] = canary_avgs(run(a.build, a.np, "network_load_test", args,
                                                     Path(tmp)))
                for key, off in avgs[False].items():
                    logs.setdefault(key, []).append(math.log(avgs[True][key] / off))
    print(f"\n{'table':9} {'canary':22} {'ratio':>7} {'chance 95%':>17} {'p':>6}  (pairs {a.pairs}"
          f" x seeds {','.join(map(str, a.seeds))})")
    for (table, test), values in sorted(logs.items()):
        mean, lo, hi, flips = chance_interval(values, rng)
        p = sum(abs(f) >= abs(mean) - 1e-15 for f in flips) / len(flips)
        print(f"{table:9} {test:22} {math.exp(mean):7.4f} {math.exp(lo):8.4f}-{math.exp(hi):<8.4f}"
              f" {p:6.3f}")


def pacing(a) -> None:
    shares: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in a.seeds:
            for k, kernel in enumerate(a.kernels):
                rates = [1.0] + a.intensities
                rot = (seed + k) % len(rates)
                bw = {}
                for f in rates[rot:] + rates[:rot]:
                    args = ["--seed", str(seed), "--congestors", kernel, "--duration",
                            str(a.duration), "--congestor-iterations", "16"]
                    if f < 1.0:
                        args += ["--burst-intensity", str(f)]
                    doc = run(a.build, a.np, "network_congestor", args, Path(tmp))
                    bw[f] = doc["congestor_run"]["kernels"][0]["mib_s_per_rank"]
                for f in a.intensities:
                    shares.setdefault((kernel, f), []).append((seed, bw[f] / bw[1.0], bw[1.0]))
    print(f"\n{'kernel':14} {'F':>5} {'achieved/requested per seed':>30}  (full rate MiB/s per rank)")
    for (kernel, f), values in shares.items():
        ratios = "  ".join(f"{s / f:.3f}" for _, s, _ in values)
        full = ", ".join(f"{b:.1f}" for _, _, b in values)
        print(f"{kernel:14} {f:5.2f} {ratios:>30}  ({full})")


def contrast(a) -> None:
    rng = random.Random(12345)
    logs = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in a.seeds:
            for _ in range(a.pairs):
                args = ["--seed", str(seed), "--tests", "rr_two_sided_lat", "--time-limit", "2.5",
                        "--congestor-measurements", "4", "--congestor-iterations", "64",
                        "--burst", "200ms,300ms", "--burst-intensity", "1", "--timeline"]
                (rec,) = run(a.build, a.np, "network_load_test", args, Path(tmp))["timeline"]
                ratio = rec["during_bursts"]["avg"] / rec["between_bursts"]["avg"]
                print(f"  seed {seed}: during/between {ratio:.3f}", flush=True)
                logs.append(math.log(ratio))
    mean, lo, hi, _ = chance_interval(logs, rng)
    print(f"\nduring/between Avg, geometric mean of {len(logs)} runs: {math.exp(mean):.3f}"
          f" (chance 95%: {math.exp(lo):.3f}-{math.exp(hi):.3f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("timeline-overhead", "pacing", "contrast"))
    ap.add_argument("--build", type=Path, default=REPO / "build")
    ap.add_argument("--np", type=int, default=10, help="ranks, one per emulated node (10)")
    ap.add_argument("--seeds", type=lambda s: [int(x) for x in s.split(",")], default=[1, 2])
    ap.add_argument("--pairs", type=int, default=3, help="A/B pairs per seed (timeline-overhead), runs per seed (contrast)")
    ap.add_argument("--kernels", type=lambda s: s.split(","), default=["p2p_incast", "a2a"])
    ap.add_argument("--intensities", type=lambda s: [float(x) for x in s.split(",")],
                    default=[0.25, 0.5])
    ap.add_argument("--duration", type=float, default=2.0, help="seconds per pacing run")
    a = ap.parse_args()
    if a.pairs < 1 or a.np < 2 or a.duration <= 0 or not all(0 < f < 1 for f in a.intensities):
        ap.error("--pairs >= 1, --np >= 2, --duration > 0, intensities in (0, 1)")
    {"timeline-overhead": timeline_overhead, "pacing": pacing, "contrast": contrast}[a.what](a)


if __name__ == "__main__":
    main()
