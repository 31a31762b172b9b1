"""The Benchpark/Ramble files (packaging/benchpark) without Ramble: the
application's figure-of-merit regexes and success criterion applied, the
way Ramble's analyze step applies them (ramble_emulator.py), to real
outputs of both programs (tests/python/fixtures/real, each with the JSON of
the same run, whose unrounded numbers give the expected values) and to
reference-format text; every value and unit is checked."""
import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "tests"))
import mpi_harness  # noqa: E402
import ramble_emulator  # noqa: E402

BENCHPARK = REPO / "packaging" / "benchpark"
FIXTURES = REPO / "tests" / "python" / "fixtures"
APP = ramble_emulator.load_application(BENCHPARK / "repo" / "gpcnet" / "application.py")
ISOLATED = "Isolated Network Tests"
LOADED = "Network Tests running with Congestion Tests"
KEY = "Network Tests running with Congestion Tests - Key Results"


def analyze(tmp_path, text, name="run.out"):
    log = tmp_path / name
    log.write_text(text)
    return ramble_emulator.analyze(APP, log)


def rows(values, table, name):
    """{(row name, column): (value, unit)} of a table's figures of merit."""
    out = {}
    for fom, v in values[table].items():
        for suffix in (" Congestion Impact Avg", " Congestion Impact 99%", " Avg", " 99%"):
            if fom.endswith(suffix):
                out[(fom[: -len(suffix)], suffix.strip())] = v
                break
        else:
            raise AssertionError(f"{name}: unexpected figure of merit {fom!r} in {table!r}")
    return out


def expected_rows(json_rows):
    return {(r["name"], col): (f"{r[key]:.1f}", r["unit"])
            for r in json_rows for col, key in (("Avg", "avg"), ("99%", "p99"))}


@pytest.mark.parametrize("name", ["network_load_test", "network_test", "network_load_test_verbose"])
def test_figures_of_merit_of_our_runs_match_their_json(tmp_path, name):
    text = (FIXTURES / "real" / f"{name}.txt").read_text()
    doc = json.loads((FIXTURES / "real" / f"{name}.json").read_text())
    values, success = analyze(tmp_path, text)
    assert success
    tables = {t["id"]: t for t in doc["tables"]}
    assert rows(values, ISOLATED, name) == expected_rows(tables["isolated"]["rows"])
    assert values["null"] == {"Official default configuration": ("no", "")}
    if doc["program"] == "network_test":
        assert set(values) == {ISOLATED, "null"}
        return
    impact = {(i["name"], f"Congestion Impact {col}"): (f"{i[key]:.1f}", "X")
              for i in doc["impact"] for col, key in (("Avg", "avg_printed"), ("99%", "p99_printed"))}
    assert rows(values, KEY, name) == impact and len(impact) == 6
    loaded = expected_rows(tables["loaded"]["rows"])
    if not doc["config"]["verbose"]:
        assert rows(values, LOADED, name) == loaded
        return
    # --verbose: one loaded table per canary, titled after it, with the
    # congestors' bandwidth during that canary.
    for row in tables["loaded"]["rows"]:
        short = row["name"].rsplit(" (", 1)[0]
        [ctx] = [c for c in values if c.startswith(LOADED + " (") and c.endswith(f"{short} Network Test)")]
        got = rows(values, ctx, name)
        assert {k: v for k, v in got.items() if k[0] == row["name"]} == expected_rows([row])
        congestors = tables[f"congestors_during:{row['test']}"]["rows"]
        assert {k: v for k, v in got.items() if k[0] != row["name"]} == expected_rows(congestors)


REFERENCE_LOAD = {
    ISOLATED: {"RR Two-sided Lat (8 B)": ("2.3", "5.0", "usec"),
               "RR Two-sided BW+Sync (131072 B)": ("5400.2", "3900.5", "MiB/s/rank"),
               "Multiple Allreduce (8 B)": ("9.1", "11.8", "usec")},
    LOADED: {"RR Two-sided Lat (8 B)": ("3.4", "12.1", "usec"),
             "RR Two-sided BW+Sync (131072 B)": ("2100.7", "900.3", "MiB/s/rank"),
             "Multiple Allreduce (8 B)": ("25.3", "60.2", "usec")},
    KEY: {"RR Two-sided Lat (8 B)": ("1.5", "2.4", "X"),
          "RR Two-sided BW+Sync (131072 B)": ("2.6", "4.3", "X"),
          "Multiple Allreduce (8 B)": ("2.8", "5.1", "X")},
}
REFERENCE_NETWORK = {ISOLATED: {
    "RR Two-sided Lat (8 B)": ("2.2", "4.8", "usec"),
    "RR Get Lat (8 B)": ("3.1", "6.7", "usec"),
    "RR Two-sided BW (131072 B)": ("6100.3", "4500.1", "MiB/s/rank"),
    "RR Put BW (131072 B)": ("6800.9", "5200.4", "MiB/s/rank"),
    "RR Two-sided BW+Sync (131072 B)": ("5400.2", "3900.5", "MiB/s/rank"),
    "Nat Two-sided BW (131072 B)": ("7000.4", "6100.8", "MiB/s/rank"),
    "Multiple Allreduce (8 B)": ("9.1", "11.8", "usec"),
    "Multiple Alltoall (4096 B)": ("900.2", "610.7", "MiB/s/rank"),
}}


@pytest.mark.parametrize("fixture,expected", [
    ("ref_load_default.txt", REFERENCE_LOAD),
    ("ref_network_default.txt", REFERENCE_NETWORK),
    ("ref_load_verbose.txt", {ISOLATED: REFERENCE_LOAD[ISOLATED], KEY: REFERENCE_LOAD[KEY]}),
])
def test_figures_of_merit_of_reference_format_output(tmp_path, fixture, expected):
    """The reference GPCNeT v1.3 prints no Settings block: no 'official'
    figure of merit, the tables alone."""
    values, success = analyze(tmp_path, (FIXTURES / fixture).read_text())
    assert success
    assert "null" not in values
    for table, want in expected.items():
        col = "Congestion Impact " if table == KEY else ""
        assert rows(values, table, fixture) == {
            k: v for name, (avg, p99, unit) in want.items()
            for k, v in (((name, col + "Avg"), (avg, unit)), ((name, col + "99%"), (p99, unit)))}


def _final_table_end(lines, title):
    start = max(i for i, line in enumerate(lines) if title in line and line.startswith("|"))
    end = start
    while end + 1 < len(lines) and lines[end + 1].strip():
        end += 1
    return end


@pytest.mark.parametrize("name,title", [
    ("network_load_test", KEY), ("network_test", ISOLATED),
    ("network_load_test_verbose", KEY), ("network_load_test_sweep_repeat", KEY),
])
def test_a_run_that_did_not_finish_fails(tmp_path, name, title):
    """Output cut at any line up to the end of its final table (killed,
    --deadline, MPI failure mid-run) fails the success criterion; figures
    of merit of the finished tables are still read."""
    lines = (FIXTURES / "real" / f"{name}.txt").read_text().splitlines(keepends=True)
    end = _final_table_end(lines, title)
    assert analyze(tmp_path, "".join(lines))[1]
    for cut in range(end + 1):
        values, success = analyze(tmp_path, "".join(lines[:cut]))
        assert not success, f"{name} cut after line {cut} passed"


def test_error_line_and_nan_rows_fail(tmp_path):
    text = (FIXTURES / "real" / "network_load_test.txt").read_text()
    head = text.split("\n  Legend")[0]
    assert not analyze(tmp_path, head + "\nERROR: this application must be run on at least 10 nodes\n")[1]
    assert not analyze(tmp_path, text + "ERROR: a later failure\n")[1]
    # A row whose numbers are not numbers is no figure of merit and leaves
    # the final table short.
    broken = text.replace("|                 6.1X |", "|                 nanX |")
    values, success = analyze(tmp_path, broken)
    assert not success
    assert "Multiple Allreduce (8 B) Congestion Impact Avg" not in values[KEY]


@pytest.mark.parametrize("status,ok", [("complete", True), ("aborted", False), ("running", False)])
def test_the_json_status_of_our_run_decides(tmp_path, status, ok):
    """Our output names its JSON (relative to the run directory); when it is
    there, its status must be complete."""
    text = (FIXTURES / "real" / "network_test.txt").read_text()
    doc = json.loads((FIXTURES / "real" / "network_test.json").read_text())
    doc["status"] = status
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "network_test.json").write_text(json.dumps(doc))
    assert analyze(tmp_path, text)[1] is ok
    (tmp_path / "out" / "network_test.json").write_text("{not json")
    assert not analyze(tmp_path, text)[1]


def test_executables_use_options_the_programs_have():
    executables = {args[0]: args[1] for args, _ in APP.of("executable")}
    assert set(executables) == {"network_test", "network_load_test"}
    assert {args[0] for args, _ in APP.of("workload")} == set(executables)
    for program, template in executables.items():
        binary = mpi_harness.binary(program)
        if not binary.exists():
            pytest.fail(f"{binary} is not built: run scripts/test.sh")
        usage = subprocess.run([str(binary), "--help"], capture_output=True, text=True,
                               timeout=60, stdin=subprocess.DEVNULL).stdout
        assert template.split()[0] == program
        for option in (w for w in template.split() if w.startswith("--")):
            assert option in usage, (program, option)


def _load_experiment():
    """experiment.py with stand-ins for the benchpark modules it imports."""
    recorded = {"variants": {}}

    class Experiment:
        pass

    def variant(name, default, description, values=None, **kw):
        recorded["variants"][name] = (default, values)

    modules = {
        "benchpark": types.ModuleType("benchpark"),
        "benchpark.directives": types.SimpleNamespace(variant=variant, maintainers=lambda *a: None),
        "benchpark.experiment": types.SimpleNamespace(Experiment=Experiment),
        "benchpark.mpi": types.SimpleNamespace(MpiOnlyExperiment=type("MpiOnlyExperiment", (), {})),
    }
    saved = {k: sys.modules.get(k) for k in modules}
    sys.modules.update(modules)
    try:
        ns = {"__name__": "gpcnet_benchpark_experiment"}
        path = BENCHPARK / "experiments" / "gpcnet" / "experiment.py"
        exec(compile(path.read_text(), str(path), "exec"), ns)
    finally:
        for k, v in saved.items():
            sys.modules.pop(k, None) if v is None else sys.modules.__setitem__(k, v)
    return ns, recorded


@pytest.mark.parametrize("mode", ["test", "perf"])
def test_experiment_sizes_fit_each_workload(mode):
    ns, recorded = _load_experiment()
    default, values = recorded["variants"]["workload"]
    assert set(values) == {args[0] for args, _ in APP.of("workload")} and default in values
    for workload in values:
        exp = ns["Gpcnet"].__new__(ns["Gpcnet"])
        got = {}
        exp.spec = types.SimpleNamespace(variants={"workload": [workload]},
                                         satisfies=lambda s: s == f"exec_mode={mode}")
        exp.add_experiment_variable = lambda k, v, named=False: got.__setitem__(k, v)
        exp.set_required_variables = lambda **kw: got.update(kw)
        exp.compute_applications_section()
        assert got["n_nodes"] >= ns["MIN_NODES"][workload]
        assert got["n_ranks"] == "{n_nodes}*{n_ranks_per_node}" and got["n_resources"] == "{n_ranks}"
        usage = subprocess.run([str(mpi_harness.binary(workload)), "--help"], capture_output=True,
                               text=True, timeout=60, stdin=subprocess.DEVNULL).stdout
        for option in (w for w in got["gpcnet_options"].split() if w.startswith("--")):
            assert option in usage, (workload, option)
        assert (got["gpcnet_options"] == "") is (mode == "perf")

