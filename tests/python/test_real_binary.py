"""Run the real binaries (when built) on emulated nodes and check that the
JSON they write loads, that their text output parses to the same numbers,
and that the report renders. Skipped cleanly when build/ has no binaries.

The build directory is <repo>/build unless GPCNET_BUILD_DIR says otherwise.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO
from mpi_harness import QUICK_CONGESTORS, QUICK_LOOPS
from gpcnet.cli import main
from gpcnet.parse_text import parse_text
from gpcnet.results_json.load import load, validate

BUILD = Path(os.environ.get("GPCNET_BUILD_DIR", REPO / "build"))
# Bounded work (a few short measurements, short congestor passes): what is
# checked is the documents, not the numbers; the default loops took 72 s
# for one load test beside two CPU hogs.
SHORT = ["--measurements", "3", *QUICK_LOOPS]


def _binary(name: str) -> Path:
    path = BUILD / name
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.skip(f"{path} not built (cmake -S . -B build && cmake --build build)")
    if not shutil.which("mpirun"):
        pytest.skip("mpirun not installed")
    return path


def _run(binary: Path, ranks: int, args: list, cwd: Path) -> str:
    """mpirun the binary, return its stdout."""
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = ["mpirun", "--oversubscribe", "-np", str(ranks), str(binary), "--quiet", "--force", *args]
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=240)
    if proc.returncode != 0:
        pytest.fail(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr[-3000:]}")
    return proc.stdout


def _check_run(tmp_path: Path, program: str, ranks: int, extra: list, expect_tables: set):
    (tmp_path / "out").mkdir()
    stdout = _run(_binary(program), ranks, ["--time-limit", "0.1", *SHORT, "--output-dir", "out",
                                             "--json", "out/run.json", *extra], tmp_path)
    doc = load(tmp_path / "out" / "run.json")
    assert doc["program"] == program and doc["status"] == "complete" and doc["source"] == "run"
    assert expect_tables <= {t["id"] for t in doc["tables"]}

    parsed = parse_text(stdout, f"{program} stdout")
    validate(parsed)
    real = {(t["id"], r["test"]): r for t in doc["tables"] for r in t["rows"]}
    for t in parsed["tables"]:
        for row in t["rows"]:
            for key in ("avg", "p99"):
                assert abs(row[key] - real[(t["id"], row["test"])][key]) <= 0.05 + 1e-9 * row[key]

    html = tmp_path / "report.html"
    assert main(["report", str(tmp_path / "out" / "run.json"), "-o", str(html)]) == 0
    assert html.read_text().count("<svg") >= 1
    return doc


def test_network_load_test_end_to_end(tmp_path):
    doc = _check_run(tmp_path, "network_load_test", 10, ["--emulate-nodes", "1", "--seed", "7",
                                                               *QUICK_CONGESTORS],
                     {"isolated", "loaded"})
    assert [i["test"] for i in doc["impact"]] == doc["config"]["tests"]
    assert len(doc["placement"]["canary_nodes"]) == 2
    assert (tmp_path / doc["placement"]["node_list_files"]["canaries"]).is_file()


def test_network_test_end_to_end(tmp_path):
    doc = _check_run(tmp_path, "network_test", 4, ["--emulate-nodes", "2"], {"isolated"})
    assert len(doc["tables"][0]["rows"]) == 8 and doc["environment"]["ppn_max"] == 2


def test_sweep_and_repeat_end_to_end(tmp_path):
    """The current binary's --congestor-sweep --repeat document through the
    figures gpcnet draws of it (the stored fixture may be older)."""
    from gpcnet.plots import sweep_figures
    from gpcnet.results_json import results
    (tmp_path / "out").mkdir()
    _run(_binary("network_load_test"), 10,
         ["--emulate-nodes", "1", "--time-limit", "0.1", "--measurements", "2", "--rings", "2",
          "--iterations", "5", "--warmup", "1", "--congestor-measurements", "2", "--congestor-iterations", "2",
          "--tests", "rr_two_sided_lat,rr_two_sided_bw_sync",
          "--congestors", "a2a,rma_bcast", "--congestor-sweep", "--repeat", "2",
          "--output-dir", "out", "--json", "out/run.json"], tmp_path)
    doc = load(tmp_path / "out" / "run.json")
    assert results.repetitions(doc) == [1, 2] and results.sweep_kernels(doc) == ["a2a", "rma_bcast"]
    assert results.canary_tests(doc) == ["rr_two_sided_lat", "rr_two_sided_bw_sync"]
    assert len(sweep_figures.sweep_figure(doc).axes) == 4 * len(results.canary_tests(doc))
    assert len(sweep_figures.repeats_figure(doc).axes) == 3 * len(results.canary_tests(doc))
    html = tmp_path / "report.html"
    assert main(["report", str(tmp_path / "out" / "run.json"), "-o", str(html)]) == 0
    text = html.read_text()
    assert 'id="fig-sweep"' in text and 'id="fig-repeats"' in text and 'id="repetition-2"' in text
