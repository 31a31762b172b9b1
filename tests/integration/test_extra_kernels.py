"""The extra kernels (docs/method.md#large-message-collectives): collective
canaries at the message sizes of AI training and the Allgather and Bcast
congestors. They run only when named (--tests, --congestors), print the
sizes they move, and leave a run that says it is not the published one.
The sizes each canary sends are checked call by call in
test_canary_params.py; this file checks that they run end to end."""
import pytest

from textparse import table_lines, tables

EXTRA_CANARIES = {
    "allreduce_1mib": ("Multiple Allreduce (1048576 B)", "usec"),
    "allreduce_16mib": ("Multiple Allreduce (16777216 B)", "usec"),
    "alltoall_1mib": ("Multiple Alltoall (1 MiB/rank)", "MiB/s/rank"),
    "alltoall_16mib": ("Multiple Alltoall (16 MiB/rank)", "MiB/s/rank"),
    "multiple_allgather": ("Multiple Allgather (1 MiB/rank)", "MiB/s/rank"),
    "multiple_bcast": ("Multiple Bcast (1048576 B)", "usec"),
}


def test_extra_canaries_run_when_named(harness, tmp_path):
    ids = list(EXTRA_CANARIES)
    p = harness.run(4, "network_test", "--emulate-nodes", "1", *harness.QUICK,
                    "--tests", ",".join(ids), "--output-dir", tmp_path)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    rows = tables(p.stdout)["Isolated Network Tests"]
    assert [name for name, _ in rows] == [EXTRA_CANARIES[i][0] for i in ids]
    for line in table_lines(p.stdout):
        assert len(line) == 80, repr(line)
    doc = harness.load_json(tmp_path / "network_test.json")
    validate = harness.schema_validator()
    if validate:
        validate(doc)
    assert doc["config"]["official_default"] is False
    for row in doc["tables"][0]["rows"]:
        name, unit = EXTRA_CANARIES[row["test"]]
        assert (row["name"], row["unit"]) == (name, unit)
        assert row["samples"] > 0 and row["avg"] > 0


def test_help_lists_the_extras_but_the_default_stays_eight(harness):
    p = harness.run(1, "network_test", "--help")
    assert p.returncode == 0
    text = " ".join(p.stdout.split())
    assert "(default: all 8)" in text
    for test_id in EXTRA_CANARIES:
        assert test_id in text


@pytest.mark.parametrize("congestor_bytes,suffix", [(None, "(4096 B)"), ("8192", "(8192 B)")])
def test_allgather_and_bcast_congestors_load_the_canaries(harness, tmp_path, congestor_bytes,
                                                          suffix):
    extra = ["--congestor-bytes", congestor_bytes] if congestor_bytes else []
    p = harness.run(10, "network_load_test", "--emulate-nodes", "1", *harness.QUICK,
                    *harness.QUICK_CONGESTORS, "--seed", "3", "--tests", "multiple_bcast",
                    "--congestors", "allgather,bcast", "--output-dir", tmp_path, *extra)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    t = tables(p.stdout)
    key = t["Network Tests running with Congestion Tests - Key Results"]
    assert [name for name, _ in key] == ["Multiple Bcast (1048576 B)"]
    doc = harness.load_json(tmp_path / "network_load_test.json")
    by_id = {tb["id"]: tb for tb in doc["tables"]}
    rows = by_id["congestors_during:multiple_bcast"]["rows"]
    assert [r["test"] for r in rows] == ["allgather", "bcast"]
    assert [r["name"] for r in rows] == [f"Allgather {suffix}", f"Bcast {suffix}"]
    for r in rows:
        # Every congestor rank moved bytes: the Allgather's each send to
        # all others, the Bcast's non-roots receive.
        assert r["samples"] > 0 and r["avg"] > 0 and r["ranks"] >= 1, r["test"]
