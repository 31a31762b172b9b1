"""The traffic classes' isolation figure (issue 54, item 4): gpcnet compare
ONE.json OWN.json --isolation and gpcnet report OWN.json --one-class
ONE.json, checked against values recomputed by hand from two synthetic
documents."""

import copy
import json

from conftest import fixture
from scipy import stats as sps

LAT, BW = "rr_two_sided_lat", "rr_two_sided_bw_sync"


def _doc(cis: dict) -> dict:
    """load_run.json with one impact entry per canary and repetition:
    cis = {test: [(avg, p99) of repetition 1, of repetition 2, ...]}."""
    doc = json.load(open(fixture("load_run.json")))
    names = {e["test"]: e["name"] for e in doc["impact"]}
    reps = len(next(iter(cis.values())))
    tables = []
    for rep in range(1, reps + 1):
        for t in doc["tables"]:
            tables.append(dict(copy.deepcopy(t), repetition=rep))
    doc["tables"] = tables
    doc["impact"] = [{"test": test, "name": names[test], "avg": avg, "p99": p99,
                      "avg_printed": round(avg, 1), "p99_printed": round(p99, 1), "repetition": rep}
                     for rep in range(1, reps + 1) for test, values in cis.items()
                     for avg, p99 in [values[rep - 1]]]
    return doc


def _row(out: str, name: str, stat: str) -> list:
    return next(l for l in out.splitlines() if l.startswith(name) and l[len(name):].split()[0] == stat).split()


def test_isolation_recomputed_by_hand(cli, write_json):
    one = {LAT: [(4.0, 9.0), (4.4, 8.0), (3.6, 10.0)], BW: [(2.0, 3.0), (2.2, 3.0), (1.8, 3.0)]}
    own = {LAT: [(1.1, 1.5), (1.2, 1.4), (1.0, 1.6)], BW: [(2.1, 3.0), (2.0, 3.0), (1.9, 3.0)]}
    a, b = write_json(_doc(one), "one.json"), write_json(_doc(own), "own.json")
    code, out, err = cli("compare", a, b, "--isolation")
    assert code == 0, err
    # By hand: I1 = mean(4.0, 4.4, 3.6) = 4.0, I2 = mean(1.1, 1.2, 1.0) = 1.1,
    # given back = (4.0 - 1.1) / (4.0 - 1) = 96.7%.
    cells = _row(out, "RR Two-sided Lat (8 B)", "Avg")
    assert cells[-4:-1] == ["4.000X", "1.100X", "96.7%"]
    p = sps.ttest_ind([1.1, 1.2, 1.0], [4.0, 4.4, 3.6], equal_var=False).pvalue
    assert p < 0.01 and cells[-1] == f"{p:.3g}**"
    # 99%: I1 = 9, I2 = 1.5, (9 - 1.5) / 8 = 93.8%
    assert _row(out, "RR Two-sided Lat (8 B)", "99%")[-4:-2] == ["9.000X", "1.500X"]
    assert _row(out, "RR Two-sided Lat (8 B)", "99%")[-2] == "93.8%"
    # The bandwidth canary: I1 = 2.0, I2 = 2.0: nothing given back, not significant.
    cells = _row(out, "RR Two-sided BW+Sync (131072 B)", "Avg")
    assert cells[-4:-2] == ["2.000X", "2.000X"] and cells[-2] == "0.0%" and not cells[-1].endswith("*")
    # Constant and equal on both sides: p = 1.
    assert _row(out, "RR Two-sided BW+Sync (131072 B)", "99%")[-1] == "1"
    assert "given back = (I1 - I2) / (I1 - 1)" in out


def test_no_impact_to_give_back_is_a_dash(cli, write_json):
    a = write_json(_doc({LAT: [(0.9, 1.0)]}), "one.json")
    b = write_json(_doc({LAT: [(1.0, 1.0)]}), "own.json")
    code, out, _ = cli("compare", a, b, "--isolation")
    assert code == 0
    cells = _row(out, "RR Two-sided Lat (8 B)", "Avg")
    assert cells[-2:] == ["-", "n/a"]  # I1 <= 1; one repetition: no test
    assert "needs 2 or more repetitions" in out


def test_isolation_bad_input(cli, write_json):
    code, _, err = cli("compare", fixture("load_run.json"), "--isolation")
    assert code == 2 and err.count("\n") == 1 and "--isolation compares exactly two runs, got 1" in err
    code, _, err = cli("compare", fixture("load_run.json"), fixture("load_run.json"), fixture("load_run.json"),
                       "--isolation")
    assert code == 2 and "got 3" in err
    code, _, err = cli("compare", fixture("network_run.json"), fixture("load_run.json"), "--isolation")
    assert code == 2 and "no Congestion Impact" in err and "Traceback" not in err


def test_report_shows_the_isolation_figure(cli, write_json, tmp_path):
    a = write_json(_doc({LAT: [(3.0, 5.0), (3.0, 5.0)]}), "one.json")
    b = write_json(_doc({LAT: [(1.5, 2.0), (1.5, 2.0)]}), "own.json")
    html = tmp_path / "r.html"
    code, _, err = cli("report", b, "--one-class", a, "-o", html)
    assert code == 0, err
    page = html.read_text()
    assert 'id="table-isolation"' in page and "Isolation by traffic class" in page
    # (3 - 1.5) / (3 - 1) = 75%; constant and different: p = 0, significant.
    assert "<td class=\"num\">75.0%</td><td class=\"num\">0**</td>" in page
    plain = tmp_path / "plain.html"
    assert cli("report", b, "-o", plain)[0] == 0
    assert "table-isolation" not in plain.read_text()


def test_report_one_class_bad_input_writes_nothing(cli, tmp_path):
    html = tmp_path / "r.html"
    code, _, err = cli("report", fixture("load_run.json"), "--one-class", tmp_path / "missing.json", "-o", html)
    assert code == 2 and "missing.json" in err and not html.exists()


def test_runs_of_different_placements_are_refused(cli, write_json, tmp_path):
    """The figure is one placement in two classes: a second run whose
    canaries (or congestors) sat elsewhere is refused, nothing written."""
    one = _doc({LAT: [(3.0, 5.0), (3.2, 5.0)]})
    own = _doc({LAT: [(1.5, 2.0), (1.4, 2.0)]})
    own["placement"]["canary_nodes"] = list(reversed(own["placement"]["canary_nodes"]))  # order is no difference
    a, b = write_json(one, "one.json"), write_json(own, "own.json")
    assert cli("compare", a, b, "--isolation")[0] == 0
    moved = copy.deepcopy(own)
    moved["placement"]["canary_nodes"] = ["box#2", "box#6"]     # box#1 and box#2 swap roles
    moved["placement"]["congestor_nodes"] = [n if n != "box#2" else "box#1"
                                             for n in moved["placement"]["congestor_nodes"]]
    c = write_json(moved, "moved.json")
    code, out, err = cli("compare", a, c, "--isolation")
    assert code == 2 and err.count("\n") == 1 and out == "", err
    assert "different canary nodes (box#1,box#6 in the first, box#2,box#6 in the second)" in err
    html = tmp_path / "r.html"
    code, _, err = cli("report", c, "--one-class", a, "-o", html)
    assert code == 2 and "different canary nodes" in err and not html.exists()


def test_the_class_each_run_saw_is_shown(cli, write_json, tmp_path):
    """The class variables each run's ranks saw (roles.launch_variables):
    per role under roles from the launch, for the whole job under the draw."""
    def with_roles(doc, roles):
        doc["roles"] = roles
        return doc

    def var(*values, unset=0):
        return {"values": [{"value": v, "ranks": n, "nodes": n, "first_node": "box#1"} for v, n in values],
                "unset_ranks": unset}
    one = with_roles(_doc({LAT: [(3.0, 5.0), (3.2, 5.0)]}),
                     {"source": "draw", "launch_variables": {"watched": [], "all": {
                         "GPCNET_TRAFFIC_CLASS": var(("0", 8))}}})
    own = with_roles(_doc({LAT: [(1.5, 2.0), (1.4, 2.0)]}),
                     {"source": "launch", "launch_variables": {"watched": [],
                      "canaries": {"GPCNET_TRAFFIC_CLASS": var(("1", 2)), "UCX_IB_SL": var(("1", 1), unset=1)},
                      "congestors": {"GPCNET_TRAFFIC_CLASS": var(("0", 6))}}})
    a, b = write_json(one, "one.json"), write_json(own, "own.json")
    code, out, err = cli("compare", a, b, "--isolation")
    assert code == 0, err
    assert "class variables in one: all: GPCNET_TRAFFIC_CLASS=0 (8 nodes)" in out
    assert ("class variables in own: canaries: GPCNET_TRAFFIC_CLASS=1 (2 nodes); UCX_IB_SL=1 (1 node), "
            "unset (1 rank) | congestors: GPCNET_TRAFFIC_CLASS=0 (6 nodes)") in out
    html = tmp_path / "r.html"
    assert cli("report", b, "--one-class", a, "-o", html)[0] == 0
    assert "Class variables in own: canaries: GPCNET_TRAFFIC_CLASS=1 (2 nodes)" in html.read_text()
    # A run that recorded none says so.
    plain = write_json(_doc({LAT: [(1.5, 2.0), (1.4, 2.0)]}), "plain.json")
    assert "class variables in plain: none recorded" in cli("compare", a, plain, "--isolation")[1]
