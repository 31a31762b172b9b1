"""`--congestor-kind load-test`: the application starts when network_load_test's
isolated phase is over, so that it meets the loaded phase, and the overlap
of the application's run with the loaded phases is recorded per run."""
import json

import mpi_harness
import pytest

from gpcnet.cli import main
from gpcnet.study import congestor_job as cj


def _doc(phases, tests=("a", "b")):
    return {"config": {"tests": list(tests)}, "phases": [{"name": n, "repetition": r, "wall_s": w}
                                                         for n, r, w in phases]}


def test_loaded_overlap_hand_computed(tmp_path):
    # isolated a, b (1 s each), then loaded a (2 s) and loaded b (3 s): loaded from 0 to 5 s after the
    # clock starts; the application starts 1 s later (warm-up) and runs 6 s: [1, 7] meets [0, 5] for 4 s.
    path = tmp_path / "lt.json"
    path.write_text(json.dumps(_doc([("isolated:a", 1, 1.0), ("isolated:b", 1, 1.0),
                                     ("loaded:a", 1, 2.0), ("loaded:b", 1, 3.0)])))
    got = cj.loaded_overlap({"congestor_warmup": 1.0}, path, {"wall_s": 6.0})
    assert got == {"app_start_after_loaded_s": 1.0, "loaded_s": 5.0, "overlap_s": 4.0, "fraction": pytest.approx(4 / 6)}
    # a second repetition: its isolated phase (2 s) is not loaded, its loaded phase (2 s) is again
    path.write_text(json.dumps(_doc([("isolated:a", 1, 1.0), ("isolated:b", 1, 1.0), ("loaded:a", 1, 2.0),
                                     ("loaded:b", 1, 3.0), ("isolated:a", 2, 1.0), ("isolated:b", 2, 1.0),
                                     ("loaded:a", 2, 2.0)])))
    got = cj.loaded_overlap({"congestor_warmup": 1.0}, path, {"wall_s": 9.0})      # [1, 10] vs [0,5], [7,9]
    assert (got["loaded_s"], got["overlap_s"]) == (7.0, 6.0)
    assert cj.loaded_overlap({"congestor_warmup": 1.0}, path, {"status": "failed"}) is None
    assert cj.loaded_overlap({"congestor_warmup": 1.0}, tmp_path / "none.json", {"wall_s": 1.0}) is None


def test_isolated_done_counts_the_first_repetition(tmp_path):
    path = tmp_path / "lt.json"
    assert not cj.isolated_done(path)                                   # not written yet
    path.write_text(json.dumps(_doc([("isolated:a", 1, 1.0)])))
    assert not cj.isolated_done(path)
    path.write_text(json.dumps(_doc([("isolated:a", 1, 1.0), ("isolated:b", 1, 1.0)])))
    assert cj.isolated_done(path)
    path.write_text('{"config": {"tests": ["a"]}, "phases": [{"na')     # caught mid-write
    assert not cj.isolated_done(path)


APP = """
import json, os, sys, time
if os.environ.get("OMPI_COMM_WORLD_RANK", "0") == "0":
    d = json.load(open(sys.argv[1]))    # the load test's JSON as the application starts
    print("isolated=%d tests=%d" % (sum(p["name"].startswith("isolated:") for p in d["phases"]),
                                    len(d["config"]["tests"])))
time.sleep(0.3)
"""


def test_the_application_starts_with_the_loaded_phase(tmp_path, capsys):
    (tmp_path / "app.py").write_text(APP)
    out = tmp_path / "s.json"
    cjson = tmp_path / "s.d" / "congestor-III-r0.json"
    code = main(["study", "corun", "--launcher", "local", "--nodes", "n[1-18]", "-n", "6", "--rotations", "1",
                 "--settings", "III", "--baseline", "III", "--congestor-kind", "load-test", "--counters", "none",
                 "--congestor-bin", mpi_harness.built("network_load_test"),
                 "--congestor-args", "--congestors rma_bcast --time-limit 1 --measurements 3 "
                                     "--congestor-measurements 4",
                 "--congestor-warmup", "0.2", "--fom-regex", r"isolated=(\d+)", "-o", str(out),
                 "--", "python3", str(tmp_path / "app.py"), str(cjson)])
    o, e = capsys.readouterr()
    assert code == 0, o + e
    (run,) = json.loads(out.read_text())["runs"]
    app_out = (tmp_path / "s.d" / "app-III-r0.out").read_text()
    assert "isolated=3 tests=3" in app_out       # every isolated phase was over when it started
    lt = run["congestor"]["load_test"]
    ov = lt["overlap"]
    assert ov["app_start_after_loaded_s"] == 0.2 and ov["loaded_s"] > 0
    assert 0 < ov["fraction"] <= 1 and ov["overlap_s"] <= run["wall_s"] + 1e-6


def test_the_report_shows_each_run_s_share_congested():
    from gpcnet.report import study_page as page
    runs = [{"id": f"III-r{k}", "setting": "III", "rotation": k, "status": "ok", "wall_s": 2.0,
             "app_nodes": ["a"], "congestor_nodes": ["b"],
             "congestor": {"kind": "load-test", "load_test": {"impact": [], "ended_before_app": k == 1,
                           "overlap": {"app_start_after_loaded_s": 1.0, "loaded_s": 5.0, "overlap_s": f,
                                       "fraction": f / 2.0}}}}
            for k, f in enumerate([2.0, 1.0])]
    doc = {"kind": "gpcnet_study", "schema_version": 1, "nodes": ["a", "b"], "runs": runs,
           "config": {"study": "corun", "app_command": ["app"], "n": 1, "ppn": 1, "rotations": 2,
                      "launcher": "local", "settings": ["III"], "baseline": "III", "congestor_args": [],
                      "congestor_kind": "load-test"}}
    html = page.render(doc)
    assert "100.0%" in html and "50.0%" in html and "Median share of a run congested: 75.0% (lowest 50.0%)" in html
