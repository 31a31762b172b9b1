"""One function decides a document's kind, and one function computes the
Congestion Impact for every command."""

import json
import math

import pytest

from conftest import fixture, read
from gpcnet.metrics import reference
from gpcnet.metrics.impact import congestion_impact
from gpcnet.report import kinds


def test_study_is_recognised_by_its_kind_field_not_by_a_substring():
    assert kinds.kind_of({"kind": "gpcnet_study"}) == kinds.STUDY
    # The words anywhere else (a run's MPI library, say) make nothing a study.
    doc = read("network_run.json")
    doc["environment"]["mpi_library"] = '"kind": "gpcnet_study"'
    assert kinds.kind_of(doc) == kinds.RESULTS


def test_results_are_recognised_by_the_schema_required_fields():
    doc = read("load_run.json")
    assert kinds.kind_of(doc) == kinds.RESULTS
    del doc["phases"]
    assert kinds.kind_of(doc) is None
    assert kinds.kind_of([1, 2]) is None and kinds.kind_of({"kind": "other"}) is None


def test_the_study_writer_uses_the_same_kind():
    from gpcnet.study import document
    assert document.KIND == kinds.STUDY_KIND


def test_a_study_written_compactly_is_still_a_study(cli, tmp_path):
    """The old check looked for '"kind": "gpcnet_study"' in the first 4 kB;
    the same document without spaces, or with the field last, is a study."""
    study = {"schema_version": 1, "nodes": ["n1"], "runs": [],
             "config": {"study": "corun", "settings": ["I"], "app_command": ["x"], "n": 1, "ppn": 1,
                        "rotations": 1, "launcher": "local", "congestor_args": [], "patterns": None},
             "padding": " " * 5000, "kind": "gpcnet_study"}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(study, separators=(",", ":")))
    code, _, err = cli("report", path, "-o", tmp_path / "s.html")
    assert code == 0, err
    assert "corun study" in (tmp_path / "s.html").read_text()


def test_neither_kind_gets_the_results_messages(cli, tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{"kind": "something"}')
    code, _, err = cli("report", path, "-o", tmp_path / "r.html")
    assert code == 2 and "not a GPCNeT results document" in err and err.count("\n") == 1


@pytest.mark.parametrize("iso, loaded, lower, expected", [
    (2.0, 3.0, True, 1.5),      # latency up: harm above 1
    (4.0, 2.0, False, 2.0),     # bandwidth down: harm above 1
    (None, 1.0, True, None), (1.0, None, False, None),
    (0.0, 1.0, True, None), (1.0, -1.0, False, None),
    (math.inf, 1.0, True, None), (1.0, math.nan, True, None),
])
def test_congestion_impact(iso, loaded, lower, expected):
    assert congestion_impact(iso, loaded, lower) == expected


def test_published_ci_is_the_same_formula():
    pub = reference.published()[0]
    for metric in reference.METRICS:
        iso, load = pub.values[("iso", "avg", metric)], pub.values[("load", "avg", metric)]
        assert pub.ci(metric, "avg") == congestion_impact(iso, load, reference.LOWER_IS_BETTER[metric])


def test_parsed_key_results_are_recomputed_with_the_same_formula(cli, tmp_path):
    text = open(fixture("ours_load_default.txt")).read()
    cut = text[:text.index("Key Results")].rsplit("+", 1)[0]  # output cut before the Key Results
    path = tmp_path / "cut.txt"
    path.write_text(cut)
    code, out, err = cli("parse", path)
    assert code == 0, err
    doc = json.loads(out)
    assert len(doc["impact"]) == 3
    for entry in doc["impact"]:
        iso = next(r for t in doc["tables"] if t["id"] == "isolated" for r in t["rows"] if r["test"] == entry["test"])
        loaded = next(r for t in doc["tables"] if t["id"] == "loaded" for r in t["rows"] if r["test"] == entry["test"])
        ci = congestion_impact(iso["avg"], loaded["avg"], loaded["better"] == "lower")
        assert entry["avg_printed"] == round(ci, 1)


def test_text_naming_no_nodes_is_refused(cli, tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("Network Tests v1.3\n  Test with 4 MPI ranks (0 nodes)\n")
    code, _, err = cli("parse", path)
    assert code == 2 and "names no ranks or nodes" in err and err.count("\n") == 1
