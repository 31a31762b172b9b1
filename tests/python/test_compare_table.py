"""gpcnet compare (side by side, regression gate) and gpcnet table (the
paper's Table 2 layout)."""

import csv
import io

from conftest import fixture
from gpcnet.metrics import reference
def test_compare_shows_values_and_ratios(cli):
    code, out, err = cli("compare", fixture("load_run.json"), fixture("load_run_worse.json"))
    assert code == 0 and err == ""
    header = out.splitlines()[0]
    assert "load_run" in header and "load_run_worse" in header
    line = next(l for l in out.splitlines() if l.startswith("Loaded RR Two-sided Lat (8 B) Avg"))
    base, new, ratio = line.split()[-3:]
    assert abs(float(new) / float(base) - float(ratio)) < 0.01
    assert any(l.startswith("CI RR Two-sided BW+Sync (131072 B) 99%") for l in out.splitlines())


def test_fail_if_worse_lists_regressions_and_exits_1(cli):
    code, out, _ = cli("compare", fixture("load_run.json"), fixture("load_run_worse.json"), "--fail-if-worse", "10")
    assert code == 1
    regressions = [l for l in out.splitlines() if l.startswith("REGRESSION")]
    assert any("Loaded RR Two-sided Lat (8 B) Avg" in l for l in regressions)
    # Bandwidth going down is worse, and CI going up is worse.
    assert any("Loaded RR Two-sided BW+Sync (131072 B) Avg" in l for l in regressions)
    assert any(l.startswith("REGRESSION load_run_worse: CI ") for l in regressions)
    assert all("limit 10%" in l for l in regressions)


def test_improvement_is_not_a_regression(cli):
    # Reversed: the worse run is the baseline, so everything loaded improves.
    code, out, _ = cli("compare", fixture("load_run_worse.json"), fixture("load_run.json"), "--fail-if-worse", "10")
    assert "REGRESSION" not in out or "Loaded" not in out.split("REGRESSION", 1)[1]
    assert code in (0, 1)
    code, out, _ = cli("compare", fixture("load_run.json"), fixture("load_run.json"), "--fail-if-worse", "0")
    assert code == 0 and "no metric is more than 0% worse" in out


def test_compare_network_test_with_load_test_notes_differences(cli):
    code, out, _ = cli("compare", fixture("load_run.json"), fixture("network_run.json"), "--fail-if-worse", "1000")
    assert code == 0
    assert "note: program differs" in out
    loaded = next(l for l in out.splitlines() if l.startswith("Loaded RR Two-sided Lat (8 B) Avg"))
    assert loaded.split()[-2:] == ["-", "-"]  # absent in network_test


def test_compare_errors(cli, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    code, _, err = cli("compare", fixture("load_run.json"), bad)
    assert code == 2 and "bad.json: malformed JSON" in err


def test_table_markdown(cli):
    code, out, _ = cli("table", fixture("load_run.json"), fixture("network_run.json"), "--format", "md")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("| Run | Nodes | PPort | Isolated Avg Lat | Isolated Avg BW | Isolated Avg Allreduce "
                               "| Loaded Avg Lat")
    assert lines[2].startswith("| load_run | 10 | 1 |")
    assert lines[3].startswith("| network_run | 2 | 2 |") and "| – |" in lines[3]


def test_table_csv_uses_the_published_column_names(cli):
    code, out, _ = cli("table", fixture("load_run.json"), "--format", "csv", "--published")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 1 + len(reference.published())
    assert {"iso_avg_lat", "load_p99_allreduce"} <= set(rows[0])
    crystal = next(r for r in rows if r["run"] == "Crystal" and r["nodes"] == "696" and r["pport"] == "32")
    assert float(crystal["load_p99_lat"]) == 9146.6
    from conftest import read
    assert float(rows[0]["iso_avg_lat"]) == read("load_run.json")["tables"][0]["rows"][0]["avg"]


def test_table_latex(cli, tmp_path):
    out_file = tmp_path / "t.tex"
    code, _, _ = cli("table", fixture("load_run.json"), fixture("network_run.json"), "--format", "latex",
                     "-o", out_file)
    tex = out_file.read_text()
    assert code == 0 and tex.count(r"\begin{tabular}") == 1 and tex.rstrip().endswith(r"\end{tabular}")
    assert r"Isolated 99\%" in tex and r"load\_run" in tex and "--" in tex
    body = [l for l in tex.splitlines() if l.startswith(r"load\_run")][0]
    assert body.count("&") == 14


def test_published_ci_follows_the_paper_definition():
    malbec = next(p for p in reference.published() if p.system == "Malbec")
    assert abs(malbec.ci("lat", "avg") - 2.1 / 1.8) < 1e-9          # loaded / isolated
    assert abs(malbec.ci("bw", "avg") - 565.0 / 523.2) < 1e-9        # isolated / loaded
    assert all(malbec.ci(m, s) < 10 for m in reference.METRICS for s in ("avg", "p99"))


def test_closest_pport_prefers_the_larger_system_on_ties():
    picks = {p.system: p for p in reference.closest_per_system(32)}
    assert (picks["Crystal"].nodes, picks["Crystal"].pport) == (696, 32)
    assert picks["Edison"].pport == 24 and picks["Osprey"].pport == 32
