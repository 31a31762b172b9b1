"""The AI-shaped congestors (docs/method.md#ai-shaped-congestors): the
Mixture-of-Experts all-to-all with uneven sizes, the sharded data-parallel
allgather and reduce-scatter pair, and the pipeline chain. They run only
when named, with their own options (each printed and recorded only in a run
that selects its kernel) and with the burst options as any congestor."""
import pytest

from textparse import tables

AI = "moe_alltoallv,fsdp,pipeline"
OWN = ["--moe-skew", "8", "--fsdp-shard-bytes", "1024", "--pipeline-bytes", "4096"]


def test_they_load_the_canaries_with_their_own_sizes_and_bursts(harness, tmp_path):
    p = harness.run(10, "network_load_test", "--emulate-nodes", "1", *harness.QUICK,
                    *harness.QUICK_CONGESTORS, "--seed", "3", "--tests", "rr_two_sided_lat",
                    "--congestors", AI, *OWN, "--burst", "20ms,20ms", "--output-dir", tmp_path)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert "\n   MoE skew = 8\n   FSDP shard = 1024 B\n   pipeline message = 4096 B\n" in p.stdout
    assert "   burst = 0.02 s on, 0.02 s off" in p.stdout
    t = tables(p.stdout)
    assert [n for n, _ in t["Network Tests running with Congestion Tests - Key Results"]] == \
        ["RR Two-sided Lat (8 B)"]
    doc = harness.load_json(tmp_path / "network_load_test.json")
    harness.schema_validator()(doc)  # python/gpcnet/data/results.schema.json
    rows = {tb["id"]: tb for tb in doc["tables"]}["congestors_during:rr_two_sided_lat"]["rows"]
    assert [r["test"] for r in rows] == ["moe_alltoallv", "fsdp", "pipeline"]
    # The printed size is each kernel's own message: the mean for MoE
    # (--congestor-bytes), the shard, the activations.
    assert [r["name"] for r in rows] == ["MoE Alltoallv (4096 B)", "FSDP AG+RS (1024 B)",
                                         "Pipeline P2P (4096 B)"]
    for r in rows:
        assert r["samples"] > 0 and r["avg"] > 0 and r["ranks"] >= 1, r["test"]
    config = doc["config"]
    assert (config["moe_skew"], config["fsdp_shard_bytes"], config["pipeline_bytes"]) == \
        (8, 1024, 4096)
    assert {"moe_skew", "fsdp_shard_bytes", "pipeline_bytes"} <= set(config["non_default"])
    assert config["burst"]["on_s"] == 0.02


def test_a_run_without_them_has_none_of_their_options(harness, tmp_path):
    p = harness.run(6, "network_load_test", "--emulate-nodes", "1", *harness.QUICK,
                    *harness.QUICK_CONGESTORS, "--seed", "3", "--tests", "rr_two_sided_lat",
                    "--congestors", "a2a,pipeline", "--output-dir", tmp_path)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert "MoE" not in p.stdout and "FSDP" not in p.stdout
    assert "   pipeline message = 262144 B\n" in p.stdout
    config = harness.load_json(tmp_path / "network_load_test.json")["config"]
    assert "moe_skew" not in config and "fsdp_shard_bytes" not in config
    assert config["pipeline_bytes"] == 262144 and "pipeline_bytes" not in config["non_default"]


@pytest.mark.parametrize("args,needle", [
    (["--congestors", "a2a", "--moe-skew", "2"],
     "--moe-skew is an option of the congestor moe_alltoallv, which this run does not run "
     "(name it in --congestors)"),
    (["--congestors", "moe_alltoallv", "--moe-skew", "0.5"],
     "--moe-skew: expected a ratio >= 1 and <= 64, got '0.5'"),
    (["--congestors", "fsdp", "--fsdp-shard-bytes", "12"],
     "--fsdp-shard-bytes: expected a multiple of 8 from 8 to 67108864 (bytes of doubles)"),
], ids=["option-of-an-unselected-kernel", "skew-below-1", "shard-not-doubles"])
def test_bad_values_exit_2(harness, tmp_path, args, needle):
    p = harness.run(2, "network_load_test", "--emulate-nodes", "1", *args,
                    "--output-dir", tmp_path)
    assert p.returncode == 2, p.stderr[-2000:]
    assert p.stderr.count(needle) == 1, p.stderr[-2000:]
    assert not (tmp_path / "network_load_test.json").exists()


@pytest.mark.parametrize("kernel,own,name,setting", [
    ("moe_alltoallv", OWN[0:2], "MoE Alltoallv (4096 B)", "   MoE skew = 8\n"),
    ("fsdp", OWN[2:4], "FSDP AG+RS (1024 B)", "   FSDP shard = 1024 B\n"),
    ("pipeline", OWN[4:6], "Pipeline P2P (4096 B)", "   pipeline message = 4096 B\n"),
])
def test_network_congestor_runs_each(harness, tmp_path, kernel, own, name, setting):
    p = harness.run(4, "network_congestor", "--emulate-nodes", "1", "--congestors", kernel,
                    "--duration", "0.5", "--report-interval", "0.2", "--congestor-iterations",
                    "4", *own, "--output-dir", tmp_path)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert name in p.stdout and setting in p.stdout


@pytest.mark.parametrize("ranks", [2, 5])
def test_their_traffic_call_by_call(harness, ranks):
    """Uneven per-destination sizes for MoE, the shard for FSDP, one chain
    of neighbour sends for the pipeline (tests/mpi/ai_congestor_check.c,
    which intercepts their MPI calls)."""
    p = harness.run(ranks, "ai_congestor_check", timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr[-2000:]
    assert p.stdout.startswith("ai_congestor_check ok:"), p.stdout
