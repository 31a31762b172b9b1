"""Congestor sweep and repeats (network_load_test --congestor-sweep
--repeat 2) as gpcnet reads them: per-repetition accessors, the sweep
figure (paper Figures 4-5), the repeat statistics and their plot, and the
single-run commands on a document with repetitions.

The fixture is real output of the binary (fixtures/real/regenerate.sh).
"""

import csv
import io
import re

import numpy as np
import pytest
from matplotlib.collections import PathCollection
from matplotlib.patches import StepPatch

from conftest import REAL, fixture, read
from gpcnet.infra.errors import GpcnetError
from gpcnet.metrics.impact import congestion_impact, lower_is_better
from gpcnet.plots import sweep_figures
from gpcnet.results_json import results
from gpcnet.results_json.load import load

SOURCE = REAL / "network_load_test_sweep_repeat.json"
KERNELS = ["a2a", "p2p_incast", "rma_incast", "rma_bcast"]
TESTS = ["rr_two_sided_lat", "rr_two_sided_bw_sync", "multiple_allreduce"]


@pytest.fixture(scope="module")
def doc():
    return load(SOURCE)


def _tagged(doc, table_id, repetition):
    """The table as the JSON holds it, found without gpcnet's accessors."""
    (t,) = [t for t in doc["tables"] if t["id"] == table_id and t["repetition"] == repetition]
    return {r["test"]: r for r in t["rows"]}


def test_fixture_is_a_sweep_with_two_repetitions(doc):
    assert doc["config"]["congestor_sweep"] is True and doc["repeats"]["runs"] == 2
    assert results.repetitions(doc) == [1, 2]
    assert results.sweep_kernels(doc) == KERNELS == results.sweep_kernels(doc, 2)
    assert results.canary_tests(doc) == TESTS


@pytest.mark.parametrize("repetition", [1, 2])
def test_accessors_answer_for_one_repetition(doc, repetition):
    for table_id in ["isolated", "loaded"] + [f"loaded_by:{k}" for k in KERNELS]:
        rows = _tagged(doc, table_id, repetition)
        for test in TESTS:
            assert results.row(doc, table_id, test, repetition) is rows[test]
    entries = results.impacts(doc, repetition)
    assert [e["test"] for e in entries] == TESTS and {e["repetition"] for e in entries} == {repetition}


def test_repetition_1_is_the_default_and_repetitions_differ(doc):
    assert results.row(doc, "loaded", TESTS[0]) is _tagged(doc, "loaded", 1)[TESTS[0]]
    assert results.impact(doc, TESTS[0]) is results.impacts(doc, 1)[0]
    assert results.row(doc, "loaded", TESTS[0], 2)["avg"] != results.row(doc, "loaded", TESTS[0])["avg"]


def test_documents_without_repetitions_are_repetition_1():
    doc = load(REAL / "network_load_test.json")
    assert "repetition" not in doc["tables"][0]
    assert results.repetitions(doc) == [1]
    assert results.row(doc, "isolated", TESTS[0]) is not None
    assert results.repetition_note("x", doc) is None


def test_missing_repetition_is_a_clear_error(doc):
    with pytest.raises(GpcnetError, match=r"run.json: no repetition 3; it has 1 to 2"):
        results.check_repetition(doc, 3, "run.json")


def test_repeat_values_are_the_tables_and_statistics_recompute(doc):
    """repeats.metrics lists per repetition exactly the tables' values, and
    its mean, min, max and CV follow from them."""
    source = {"isolated_avg": ("isolated", "avg"), "isolated_p99": ("isolated", "p99"),
              "loaded_avg": ("loaded", "avg"), "loaded_p99": ("loaded", "p99")}
    metrics = doc["repeats"]["metrics"]
    assert {(m["test"], m["metric"]) for m in metrics} == {(t, k) for t in TESTS for k in
                                                           list(source) + ["ci_avg", "ci_p99"]}
    for m in metrics:
        if m["metric"] in source:
            table_id, stat = source[m["metric"]]
            expected = [results.row(doc, table_id, m["test"], r)[stat] for r in (1, 2)]
        else:
            expected = [results.impact(doc, m["test"], r)[m["metric"][3:]] for r in (1, 2)]
        assert m["values"] == pytest.approx(expected, rel=1e-12)
        values = np.array(m["values"])
        assert (m["mean"], m["min"], m["max"]) == pytest.approx((values.mean(), values.min(), values.max()))
        # docs/results-json.md: the sample standard deviation (n - 1) over the mean.
        assert m["cv"] == pytest.approx(values.std(ddof=1) / values.mean())
    for test, cv in doc["repeats"]["cv"].items():
        assert (cv["avg"], cv["p99"]) == tuple(m["cv"] for m in metrics if m["test"] == test and
                                               m["metric"] in ("ci_avg", "ci_p99"))


def test_impact_matrix_is_the_mean_ci_of_each_cell(doc):
    """As docs/results-json.md describes it: per congestor set the CI from the
    same repetition's tables, averaged over the repetitions."""
    m = doc["impact_matrix"]
    assert m["congestor_sets"] == [[k] for k in KERNELS] + [KERNELS] and m["tests"] == TESTS
    assert m["repetitions"] == 2
    for i, kernels in enumerate(m["congestor_sets"]):
        table_id = f"loaded_by:{kernels[0]}" if len(kernels) == 1 else "loaded"
        for j, test in enumerate(TESTS):
            for stat in ("avg", "p99"):
                per_rep = [congestion_impact(results.row(doc, "isolated", test, r)[stat],
                                             results.row(doc, table_id, test, r)[stat],
                                             lower_is_better(results.row(doc, table_id, test, r)["better"]))
                           for r in (1, 2)]
                assert m[stat][i][j] == pytest.approx(np.mean(per_rep), rel=1e-9), (kernels, test, stat)


def _legend_title(ax):
    legend = ax.get_legend()
    return legend.get_title().get_text() if legend else ""


def test_sweep_figure_layout_and_content(doc):
    fig = sweep_figures.sweep_figure(doc)
    rows = sweep_figures.sweep_rows(doc)
    assert [r[0] for r in rows] == ["isolated"] + [f"loaded_by:{k}" for k in KERNELS] + ["loaded"]
    axes = np.array(fig.axes).reshape(len(rows), len(TESTS))
    for col, test in enumerate(TESTS):
        assert axes[0, col].get_title() == results.row(doc, "isolated", test)["name"]
        # One log x-axis per column.
        assert {tuple(ax.get_xlim()) for ax in axes[:, col]} == {tuple(axes[0, col].get_xlim())}
        assert axes[0, col].get_xscale() == "log"
        for row_i, (table_id, label, _) in enumerate(rows):
            ax = axes[row_i, col]
            row = results.row(doc, table_id, test)
            assert label in ax.get_ylabel()
            steps = [p for p in ax.patches if isinstance(p, StepPatch)]
            assert len(steps) == 2, (table_id, test)  # filled and outlined histogram
            assert f"{row['samples']} samples" in _legend_title(ax)
            # The histogram drawn is this row's: its heights are the bin fractions.
            heights = steps[0].get_data().values
            assert heights.sum() == pytest.approx(1.0)
            assert np.count_nonzero(heights) == len(row["histogram"]["bins"])
    # The all-together panels show the same CI as the document's impact entries.
    for col, test in enumerate(TESTS):
        entry = results.impact(doc, test)
        assert f"CI {entry['avg']:.2f} Avg, {entry['p99']:.2f} 99%" in _legend_title(axes[-1, col])
        assert "CI" not in _legend_title(axes[0, col])


def test_sweep_figure_of_repetition_2_draws_repetition_2(doc):
    fig = sweep_figures.sweep_figure(doc, [TESTS[0]], repetition=2)
    assert len(fig.axes) == 2 + len(KERNELS)
    assert f"{results.row(doc, 'loaded', TESTS[0], 2)['avg']:.4g}" in \
        " ".join(t.get_text() for t in fig.axes[-1].get_legend().get_texts())


def test_repeats_figure_has_every_repetition_and_cv(doc):
    fig = sweep_figures.repeats_figure(doc)
    axes = np.array(fig.axes).reshape(len(TESTS), 3)
    by_key = {(m["test"], m["metric"]): m for m in doc["repeats"]["metrics"]}
    for row_i, test in enumerate(TESTS):
        for col, (_, metrics) in enumerate(sweep_figures._REPEAT_PANELS):
            ax = axes[row_i, col]
            dots = [c for c in ax.collections if isinstance(c, PathCollection)]
            plotted = sorted(y for c in dots for y in c.get_offsets()[:, 1])
            expected = sorted(v for key, _ in metrics for v in by_key[(test, key)]["values"])
            means = sorted(by_key[(test, key)]["mean"] for key, _ in metrics)
            assert plotted == pytest.approx(sorted(expected + means))
            labels = [t.get_text() for t in ax.get_xticklabels()]
            assert labels == [f"{label}\nCV {100 * by_key[(test, key)]['cv']:.1f}%" for key, label in metrics]
            assert ax.get_yscale() == "log"


def test_figures_refuse_documents_without_the_experiment():
    with pytest.raises(GpcnetError, match="no congestor sweep"):
        sweep_figures.sweep_figure(read("load_run.json"))
    with pytest.raises(GpcnetError, match="no per-repetition values"):
        sweep_figures.repeats_figure(read("load_verbose_matrix.json"))


def test_report_of_sweep_and_repeat(reports, doc):
    text = reports["real_sweep_repeat"].read_text()
    # The page's own ids (the SVGs' internal ids are matplotlib's business).
    ids = re.findall(r' id="([^"]+)"', re.sub(r"<svg.*?</svg>", "", text, flags=re.S))
    assert len(ids) == len(set(ids)), "duplicate HTML ids"
    for needed in ("sweep", "fig-sweep", "impact-matrix", "fig-impact-matrix", "repeats", "fig-repeats",
                   "table-repeats", "table-repetitions", "repetition-2", "table-isolated-r2",
                   "table-impact-r2", "table-loaded_by:a2a", "fig-ci"):
        assert needed in ids, needed
    assert text.count("<svg") == len(TESTS) + 4  # histograms, sweep, CI, matrix, repeats
    assert "All together" in text
    # Every single-run figure says which repetition it shows.
    for fig_id in ("fig-hist-rr_two_sided_lat", "fig-sweep", "fig-ci"):
        figure = text[text.index(f'id="{fig_id}"'):]
        caption = figure[figure.index("<figcaption>"):figure.index("</figcaption>")]
        assert "Repetition 1 of 2." in caption, fig_id
    # The statistics table: one row per metric, every value and the CV.
    table = text[text.index('id="table-repeats"'):]
    table = table[:table.index("</table>")]
    assert table.count("<tr>") == 1 + len(doc["repeats"]["metrics"])
    for m in doc["repeats"]["metrics"]:
        for v in m["values"] + [m["mean"], m["min"], m["max"]]:
            assert f'title="{v!r}">{v:.2f}<' in table
        assert f">{100 * m['cv']:.1f}%<" in table
    for r in doc["repetitions"]:
        assert f"<td>{r['seed']}</td>" in text


@pytest.mark.parametrize("kind, ext", [("sweep", "svg"), ("repeats", "png"), ("hist", "svg"), ("ci", "svg")])
def test_plot_kinds_of_a_sweep_repeat_run(cli, tmp_path, kind, ext):
    out = tmp_path / f"{kind}.{ext}"
    code, stdout, err = cli("plot", SOURCE, "--kind", kind, "-o", out)
    assert code == 0, err
    assert out.read_bytes().startswith(b"\x89PNG") if ext == "png" else b"<svg" in out.read_bytes()[:2000]
    if kind in ("sweep", "hist", "ci"):
        assert "has 2 repetitions; showing repetition 1" in err


@pytest.mark.parametrize("args, expected", [
    (["--kind", "sweep", "--repetition", "3"], "no repetition 3; it has 1 to 2"),
    (["--kind", "sweep", "--test", "nope"], "no test 'nope'"),
])
def test_plot_errors_on_sweep(cli, tmp_path, args, expected):
    code, _, err = cli("plot", SOURCE, *args, "-o", tmp_path / "x.png")
    assert code == 2 and expected in err


@pytest.mark.parametrize("kind, source, expected", [
    ("sweep", fixture("load_run.json"), "no congestor sweep"),
    ("repeats", fixture("load_verbose_matrix.json"), "no per-repetition values"),
])
def test_plot_experiment_kinds_on_other_runs(cli, tmp_path, kind, source, expected):
    code, _, err = cli("plot", source, "--kind", kind, "-o", tmp_path / "x.png")
    assert code == 2 and expected in err


def test_bad_repetition_option_is_a_usage_error(cli, capsys):
    with pytest.raises(SystemExit) as info:
        cli("table", SOURCE, "--repetition", "0")
    assert info.value.code == 2 and "must be a repetition number" in capsys.readouterr().err


@pytest.mark.parametrize("option", [[], ["--repetition", "2"]])
def test_compare_uses_one_repetition_and_says_which(cli, doc, option):
    repetition = int(option[1]) if option else 1
    code, out, err = cli("compare", SOURCE, fixture("load_run.json"), *option) if not option else \
        cli("compare", SOURCE, REAL / "network_load_test_sweep_repeat.json", *option)
    assert code == 0, err
    assert f"has 2 repetitions; showing repetition {repetition}" in out
    line = next(l for l in out.splitlines() if l.startswith("Loaded RR Two-sided Lat (8 B) Avg"))
    base = float(line.split()[-3])
    assert base == pytest.approx(results.row(doc, "loaded", TESTS[0], repetition)["avg"], rel=1e-3)
    # Only one repetition's metrics: no line twice.
    metric_lines = [l for l in out.splitlines() if l.startswith(("Isolated ", "Loaded ", "CI "))]
    assert len(metric_lines) == len(set(metric_lines)) == 3 * 4 + 3 * 2


def test_compare_with_a_run_lacking_the_repetition(cli):
    code, _, err = cli("compare", SOURCE, fixture("load_run.json"), "--repetition", "2")
    assert code == 2 and "load_run: no repetition 2; it has 1" in err


@pytest.mark.parametrize("repetition", [1, 2])
def test_table_uses_one_repetition_note_on_stderr(cli, doc, repetition):
    code, out, err = cli("table", SOURCE, "--format", "csv", "--repetition", repetition)
    assert code == 0
    assert f"showing repetition {repetition}" in err
    (row,) = csv.DictReader(io.StringIO(out))  # stdout is still pure CSV
    assert float(row["load_avg_lat"]) == results.row(doc, "loaded", TESTS[0], repetition)["avg"]
    assert float(row["iso_p99_bw"]) == results.row(doc, "isolated", "rr_two_sided_bw_sync", repetition)["p99"]


@pytest.mark.parametrize("drop, found", [
    (None, "congestor sweep = yes"),
    ("congestor sweep = yes", "repeat = 2"),  # a repeat-only run
])
def test_parse_refuses_sweep_and_repeat_text(cli, tmp_path, drop, found):
    text = (REAL / "network_load_test_sweep_repeat.txt").read_text()
    if drop:
        text = "".join(line for line in text.splitlines(True) if drop not in line)
    source = tmp_path / "run.txt"
    source.write_text(text)
    code, out, err = cli("parse", source)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"not parsed (found '{found}'); use the JSON the run wrote" in err
