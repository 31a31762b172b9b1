"""gpcnet parse: reference and our text output, default and verbose, into
schema-valid documents; garbage and cut-off output handled clearly."""

import json

import pytest

from conftest import FIXTURES, REAL, fixture
from gpcnet.infra.errors import GpcnetError
from gpcnet.parse_text import parse_text
from gpcnet.results_json.load import load, validate


def parse(name):
    path = FIXTURES / name
    doc = parse_text(path.read_text(), str(path))
    validate(doc)
    return doc


def rows(doc, table_id):
    return {r["test"]: r for t in doc["tables"] if t["id"] == table_id for r in t["rows"]}


def test_reference_load_default():
    doc = parse("ref_load_default.txt")
    assert (doc["program"], doc["version"], doc["source"], doc["status"]) == \
        ("network_load_test", "1.3", "text", "complete")
    assert doc["environment"]["ranks"] == 40 and doc["environment"]["nodes"] == 10
    assert doc["environment"]["ppn_max"] == 4 and doc["environment"]["pport"] is None  # NICs unknown
    iso, loaded = rows(doc, "isolated"), rows(doc, "loaded")
    assert list(iso) == ["rr_two_sided_lat", "rr_two_sided_bw_sync", "multiple_allreduce"]
    lat = iso["rr_two_sided_lat"]
    assert (lat["avg"], lat["p99"], lat["unit"], lat["better"]) == (2.3, 5.0, "usec", "lower")
    assert lat["histogram"] is None and lat["samples"] is None and lat["min"] is None
    assert loaded["rr_two_sided_bw_sync"]["better"] == "higher"
    assert [(i["test"], i["avg_printed"], i["p99_printed"], i["avg"]) for i in doc["impact"]] == [
        ("rr_two_sided_lat", 1.5, 2.4, None), ("rr_two_sided_bw_sync", 2.6, 4.3, None),
        ("multiple_allreduce", 2.8, 5.1, None)]
    placement = doc["placement"]
    assert placement["min_nodes_per_congestor"] == 2 and placement["canary_nodes"] is None
    assert (placement["canary_node_count"], placement["congestor_node_count"]) == (2, 8)
    # The reference prints no settings: nothing is guessed.
    assert doc["config"]["seed"] is None and doc["config"]["official_default"] is None
    assert doc["config"]["tests"] == list(iso)


def test_reference_load_verbose_splits_canaries_and_congestors():
    doc = parse("ref_load_verbose.txt")
    ids = [t["id"] for t in doc["tables"]]
    assert ids == ["isolated", "isolated_congestors", "loaded", "congestors_during:rr_two_sided_lat",
                   "congestors_during:rr_two_sided_bw_sync", "congestors_during:multiple_allreduce"]
    lat = rows(doc, "isolated")["rr_two_sided_lat"]
    assert (lat["min"], lat["max"], lat["avg"], lat["avg_worst"], lat["p99"], lat["p999"]) == \
        (1.9, 14.2, 2.3, 2.9, 5.0, 9.4)
    assert list(rows(doc, "isolated_congestors")) == ["a2a", "p2p_incast", "rma_incast", "rma_bcast"]
    assert list(rows(doc, "loaded")) == ["rr_two_sided_lat", "rr_two_sided_bw_sync", "multiple_allreduce"]
    assert rows(doc, "loaded")["rr_two_sided_bw_sync"]["p999"] == 512.8
    during = rows(doc, "congestors_during:multiple_allreduce")
    assert during["rma_bcast"]["unit"] == "MiB/s/rank"
    assert doc["config"]["verbose"] is True
    assert len(doc["impact"]) == 3


def test_reference_network_test():
    doc = parse("ref_network_default.txt")
    assert doc["program"] == "network_test" and doc["impact"] == [] and doc["placement"] is None
    assert list(rows(doc, "isolated")) == [
        "rr_two_sided_lat", "rr_get_lat", "rr_two_sided_bw", "rr_put_bw", "rr_two_sided_bw_sync",
        "nat_two_sided_bw", "multiple_allreduce", "multiple_alltoall"]


def test_our_settings_block_fills_the_config():
    doc = parse("ours_load_default.txt")
    cfg, env = doc["config"], doc["environment"]
    assert doc["version"] == "0.1.0"
    assert cfg["official_default"] is False and cfg["non_default"] == ["time_limit_s", "emulated_nodes"]
    assert (cfg["seed"], cfg["seed_source"], cfg["ring_seed"]) == (1763694000, "time", 1000)
    assert cfg["canary_fraction"] == 0.2 and cfg["time_limit_s"] == 0.2
    assert [c["id"] for c in cfg["congestors"]] == ["a2a", "p2p_incast", "rma_incast", "rma_bcast"]
    assert cfg["loops"]["rr_two_sided_lat"] == {"measurements": 10000, "rings": 30, "iterations": 200, "warmup": 200}
    assert cfg["emulated_nodes"] == {"ranks_per_node": 1}
    assert (env["ppn_max"], cfg["nics_per_node"], env["pport"]) == (1, 1, 1.0)
    assert env["mpi_library"].startswith("Open MPI")


def test_our_network_verbose_official_default():
    doc = parse("ours_network_verbose.txt")
    cfg, env = doc["config"], doc["environment"]
    assert cfg["official_default"] is True and cfg["non_default"] == []
    assert cfg["seed"] is None  # network_test has no placement seed
    assert cfg["emulated_nodes"] is None and cfg["verbose"] is True
    assert (env["ppn_max"], cfg["nics_per_node"], env["pport"]) == (4, 2, 2.0)
    assert len(cfg["tests"]) == 8 and rows(doc, "isolated")["multiple_alltoall"]["p999"] == 310.2


def test_wide_numbers_and_nan_cells(tmp_path):
    # printf never truncates %12.1f; a test with no samples may print nan.
    text = (FIXTURES / "ref_load_default.txt").read_text()
    text = text.replace("|       5400.2 |", "| 123456789012.5 |").replace("|         11.8 |", "|          nan |")
    doc = parse_text(text, "wide.txt")
    validate(doc)
    iso = rows(doc, "isolated")
    assert iso["rr_two_sided_bw_sync"]["avg"] == 123456789012.5
    assert iso["multiple_allreduce"]["p99"] is None


def test_output_cut_short_is_aborted():
    lines = (FIXTURES / "ref_load_default.txt").read_text().splitlines()
    cut = "\n".join(lines[:lines.index(next(l for l in lines if "Key Results" in l)) - 2])
    doc = parse_text(cut + "\n|          RR Two-sid", "cut.txt")
    validate(doc)
    assert doc["status"] == "aborted" and "Key Results" in doc["abort_reason"]
    # The CI can still be recomputed from the printed values.
    assert doc["impact"][0]["avg_printed"] == 1.5


def test_noise_around_the_output_is_ignored():
    text = "mpirun: warning: something\n" + (FIXTURES / "ref_network_default.txt").read_text() + "\nbye\n"
    assert parse_text(text, "noisy.txt")["status"] == "complete"


@pytest.mark.parametrize("text, expected", [
    ("hello world\n", "not GPCNeT text output"),
    ("Network Tests v1.3\n", "no 'Test with N MPI ranks"),
    ("Network Tests v1.3\n  Test with 4 MPI ranks (2 nodes)\n", "no 'Isolated Network Tests' table"),
])
def test_unparseable_text(text, expected):
    with pytest.raises(GpcnetError, match=expected):
        parse_text(text, "x.txt")


def test_bad_number_names_file_and_line():
    text = (FIXTURES / "ref_network_default.txt").read_text().replace("2.2 |", "2.x |", 1)
    with pytest.raises(GpcnetError, match=r"^x.txt:\d+: Avg: '2.x' is not a number"):
        parse_text(text, "x.txt")


@pytest.mark.parametrize("name", ["network_load_test", "network_load_test_verbose", "network_test"])
def test_real_text_matches_the_real_json(name):
    """The binary's stdout and its JSON describe the same run: every printed
    value is the JSON value rounded to one decimal."""
    parsed = parse_text((REAL / f"{name}.txt").read_text(), name)
    validate(parsed)
    real = load(REAL / f"{name}.json")
    real_tables = {t["id"]: t for t in real["tables"]}
    # The JSON may hold more (congestor tables of a default run are not printed).
    assert set(t["id"] for t in parsed["tables"]) <= set(real_tables)
    for p_table in parsed["tables"]:
        r_table = real_tables[p_table["id"]]
        assert [r["test"] for r in p_table["rows"]] == [r["test"] for r in r_table["rows"]]
        for p_row, r_row in zip(p_table["rows"], r_table["rows"]):
            assert p_row["name"] == r_row["name"] and p_row["unit"] == r_row["unit"]
            for key in ("avg", "p99", "min", "max", "avg_worst", "p999"):
                if p_row[key] is not None:
                    assert abs(p_row[key] - r_row[key]) <= 0.05 + 1e-9 * abs(r_row[key]), (name, key)
    if real["program"] == "network_load_test":  # network_test prints no placement seed
        assert (parsed["config"]["seed"], parsed["config"]["seed_source"]) == \
               (real["config"]["seed"], real["config"]["seed_source"])
    for key in ("ring_seed", "tests", "loops", "verbose", "nics_per_node",
                "emulated_nodes", "official_default", "non_default", "time_limit_s"):
        assert parsed["config"][key] == real["config"][key], key
    for key in ("ranks", "nodes", "ppn_min", "ppn_max", "pport", "mpi_library"):
        assert parsed["environment"][key] == real["environment"][key], key
    if real.get("impact"):
        assert [(i["avg_printed"], i["p99_printed"]) for i in parsed["impact"]] == \
               [(round(i["avg_printed"], 1), round(i["p99_printed"], 1)) for i in real["impact"]]
        assert parsed["placement"]["canary_node_count"] == len(real["placement"]["canary_nodes"])


def test_cli_parse_writes_a_loadable_file(cli, tmp_path):
    out = tmp_path / "run.json"
    code, stdout, _ = cli("parse", fixture("ref_load_verbose.txt"), "-o", out)
    assert code == 0 and stdout == ""
    assert load(out)["source"] == "text"


def test_cli_parse_to_stdout(cli):
    code, stdout, _ = cli("parse", fixture("ref_network_default.txt"))
    assert code == 0 and json.loads(stdout)["program"] == "network_test"


def test_cli_parse_errors(cli, tmp_path):
    code, _, err = cli("parse", tmp_path / "missing.txt", "-o", tmp_path / "x.json")
    assert code == 2 and "missing.txt: no such file" in err
    garbage = tmp_path / "garbage.txt"
    garbage.write_text("nothing to see\n")
    code, _, err = cli("parse", garbage)
    assert code == 2 and err.count("\n") == 1 and "garbage.txt" in err
