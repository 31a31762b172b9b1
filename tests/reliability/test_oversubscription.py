"""Heavy oversubscription: 32 ranks on a 2-core host (catalogue section G).

Every test still ends and the whole job completes. The loops are small (a
single measurement of the default loops can take a minute when 32
busy-polling ranks share 2 cores), so what is checked is that the protocol
(rings, barriers, congestor stop agreement) never stalls, not the numbers,
and not the time: the harness's timeout (240 s; measured here: Open MPI
1-2 s, MPICH with busy polling 17-21 s per job) and the test's cap only
guard against a hang.
"""
from relsupport import TINY, TINY_CONGESTORS


def test_network_test_32_ranks_on_2_cores(harness, tmp_path):
    p = harness.run(32, "network_test", "--emulate-nodes", "2", *TINY,
                    "--tests", "rr_two_sided_lat,rr_get_lat,multiple_alltoall",
                    "--output-dir", tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    doc = harness.load_json(tmp_path / "network_test.json")
    assert doc["status"] == "complete"
    assert doc["environment"]["ranks"] == 32 and doc["environment"]["nodes"] == 16
    assert all(r["ranks"] == 32 for r in doc["tables"][0]["rows"])


def test_load_test_32_ranks_on_2_cores(harness, tmp_path):
    p = harness.run(32, "network_load_test", "--emulate-nodes", "2", *TINY, *TINY_CONGESTORS,
                    "--tests", "rr_two_sided_lat,multiple_allreduce", "--seed", "11",
                    "--output-dir", tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    doc = harness.load_json(tmp_path / "network_load_test.json")
    assert doc["status"] == "complete" and len(doc["impact"]) == 2
    assert doc["environment"]["nodes"] == 16
