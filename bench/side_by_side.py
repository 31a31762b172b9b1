"""Side-by-side table of reference and our runs (bench/compare_reference.sh).

Reads the documents `gpcnet parse` made of each run's text output, laid out
as DIR/ppn<K>/{ref,ours}-<i>.json, and prints for every value of the tables
(isolated Avg/99%, loaded Avg/99%, congestion impact Avg/99% per canary)
the reference's min-max over its runs, ours, how many of our runs fall
inside the reference's range widened by the tolerance, and a verdict.

The widened range of values v_1..v_n is [min v * (1 - t), max v * (1 + t)].

Then it asks how much of that verdict is chance. Runs of one program on a
shared host spread, and a new run of the *same* program falls outside the
min-max of n earlier ones with probability about 2/(n+1), so the check
flags values even when nothing differs. The runs of both sides are
relabelled at random (the first n as "reference", the rest as "ours"):
`by chance` is the share of relabellings in which a value is inside, the
summary line compares the observed count of values inside with the counts
the relabellings give, and `p(shift)` is a permutation test of the
difference of the two sides' means (Holm-adjusted over the values of one
PPN in the summary).

With --self-check the reference is compared with itself (its first half of
runs against the second): how the check treats two identical programs on
the same host.

Exit status: 0 every value of every run of ours is inside, 3 some is not,
1 nothing to compare (no parsed run of one side). The calibration does not
change it.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import re
import sys
from pathlib import Path

import numpy as np

# (table id or "impact", label prefix, fields) in the order the tables print.
SECTIONS = [
    ("isolated", "isolated", [("avg", "Avg"), ("p99", "99%")]),
    ("loaded", "loaded", [("avg", "Avg"), ("p99", "99%")]),
    ("impact", "CI", [("avg_printed", "Avg"), ("p99_printed", "99%")]),
]
# A difference of means is reported as real below this Holm-adjusted p.
ALPHA = 0.05
# Relabellings evaluated at once: memory stays bounded whatever their number.
CHUNK = 1000


def values_of(doc: dict) -> dict:
    """{(test id, name, label): value} of one parsed run, in table order."""
    out = {}
    tables = {t["id"]: t for t in doc.get("tables") or []}
    for table, prefix, fields in SECTIONS:
        if table == "impact":
            rows = doc.get("impact") or []
        else:
            rows = tables.get(table, {}).get("rows", [])
        for row in rows:
            for field, label in fields:
                v = row.get(field)
                if v is not None:
                    out[(row["test"], row["name"], f"{prefix} {label}")] = float(v)
    return out


def load_side(folder: Path, side: str) -> list:
    runs = []
    for path in sorted(folder.glob(f"{side}-*.json"), key=lambda p: int(re.sub(r"\D", "", p.stem) or 0)):
        with open(path) as f:
            runs.append(values_of(json.load(f)))
    return runs


def fmt(v: float) -> str:
    return f"{v:.1f}"


def inside_flags(ref: np.ndarray, ours: np.ndarray, tolerance: float) -> np.ndarray:
    """Per labelling and value: every run of ours inside the widened range
    of ref (both labellings x runs x values, no value missing)."""
    lo = ref.min(axis=1) * (1 - tolerance)
    hi = ref.max(axis=1) * (1 + tolerance)
    ok = (ours >= lo[:, None, :]) & (ours <= hi[:, None, :])
    return ok.all(axis=1)


def labellings(n_ref: int, n_all: int, permutations: int, seed: int) -> tuple[np.ndarray, bool]:
    """Row i: which runs of the pool are "reference" in relabelling i.

    Every way of choosing them when there are at most `permutations`
    ways (exact), else that many drawn at random with the seed.
    """
    ways = math.comb(n_all, n_ref)
    if ways <= permutations:
        rows = np.zeros((ways, n_all), dtype=bool)
        for i, chosen in enumerate(itertools.combinations(range(n_all), n_ref)):
            rows[i, list(chosen)] = True
        return rows, True
    rng = np.random.default_rng(seed)
    order = np.argsort(rng.random((permutations, n_all)), axis=1)
    rows = np.zeros((permutations, n_all), dtype=bool)
    np.put_along_axis(rows, order[:, :n_ref], True, axis=1)
    return rows, False


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjustment of a family of p-values."""
    order = np.argsort(p)
    m = len(p)
    adjusted = np.maximum.accumulate((m - np.arange(m)) * p[order]).clip(max=1.0)
    out = np.empty(m)
    out[order] = adjusted
    return out


class Calibration:
    """The check and a difference of means under random relabellings of the
    pooled runs; only values every run of both sides has take part."""

    def __init__(self, ref: np.ndarray, ours: np.ndarray, tolerance: float,
                 permutations: int, seed: int):
        pool = np.vstack([ref, ours])
        self.columns = ~np.isnan(pool).any(axis=0)
        pool = pool[:, self.columns]
        n_ref = ref.shape[0]
        rows, self.exact = labellings(n_ref, pool.shape[0], permutations, seed)
        self.ways = len(rows)
        seen = np.abs(pool[n_ref:].mean(axis=0) - pool[:n_ref].mean(axis=0))
        inside = np.zeros(pool.shape[1])
        hits = np.zeros(pool.shape[1])
        counts = []
        for start in range(0, self.ways, CHUNK):
            # labellings x runs x values: the pool in each relabelling's
            # order, its reference runs first.
            order = np.argsort(~rows[start:start + CHUNK], axis=1, kind="stable")
            shuffled = pool[order]
            flags = inside_flags(shuffled[:, :n_ref], shuffled[:, n_ref:], tolerance)
            inside += flags.sum(axis=0)
            counts.append(flags.sum(axis=1))
            diffs = np.abs(shuffled[:, n_ref:].mean(axis=1) - shuffled[:, :n_ref].mean(axis=1))
            # Tolerance for ties that only floating point tells apart.
            hits += (diffs >= seen * (1 - 1e-9)).sum(axis=0)
        self.by_chance = inside / self.ways
        self.counts = np.concatenate(counts)
        self.p_shift = hits / self.ways if self.exact else (1 + hits) / (1 + self.ways)
        self.p_holm = holm(self.p_shift)
        self.n_values = int(self.columns.sum())

    def column(self, j: int) -> tuple[str, str]:
        """(by chance, p(shift)) cells of value j of the table."""
        if not self.columns[j]:
            return "-", "-"
        k = int(self.columns[:j].sum())
        p = self.p_shift[k]
        return f"{self.by_chance[k]:.0%}", "<0.001" if p < 0.001 else f"{p:.3f}"

    def summary(self, names: list, observed: int) -> list:
        """names and observed (how many were inside): of the values that
        take part, in table order."""
        if self.n_values == 0:
            return ["   calibration: no value that every run has"]
        how = f"all {self.ways} ways" if self.exact else f"{self.ways} random ways"
        lo, mid, hi = np.percentile(self.counts, [5, 50, 95])
        as_few = float((self.counts <= observed).mean())
        lines = [f"   calibration, the runs relabelled ({how}) as if both sides were one program:",
                 f"   values inside: median {mid:.0f} of {self.n_values} (5%-95%: {lo:.0f}-{hi:.0f}); "
                 f"observed {observed}, as few or fewer in {as_few:.0%} of relabellings"]
        shifted = [names[k] for k in np.flatnonzero(self.p_holm < ALPHA)]
        lines.append("   means that differ beyond chance (Holm-adjusted p < "
                     f"{ALPHA}): {', '.join(shifted) if shifted else 'none'}")
        return lines


def compare(folder: Path, tolerance: float, out, permutations: int = 0,
            seed: int = 1, self_check: bool = False) -> tuple[int, int]:
    """Prints one PPN's table; returns (values compared, values outside).

    self_check: the reference against itself, its later half of runs in the
    place of ours (the bar as a program identical to the reference meets it).
    """
    ref, ours = load_side(folder, "ref"), load_side(folder, "ours")
    if self_check:
        ref, ours = ref[:(len(ref) + 1) // 2], ref[(len(ref) + 1) // 2:]
    ppn = folder.name[3:]
    theirs = "later reference run(s) in place of ours" if self_check else "of ours"
    print(f"\n== {ppn} rank(s) per node: {len(ref)} reference run(s), {len(ours)} {theirs}; "
          f"range widened by {tolerance:.0%} ==", file=out)
    if not ref or not ours:
        print("   nothing to compare (a side has no parsed run)", file=out)
        return 0, 0
    keys = []
    for run in ref:
        keys += [k for k in run if k not in keys]
    matrix = lambda runs: np.array([[r.get(k, np.nan) for k in keys] for r in runs], dtype=float)
    cal = Calibration(matrix(ref), matrix(ours), tolerance, permutations, seed) if permutations else None
    extra = f" {'by chance':>9} {'p(shift)':>8}" if cal else ""
    head = (f"{'test':33} {'value':13} {'reference min-max':>21} {'ours min-max':>21}{extra}"
            f" {'inside':>7}  verdict")
    print(head, file=out)
    print("-" * len(head), file=out)
    compared = outside = 0
    verdicts = []
    for j, key in enumerate(keys):
        test_id, name, label = key
        rv = [r[key] for r in ref if key in r]
        ov = [o[key] for o in ours if key in o]
        lo, hi = min(rv) * (1 - tolerance), max(rv) * (1 + tolerance)
        inside = sum(lo <= v <= hi for v in ov)
        ok = bool(ov) and inside == len(ov)
        compared += 1
        outside += not ok
        verdicts.append(ok)
        ours_txt = f"{fmt(min(ov))} - {fmt(max(ov))}" if ov else "missing"
        cells = ""
        if cal:
            chance, p = cal.column(j)
            cells = f" {chance:>9} {p:>8}"
        print(f"{name[:33]:33} {label:13} {fmt(min(rv)) + ' - ' + fmt(max(rv)):>21} "
              f"{ours_txt:>21}{cells} {f'{inside}/{len(ov)}':>7}  {'ok' if ok else 'OUTSIDE'}", file=out)
    if cal:
        taking_part = np.flatnonzero(cal.columns)
        names = [f"{keys[j][1]} {keys[j][2]}" for j in taking_part]
        observed = sum(verdicts[j] for j in taking_part)
        print("\n".join(cal.summary(names, observed)), file=out)
    return compared, outside


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", type=Path, help="output folder of compare_reference.sh")
    ap.add_argument("--tolerance", type=float, default=0.10,
                    help="widening of the reference's min-max (default 0.10)")
    ap.add_argument("--permutations", type=int, default=10000,
                    help="random relabellings of the runs for the calibration; every way when "
                         "there are no more than this (default 10000; 0: no calibration)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the random relabellings (default 1)")
    ap.add_argument("--self-check", action="store_true",
                    help="the reference against itself: its first half of runs (in run-number "
                         "order) as the reference, the second half in the place of ours")
    args = ap.parse_args(argv)
    if args.tolerance < 0:
        ap.error("--tolerance must be >= 0")
    if args.permutations < 0:
        ap.error("--permutations must be >= 0")
    folders = sorted((p for p in args.dir.glob("ppn*") if p.is_dir()),
                     key=lambda p: int(re.sub(r"\D", "", p.name) or 0))
    if not folders:
        print(f"side_by_side: no ppn<K> folder in {args.dir}", file=sys.stderr)
        return 1
    total = bad = 0
    for folder in folders:
        n, o = compare(folder, args.tolerance, sys.stdout, args.permutations, args.seed,
                       args.self_check)
        total += n
        bad += o
    if total == 0:
        print("\nnothing compared", file=sys.stdout)
        return 1
    print(f"\n{total - bad} of {total} values inside the reference's widened range", file=sys.stdout)
    return 0 if bad == 0 else 3


if __name__ == "__main__":
    sys.exit(main())
