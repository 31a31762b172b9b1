"""`gpcnet study scale` (GPCNeT alone on several node counts, the co-run
paper's Section IV-C): the bandwidth ratio taken from a load test JSON,
and bad input, which is one line and exit 2 with nothing written."""
import pytest

from gpcnet.cli import main
from gpcnet.study import scale


def _table(kind, rep, bw):
    return {"id": kind, "repetition": rep, "rows": [{"test": "rr_two_sided_lat", "better": "lower", "avg": 5.0},
                                                   {"test": "rr_two_sided_bw_sync", "better": "higher", "avg": bw}]}


def test_bandwidth_ratio_is_loaded_over_isolated_as_the_paper():
    # repetition 1: 800 MiB/s loaded of 1000 isolated = 0.8; repetition 2: 300 of 600 = 0.5; mean 0.65
    doc = {"tables": [_table("isolated", 1, 1000.0), _table("loaded", 1, 800.0),
                      _table("isolated", 2, 600.0), _table("loaded", 2, 300.0)],
           "impact": [{"test": "rr_two_sided_lat", "avg": 9.0}, {"test": "rr_two_sided_bw_sync", "avg": 1.25},
                      {"test": "rr_two_sided_bw_sync", "avg": 2.0}]}
    test, ratio, ci = scale.bandwidth_ratio(doc)
    assert test == "rr_two_sided_bw_sync" and ratio == pytest.approx(0.65)
    assert ci == pytest.approx(1.625)                 # the load test's own Avg CI (isolated / loaded), kept
    # without the tables: the inverse of each Avg CI, then the mean: (0.8 + 0.5) / 2
    doc["tables"] = [{"id": "loaded", "rows": doc["tables"][1]["rows"]}]
    assert scale.bandwidth_ratio(doc)[1] == pytest.approx(0.65)
    assert scale.bandwidth_ratio({"tables": [], "impact": []}) == (None, None, None)


def test_the_paper_s_rma_broadcast_is_the_default_congestor():
    assert scale.congestor_args(None, ["--measurements", "3"]) == ["--congestors", "rma_bcast", "--measurements", "3"]
    assert scale.congestor_args("a2a,rma_bcast:2", []) == ["--congestors", "a2a,rma_bcast:2"]
    assert scale.congestor_args("all", ["--tests", "x"]) == ["--tests", "x"]          # the load test's own mix
    assert scale.congestor_args(None, ["--congestors", "a2a"]) == ["--congestors", "a2a"]


@pytest.mark.parametrize("args, words", [
    (["--node-counts", "4,x"], "--node-counts: 'x' is not a node count"),
    (["--node-counts", "0"], "--node-counts: '0' is not a node count"),
    (["--node-counts", "4,4"], "--node-counts: 4 is given twice"),
    (["--node-counts", "16"], "--node-counts: 16 nodes asked for, the node list has 6"),
    (["--node-counts", "4", "--repetitions", "0"], "--repetitions 0: expected 1 or more"),
    (["--node-counts", "4", "--counter-interval", "0"], "--counter-interval 0: expected seconds above 0"),
    (["--node-counts", "4", "--stall-threshold", "-1"], "--stall-threshold -1: expected stalls per second"),
    (["--node-counts", "4", "--load-test-args", "'unclosed"], "--load-test-args: No closing quotation"),
    (["--node-counts", "4", "--congestors", "a2a", "--load-test-args", "--congestors rma_bcast"],
     "--congestors is given twice"),
    (["--node-counts", "4", "--congestors", " "], "--congestors: empty"),
])
def test_scale_bad_input_is_one_line_and_exit_2(tmp_path, capsys, args, words):
    out = tmp_path / "scale.json"
    code = main(["study", "scale", "--launcher", "local", "--nodes", "n[1-6]", *args, "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists() and not (tmp_path / "scale.d").exists()


SMALL = "--congestors a2a --canary-fraction 0.5 --measurements 3 --congestor-measurements 3"


def _sweep(tmp_path, congestor_bin, counts, tests):
    from pathlib import Path
    return ["study", "scale", "--launcher", "local", "--nodes", "n[1-6]", "--node-counts", counts,
            "--repetitions", "1", "--load-test-bin", Path(congestor_bin).with_name("network_load_test"),
            "--load-test-args", f"{SMALL} --tests {tests}", "-o", tmp_path / "scale.json"]


def test_a_local_sweep_records_each_count_s_bandwidth_ratio(tmp_path, capsys, congestor_bin):
    import json
    code = main([str(a) for a in _sweep(tmp_path, congestor_bin, "6,4", "rr_two_sided_bw_sync")])
    out = capsys.readouterr().out
    assert code == 0, out
    doc = json.loads((tmp_path / "scale.json").read_text())
    assert [(r["id"], len(r["app_nodes"])) for r in doc["runs"]] == [("n6-r0", 6), ("n4-r0", 4)]
    for r in doc["runs"]:
        lt = r["load_test"]
        assert r["status"] == "ok" and lt["bandwidth_test"] == "rr_two_sided_bw_sync"
        ci = [i["avg"] for i in lt["impact"] if i["test"] == "rr_two_sided_bw_sync"][0]
        assert lt["bandwidth_ratio"] == pytest.approx(1 / ci) and lt["congestion_impact"] == pytest.approx(ci)
        assert lt["bandwidth_ratio_is"] == "loaded / isolated"
        assert "series" in r["counters"]
    assert main(["report", str(tmp_path / "scale.json"), "-o", str(tmp_path / "s.html")]) == 0
    assert 'id="fig-counts"' in (tmp_path / "s.html").read_text()


def test_a_load_test_without_a_bandwidth_canary_is_a_failed_run(tmp_path, capsys, congestor_bin):
    import json
    code = main([str(a) for a in _sweep(tmp_path, congestor_bin, "6", "rr_two_sided_lat")])
    out = capsys.readouterr().out
    assert code == 1, out
    (run,) = json.loads((tmp_path / "scale.json").read_text())["runs"]
    assert run["status"] == "failed" and "ran no bandwidth canary" in run["error"]
