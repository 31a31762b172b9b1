"""network_load_test end to end on emulated nodes (docs/method.md#load-test)."""
import pytest

from textparse import table_lines, tables

CANARIES = ["RR Two-sided Lat (8 B)", "RR Two-sided BW+Sync (131072 B)", "Multiple Allreduce (8 B)"]
CONGESTORS = ["a2a", "p2p_incast", "rma_incast", "rma_bcast"]


def load_run(harness, out, np=10, k=1, *extra):
    p = harness.run(np, "network_load_test", "--emulate-nodes", k, *harness.QUICK,
                    *harness.QUICK_CONGESTORS, "--output-dir", out, *extra)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    return p, harness.load_json(out / "network_load_test.json")


@pytest.fixture(scope="module")
def ten_nodes(harness, tmp_path_factory):
    out = tmp_path_factory.mktemp("lt10")
    return (*load_run(harness, out, 10, 1, "--seed", "7"), out)


def test_three_tables_in_80_columns(ten_nodes):
    p, _, _ = ten_nodes
    assert p.stdout.startswith("NetworkLoad Tests v")
    assert "  2 nodes running Network Tests" in p.stdout
    assert "  8 nodes running Congestion Tests (min 2 nodes per congestor)" in p.stdout
    t = tables(p.stdout)
    assert [n for n, _ in t["Isolated Network Tests"]] == CANARIES
    assert [n for n, _ in t["Network Tests running with Congestion Tests"]] == CANARIES
    key = t["Network Tests running with Congestion Tests - Key Results"]
    assert [n for n, _ in key] == CANARIES
    assert all(c.endswith("X") for _, cells in key for c in cells)
    for line in table_lines(p.stdout):
        assert len(line) == 80, repr(line)


def test_json_matches_text_and_impact_arithmetic(ten_nodes, harness):
    p, doc, _ = ten_nodes
    validate = harness.schema_validator()
    if validate:
        validate(doc)
    t = tables(p.stdout)
    by_id = {tb["id"]: tb for tb in doc["tables"]}
    for tid, title in (("isolated", "Isolated Network Tests"),
                       ("loaded", "Network Tests running with Congestion Tests")):
        for row, (name, cells) in zip(by_id[tid]["rows"], t[title]):
            assert (row["name"], f"{row['avg']:.1f}", f"{row['p99']:.1f}") == (name, cells[0], cells[1])
    key = t["Network Tests running with Congestion Tests - Key Results"]
    for imp, (name, cells), iso, load in zip(doc["impact"], key, by_id["isolated"]["rows"],
                                             by_id["loaded"]["rows"]):
        assert imp["name"] == name
        assert f"{imp['avg_printed']:.1f}X" == cells[0] and f"{imp['p99_printed']:.1f}X" == cells[1]
        lower = iso["better"] == "lower"
        want = load["avg"] / iso["avg"] if lower else iso["avg"] / load["avg"]
        assert imp["avg"] == pytest.approx(want, rel=1e-12)
        r1 = lambda v: float(f"{v:.1f}")  # noqa: E731 - the table's rounding
        want_printed = r1(load["avg"]) / r1(iso["avg"]) if lower else r1(iso["avg"]) / r1(load["avg"])
        assert imp["avg_printed"] == pytest.approx(want_printed, rel=1e-12)


def test_congestors_really_moved_bytes(ten_nodes):
    _, doc, _ = ten_nodes
    by_id = {tb["id"]: tb for tb in doc["tables"]}
    for test in ("rr_two_sided_lat", "rr_two_sided_bw_sync", "multiple_allreduce"):
        rows = by_id[f"congestors_during:{test}"]["rows"]
        assert [r["test"] for r in rows] == CONGESTORS
        for r in rows:
            assert r["samples"] > 0 and r["avg"] > 0 and r["ranks"] >= 1, r["test"]


def test_placement_and_node_lists(ten_nodes):
    _, doc, out = ten_nodes
    pl = doc["placement"]
    assert len(pl["all_nodes"]) == 10 and len(set(pl["all_nodes"])) == 10
    assert pl["congestor_nodes"] == pl["all_nodes"][:8]
    assert pl["canary_nodes"] == pl["all_nodes"][8:]
    files = {"all": "allnodes_congestion.dat", "congestors": "congestors_nodes_congestion.dat",
             "canaries": "network_nodes_congestion.dat"}
    for key, name in files.items():
        lines = (out / name).read_text().splitlines()
        assert all(len(l) >= 32 for l in lines)  # "%-32s" as the reference
        assert [l.strip() for l in lines] == pl[{"all": "all_nodes", "congestors": "congestor_nodes",
                                                  "canaries": "canary_nodes"}[key]]
    groups = pl["congestor_groups"]
    assert sorted({g["kernel"] for g in groups}) == sorted(CONGESTORS)
    seen = [n for g in groups for n in g["nodes"]]
    assert sorted(seen) == sorted(pl["congestor_nodes"])  # PPN 1: each node once
    assert all(len(g["nodes"]) >= 2 for g in groups)
    assert doc["config"]["seed"] == 7 and doc["config"]["seed_source"] == "option"


def test_same_seed_same_placement_other_seed_other(harness, ten_nodes, tmp_path):
    _, doc, out = ten_nodes
    again = tmp_path / "again"
    again.mkdir()
    _, doc2 = load_run(harness, again, 10, 1, "--seed", "7", "--tests", "multiple_allreduce")
    assert doc2["placement"]["all_nodes"] == doc["placement"]["all_nodes"]
    assert doc2["placement"]["congestor_groups"] == doc["placement"]["congestor_groups"]
    assert (again / "allnodes_congestion.dat").read_text() == (out / "allnodes_congestion.dat").read_text()
    other = tmp_path / "other"
    other.mkdir()
    _, doc3 = load_run(harness, other, 10, 1, "--seed", "8", "--tests", "multiple_allreduce")
    assert doc3["placement"]["all_nodes"] != doc["placement"]["all_nodes"]


def test_time_seed_is_default_and_reported(harness, tmp_path):
    p, doc = load_run(harness, tmp_path, 10, 1, "--tests", "rr_two_sided_lat")
    assert doc["config"]["seed_source"] == "time"
    assert doc["config"]["seed"] > 1_700_000_000
    assert f"seed = {doc['config']['seed']} (time on rank 0)" in p.stdout


def test_verbose_two_ppn(harness, tmp_path):
    p, doc = load_run(harness, tmp_path, 20, 2, "--verbose", "--seed", "3")
    # Verbose tables are 140 wide; the Key Results stay 80 wide, as in v1.3.
    wide, key = p.stdout.split("Key Results")
    for line in table_lines(wide)[:-2]:
        assert len(line) == 140, repr(line)
    for line in table_lines(key):
        assert len(line) == 80, repr(line)
    t = tables(p.stdout)
    iso_cong = t["Isolated Congestion Tests"]
    assert [n for n, _ in iso_cong] == ["Alltoall (4096 B)", "Two-sided Incast (4096 B)",
                                        "Put Incast (4096 B)", "Get Bcast (4096 B)"]
    per_test = [k for k in t if k.startswith("Network Tests running with Congestion Tests (")]
    assert len(per_test) == 3 and "RR Two-sided Lat Network Test" in per_test[0]
    assert len(t[per_test[0]]) == 1 + 4  # the canary, then the four congestors
    assert doc["environment"]["ppn_max"] == 2
    groups = doc["placement"]["congestor_groups"]
    assert {g["slice"] for g in groups} == {0, 1}
    for g in groups:  # at most one rank per node in a congestor communicator
        assert len(g["nodes"]) == len(set(g["nodes"]))
    check_kernels_per_node(doc, slices=2)


def test_congestor_subset_weights_and_extras(harness, tmp_path):
    p, doc = load_run(harness, tmp_path, 10, 1, "--congestors", "dl_allreduce,p2p_bcast:2",
                      "--tests", "rr_two_sided_lat", "--seed", "5")
    cfg = doc["config"]
    assert [(c["id"], c["weight"]) for c in cfg["congestors"]] == [("dl_allreduce", 1), ("p2p_bcast", 2)]
    assert "congestors" in cfg["non_default"]
    rows = {tb["id"]: tb for tb in doc["tables"]}["congestors_during:rr_two_sided_lat"]["rows"]
    assert [r["test"] for r in rows] == ["dl_allreduce", "p2p_bcast"]
    assert all(r["samples"] > 0 for r in rows)
    kernels = {k["kernel"]: len(k["nodes"]) for k in doc["placement"]["congestor_kernels"]}
    # Weights apply to node counts: 8 congestor nodes dealt round-robin over
    # the cycle [dl, bcast, bcast].
    assert kernels == {"dl_allreduce": 3, "p2p_bcast": 5}


def test_uneven_ppn_load_test(harness, tmp_path):
    # 21 ranks, 2 per node: 10 nodes of 2 and one of 1.
    p, doc = load_run(harness, tmp_path, 21, 2, "--tests", "rr_two_sided_lat", "--seed", "11")
    assert doc["environment"]["nodes"] == 11 and doc["environment"]["ppn_min"] == 1
    loaded = {tb["id"]: tb for tb in doc["tables"]}["loaded"]["rows"][0]
    assert loaded["samples"] > 0


def test_ten_nodes_four_ppn(harness, tmp_path):
    """The configuration of the acceptance runs: 10 nodes x 4 ranks."""
    p, doc = load_run(harness, tmp_path, 40, 4, "--seed", "21")
    assert "Test with 40 MPI ranks (10 nodes)" in p.stdout
    by_id = {tb["id"]: tb for tb in doc["tables"]}
    for row in by_id["isolated"]["rows"] + by_id["loaded"]["rows"]:
        assert row["ranks"] == 8 and row["samples"] > 0  # 2 canary nodes x 4 slices
    assert len(doc["impact"]) == 3
    groups = doc["placement"]["congestor_groups"]
    assert {g["slice"] for g in groups} == {0, 1, 2, 3}
    assert all(len(g["nodes"]) == 2 for g in groups)  # 8 congestor nodes / 4 kernels
    check_kernels_per_node(doc, slices=4)


def check_kernels_per_node(doc, slices):
    """Kernels are dealt to whole nodes (paper 3.3, docs/method.md#placement): every
    congestor node runs one kernel on all its ranks, and every slice of a
    kernel spans that kernel's nodes in the same order (same root node)."""
    pl = doc["placement"]
    kernels = {k["kernel"]: k["nodes"] for k in pl["congestor_kernels"]}
    dealt = [n for nodes in kernels.values() for n in nodes]
    assert sorted(dealt) == sorted(pl["congestor_nodes"])  # each node runs exactly one kernel
    counts = sorted(len(n) for n in kernels.values())
    assert counts[-1] - counts[0] <= 1  # divided evenly
    for k, nodes in kernels.items():
        mine = [g for g in pl["congestor_groups"] if g["kernel"] == k]
        assert sorted(g["slice"] for g in mine) == list(range(slices))
        assert all(g["nodes"] == nodes for g in mine), (k, mine)
