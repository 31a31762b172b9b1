"""Side-by-side table of reference and our runs (bench/compare_reference.sh).

Reads the documents `gpcnet parse` made of each run's text output, laid out
as DIR/ppn<K>/{ref,ours}-<i>.json, and prints for every value of the tables
(isolated Avg/99%, loaded Avg/99%, congestion impact Avg/99% per canary)
the reference's min-max over its runs, ours, how many of our runs fall
inside the reference's range widened by the tolerance, and a verdict.

The widened range of values v_1..v_n is [min v * (1 - t), max v * (1 + t)].

Exit status: 0 every value of every run of ours is inside, 3 some is not,
1 nothing to compare (no parsed run of one side).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

# (table id or "impact", label prefix, fields) in the order the tables print.
SECTIONS = [
    ("isolated", "isolated", [("avg", "Avg"), ("p99", "99%")]),
    ("loaded", "loaded", [("avg", "Avg"), ("p99", "99%")]),
    ("impact", "CI", [("avg_printed", "Avg"), ("p99_printed", "99%")]),
]


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


def compare(folder: Path, tolerance: float, out) -> tuple[int, int]:
    """Prints one PPN's table; returns (values compared, values outside)."""
    ref, ours = load_side(folder, "ref"), load_side(folder, "ours")
    ppn = folder.name[3:]
    print(f"\n== {ppn} rank(s) per node: {len(ref)} reference run(s), {len(ours)} of ours; "
          f"range widened by {tolerance:.0%} ==", file=out)
    if not ref or not ours:
        print("   nothing to compare (a side has no parsed run)", file=out)
        return 0, 0
    keys = []
    for run in ref:
        keys += [k for k in run if k not in keys]
    head = f"{'test':33} {'value':13} {'reference min-max':>21} {'ours min-max':>21} {'inside':>7}  verdict"
    print(head, file=out)
    print("-" * len(head), file=out)
    compared = outside = 0
    for key in keys:
        test_id, name, label = key
        rv = [r[key] for r in ref if key in r]
        ov = [o[key] for o in ours if key in o]
        lo, hi = min(rv) * (1 - tolerance), max(rv) * (1 + tolerance)
        inside = sum(lo <= v <= hi for v in ov)
        ok = bool(ov) and inside == len(ov)
        compared += 1
        outside += not ok
        ours_txt = f"{fmt(min(ov))} - {fmt(max(ov))}" if ov else "missing"
        print(f"{name[:33]:33} {label:13} {fmt(min(rv)) + ' - ' + fmt(max(rv)):>21} "
              f"{ours_txt:>21} {f'{inside}/{len(ov)}':>7}  {'ok' if ok else 'OUTSIDE'}", file=out)
    return compared, outside


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", type=Path, help="output folder of compare_reference.sh")
    ap.add_argument("--tolerance", type=float, default=0.10,
                    help="widening of the reference's min-max (default 0.10)")
    args = ap.parse_args(argv)
    if args.tolerance < 0:
        ap.error("--tolerance must be >= 0")
    folders = sorted((p for p in args.dir.glob("ppn*") if p.is_dir()),
                     key=lambda p: int(re.sub(r"\D", "", p.name) or 0))
    if not folders:
        print(f"side_by_side: no ppn<K> folder in {args.dir}", file=sys.stderr)
        return 1
    total = bad = 0
    for folder in folders:
        n, o = compare(folder, args.tolerance, sys.stdout)
        total += n
        bad += o
    if total == 0:
        print("\nnothing compared", file=sys.stdout)
        return 1
    print(f"\n{total - bad} of {total} values inside the reference's widened range", file=sys.stdout)
    return 0 if bad == 0 else 3


if __name__ == "__main__":
    sys.exit(main())
