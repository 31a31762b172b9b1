"""network_test end to end on emulated nodes (docs/method.md#network-test)."""
import json

import pytest

from textparse import table_lines, tables

ORDER = [
    "RR Two-sided Lat (8 B)", "RR Get Lat (8 B)", "RR Two-sided BW (131072 B)",
    "RR Put BW (131072 B)", "RR Two-sided BW+Sync (131072 B)", "Nat Two-sided BW (131072 B)",
    "Multiple Allreduce (8 B)", "Multiple Alltoall (4096 B)",
]


@pytest.fixture(scope="module")
def four_nodes(harness, tmp_path_factory):
    out = tmp_path_factory.mktemp("nt4")
    p = harness.run(4, "network_test", "--emulate-nodes", "1", *harness.QUICK,
                    "--output-dir", out)
    assert p.returncode == 0, p.stdout + p.stderr
    return p, harness.load_json(out / "network_test.json")


def test_all_eight_tests_in_order_in_80_columns(four_nodes):
    p, _ = four_nodes
    assert p.stdout.startswith("Network Tests v")
    assert "v1.3" not in p.stdout.splitlines()[0]
    assert "  Test with 4 MPI ranks (4 nodes)" in p.stdout
    t = tables(p.stdout)
    assert [name for name, _ in t["Isolated Network Tests"]] == ORDER
    for line in table_lines(p.stdout):
        assert len(line) == 80, repr(line)


def test_json_matches_text_to_printed_precision(four_nodes, harness):
    p, doc = four_nodes
    validate = harness.schema_validator()
    if validate:
        validate(doc)
    assert doc["schema"] == "gpcnet-results" and doc["schema_version"] == 1
    assert doc["status"] == "complete" and doc["program"] == "network_test"
    rows = doc["tables"][0]["rows"]
    text_rows = tables(p.stdout)["Isolated Network Tests"]
    for row, (name, cells) in zip(rows, text_rows):
        assert row["name"] == name
        assert f"{row['avg']:.1f}" == cells[0]
        assert f"{row['p99']:.1f}" == cells[1]
        assert row["unit"] == cells[2]


def test_statistics_are_consistent(four_nodes):
    _, doc = four_nodes
    for row in doc["tables"][0]["rows"]:
        assert row["ranks"] == 4
        assert row["samples"] > 0
        assert row["measurements"] >= 1
        h = row["histogram"]
        assert sum(b[2] for b in h["bins"]) == row["samples"]
        assert all(lo <= hi for lo, hi, _ in h["bins"])
        assert row["min"] <= row["avg"] <= row["max"]
        if row["better"] == "lower":
            assert row["p99"] >= row["median"] and row["avg_worst"] >= row["avg"] * 0.999
            assert row["p999"] >= row["p99"]
        else:
            assert row["p99"] <= row["median"] and row["avg_worst"] <= row["avg"] * 1.001
            assert row["p999"] <= row["p99"]
    ring = doc["tables"][0]["rows"][0]
    # 3 measurements x 4 rings x 20 iterations x 4 ranks, unless timed out.
    if not ring["timed_out"]:
        assert ring["samples"] == 3 * 4 * 20 * 4


def test_settings_are_reported(four_nodes):
    p, doc = four_nodes
    cfg = doc["config"]
    assert cfg["official_default"] is False
    for name in ("emulated_nodes", "time_limit_s", "measurements", "rings"):
        assert name in cfg["non_default"]
    assert cfg["emulated_nodes"] == {"ranks_per_node": 1}
    assert "Settings (official default configuration: no; differs:" in p.stdout
    assert doc["environment"]["ranks"] == 4 and doc["environment"]["nodes"] == 4
    assert doc["environment"]["mpi_library"]
    assert [ph["name"] for ph in doc["phases"]] == [f"isolated:{r['test']}" for r in doc["tables"][0]["rows"]]


def test_progress_on_stderr_unless_quiet(four_nodes, harness, tmp_path):
    p, _ = four_nodes
    assert "step 1/8 isolated: RR Two-sided Lat (8 B)" in p.stderr
    q = harness.run(2, "network_test", "--emulate-nodes", "1", "--tests", "rr_two_sided_lat",
                    *harness.QUICK, "--output-dir", tmp_path, "--quiet")
    assert q.returncode == 0
    assert "[gpcnet" not in q.stderr


def test_verbose_tables_are_140_columns(harness, tmp_path):
    p = harness.run(4, "network_test", "--emulate-nodes", "2", "--verbose",
                    "--tests", "rr_two_sided_lat,multiple_alltoall", *harness.QUICK,
                    "--output-dir", tmp_path)
    assert p.returncode == 0, p.stderr
    for line in table_lines(p.stdout):
        assert len(line) == 140, repr(line)
    header = [l for l in p.stdout.splitlines() if "Avg(Worst)" in l][0]
    assert [c.strip() for c in header.strip("|").split("|")] == [
        "Name", "Min", "Max", "Avg", "Avg(Worst)", "99%", "99.9%", "Units"]
    t = tables(p.stdout)["Isolated Network Tests"]
    assert [n for n, _ in t] == ["RR Two-sided Lat (8 B)", "Multiple Alltoall (4096 B)"]


@pytest.mark.parametrize("np,k,ranks", [(7, 2, 7), (3, 2, 2), (5, 2, 5)])
def test_uneven_ranks_per_node(harness, tmp_path, np, k, ranks):
    """Slices shrink; a slice of one rank sits out."""
    p = harness.run(np, "network_test", "--emulate-nodes", k,
                    "--tests", "rr_get_lat,multiple_allreduce", *harness.QUICK,
                    "--output-dir", tmp_path)
    assert p.returncode == 0, p.stderr
    doc = harness.load_json(tmp_path / "network_test.json")
    assert doc["environment"]["ppn_min"] < doc["environment"]["ppn_max"]
    assert "(uneven)" in p.stdout
    for row in doc["tables"][0]["rows"]:
        assert row["ranks"] == ranks and row["samples"] > 0


def test_emulate_node_count_groups(harness, tmp_path):
    p = harness.run(6, "network_test", "--emulate-node-count", "3", "--tests",
                    "rr_two_sided_lat", *harness.QUICK, "--output-dir", tmp_path)
    assert p.returncode == 0, p.stderr
    doc = harness.load_json(tmp_path / "network_test.json")
    assert doc["environment"]["nodes"] == 3 and doc["environment"]["ppn_max"] == 2
    assert doc["config"]["emulated_nodes"] == {"nodes": 3}
