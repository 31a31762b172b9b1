"""bench/side_by_side.py: the table of bench/compare_reference.sh."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "bench" / "side_by_side.py"
LAT = "RR Two-sided Lat (8 B)"
BW = "RR Two-sided BW+Sync (131072 B)"


def doc(lat_avg, bw_avg, ci_bw_avg, loaded=True):
    """A parsed-text document with the fields the table reads."""
    def row(test, name, avg, p99):
        return {"test": test, "name": name, "avg": avg, "p99": p99}
    tables = [{"id": "isolated", "rows": [row("rr_two_sided_lat", LAT, lat_avg, 3.0),
                                          row("rr_two_sided_bw_sync", BW, bw_avg, 500.0)]}]
    impact = []
    if loaded:
        tables.append({"id": "loaded", "rows": [row("rr_two_sided_lat", LAT, 2 * lat_avg, 9.0)]})
        impact = [{"test": "rr_two_sided_bw_sync", "name": BW, "avg_printed": ci_bw_avg,
                   "p99_printed": None}]
    return {"tables": tables, "impact": impact}


def write(folder: Path, name: str, d: dict):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.json").write_text(json.dumps(d))


def run(folder: Path, *args):
    return subprocess.run([sys.executable, str(SCRIPT), *args, str(folder)], capture_output=True,
                          text=True, timeout=60)


def rows(stdout: str) -> dict:
    """{(name, value label): (inside, verdict)} from the printed table."""
    out = {}
    for line in stdout.splitlines():
        for name in (LAT, BW):
            if line.startswith(name):
                cells = line[len(name):].split()
                out[(name, " ".join(cells[:2]))] = (cells[-2], cells[-1])
    return out


def test_inside_the_widened_range_and_outside(tmp_path):
    ppn = tmp_path / "ppn1"
    write(ppn, "ref-1", doc(2.0, 8000.0, 1.0))
    write(ppn, "ref-2", doc(2.5, 9000.0, 1.1))
    # Lat 2.74 < 2.5 * 1.1; BW 7201 > 8000 * 0.9; CI 1.22 > 1.1 * 1.1.
    write(ppn, "ours-1", doc(2.74, 7201.0, 1.0))
    write(ppn, "ours-2", doc(2.2, 8500.0, 1.22))
    p = run(tmp_path)
    assert p.returncode == 3, p.stdout + p.stderr
    r = rows(p.stdout)
    assert r[(LAT, "isolated Avg")] == ("2/2", "ok")
    assert r[(BW, "isolated Avg")] == ("2/2", "ok")
    assert r[(LAT, "loaded Avg")] == ("2/2", "ok")
    assert r[(BW, "CI Avg")] == ("1/2", "OUTSIDE")
    assert (BW, "CI 99%") not in r  # not printed, not compared
    assert "2 reference run(s), 2 of ours" in p.stdout
    assert "4.0 - 5.0" in p.stdout and "8000.0 - 9000.0" in p.stdout
    assert "6 of 7 values inside" in p.stdout
    # A tolerance of 0.2 takes the CI in: every value inside, exit 0.
    p = run(tmp_path, "--tolerance", "0.2")
    assert p.returncode == 0 and "7 of 7 values inside" in p.stdout
    # No tolerance: the latency 2.74 is now outside as well.
    p = run(tmp_path, "--tolerance", "0")
    assert rows(p.stdout)[(LAT, "isolated Avg")] == ("1/2", "OUTSIDE")


def test_a_value_missing_from_ours_is_outside(tmp_path):
    write(tmp_path / "ppn4", "ref-1", doc(2.0, 8000.0, 1.0))
    write(tmp_path / "ppn4", "ours-1", doc(2.0, 8000.0, 1.0, loaded=False))
    p = run(tmp_path)
    assert p.returncode == 3
    assert "missing" in p.stdout and rows(p.stdout)[(LAT, "loaded Avg")] == ("0/0", "OUTSIDE")


def test_nothing_to_compare_exits_1(tmp_path):
    write(tmp_path / "ppn1", "ref-1", doc(2.0, 8000.0, 1.0))
    p = run(tmp_path)
    assert p.returncode == 1 and "nothing to compare" in p.stdout
    p = run(tmp_path / "empty")
    assert p.returncode == 1 and "no ppn<K> folder" in p.stderr
    p = run(tmp_path, "--tolerance", "-1")
    assert p.returncode == 2


# --- calibration: how much of the verdict chance alone gives ---------------

def lat_doc(iso_avg, iso_p99, loaded_avg):
    """A document with three latency values (isolated Avg/99%, loaded Avg)."""
    tables = [{"id": "isolated", "rows": [{"test": "rr_two_sided_lat", "name": LAT,
                                           "avg": iso_avg, "p99": iso_p99}]},
              {"id": "loaded", "rows": [{"test": "rr_two_sided_lat", "name": LAT,
                                         "avg": loaded_avg, "p99": None}]}]
    return {"tables": tables, "impact": []}


def calibration_cells(stdout: str) -> dict:
    """{value label: (by chance, p(shift))} from a table with calibration."""
    out = {}
    for line in stdout.splitlines():
        if line.startswith(LAT):
            cells = line[len(LAT):].split()
            out[" ".join(cells[:2])] = (cells[-4], cells[-3])
    return out


def test_calibration_by_chance_is_exact_for_small_pools(tmp_path):
    # 3 + 3 distinct values, no tolerance: a relabelling puts every "ours"
    # inside exactly when the pool's min and max are both "reference":
    # 3*2 / (6*5) = 20% of the 20 ways, whatever the values are.
    rng = np.random.default_rng(7)
    ppn = tmp_path / "ppn1"
    for side in ("ref", "ours"):
        for i in range(1, 4):
            write(ppn, f"{side}-{i}", lat_doc(*(rng.random(3) * 10 + 1)))
    p = run(tmp_path, "--tolerance", "0")
    assert "(all 20 ways)" in p.stdout, p.stdout
    cells = calibration_cells(p.stdout)
    assert {c[0] for c in cells.values()} == {"20%"}
    # With 3 runs a side the smallest two-sided p of a difference of means
    # is 2/20: the labelling and its mirror image.
    assert all(float(c[1]) >= 0.1 for c in cells.values())
    assert "differ beyond chance (Holm-adjusted p < 0.05): none" in p.stdout


def test_calibration_finds_a_shifted_value_and_spares_the_others(tmp_path):
    rng = np.random.default_rng(3)
    ppn = tmp_path / "ppn4"
    for side, shift in (("ref", 1.0), ("ours", 1.25)):
        for i in range(1, 9):
            iso, p99, loaded = 100 * (1 + 0.05 * rng.standard_normal(3))
            write(ppn, f"{side}-{i}", lat_doc(iso, p99, loaded * shift))
    p = run(tmp_path, "--permutations", "4000")
    assert "(4000 random ways)" in p.stdout, p.stdout
    cells = calibration_cells(p.stdout)
    assert cells["loaded Avg"][1] == "<0.001"
    assert float(cells["isolated Avg"][1]) > 0.05 and float(cells["isolated 99%"][1]) > 0.05
    assert f"beyond chance (Holm-adjusted p < 0.05): {LAT} loaded Avg" in p.stdout
    # The same seed gives the same table; the calibration leaves the exit
    # status to the check (here a run of ours outside: 3, or all inside: 0).
    again = run(tmp_path, "--permutations", "4000")
    assert again.stdout == p.stdout and again.returncode == p.returncode


def test_calibration_off_and_bad_count(tmp_path):
    write(tmp_path / "ppn1", "ref-1", doc(2.0, 8000.0, 1.0))
    write(tmp_path / "ppn1", "ours-1", doc(2.0, 8000.0, 1.0))
    p = run(tmp_path, "--permutations", "0")
    assert p.returncode == 0 and "by chance" not in p.stdout and "calibration" not in p.stdout
    p = run(tmp_path)
    assert "by chance" in p.stdout and "(all 2 ways)" in p.stdout
    p = run(tmp_path, "--permutations", "-5")
    assert p.returncode == 2 and "--permutations must be >= 0" in p.stderr


def test_self_check_compares_the_reference_with_itself(tmp_path):
    ppn = tmp_path / "ppn1"
    # Run numbers, not file names, give the halves: ref-10 is the last run.
    for i, lat in ((1, 2.0), (2, 2.2), (3, 2.1), (10, 3.5)):
        write(ppn, f"ref-{i}", lat_doc(lat, 5.0, 2 * lat))
    write(ppn, "ours-1", lat_doc(9.0, 9.0, 9.0))  # never read with --self-check
    p = run(tmp_path, "--self-check")
    assert "2 reference run(s), 2 later reference run(s) in place of ours" in p.stdout, p.stdout
    r = rows(p.stdout)
    # Runs 1-2 (2.0-2.2, widened 1.8-2.42) against runs 3 and 10 (2.1, 3.5).
    assert r[(LAT, "isolated Avg")] == ("1/2", "OUTSIDE")
    assert r[(LAT, "isolated 99%")] == ("2/2", "ok")
    assert "2.0 - 2.2" in p.stdout and "2.1 - 3.5" in p.stdout and "9.0" not in p.stdout
    assert p.returncode == 3
    # One reference run cannot be split: nothing to compare.
    for i in (2, 3, 10):
        (ppn / f"ref-{i}.json").unlink()
    p = run(tmp_path, "--self-check")
    assert p.returncode == 1 and "nothing to compare" in p.stdout
