"""Too few nodes and uneven ranks per node (catalogue sections B and C)."""
import pytest

from relsupport import FAST_FAIL, TINY, TINY_CONGESTORS, min_nodes

CONGESTOR_SETS = {
    1: "a2a",
    2: "a2a,p2p_incast",
    3: "a2a,p2p_incast,rma_incast",
    4: "a2a,p2p_incast,rma_incast,rma_bcast",
    5: "a2a,p2p_incast,rma_incast,rma_bcast,dl_allreduce",
    6: "a2a,p2p_incast,rma_incast,rma_bcast,dl_allreduce,p2p_bcast",
}


def too_few(harness, tmp_path, np, program, *args):
    p = harness.run(np, program, *args, "--output-dir", tmp_path, env=FAST_FAIL)
    assert p.returncode == 1, p.stderr[-2000:]
    assert not (tmp_path / f"{program}.json").exists()
    return p


@pytest.mark.parametrize("np,nodes_args,found", [
    (3, ["--emulate-node-count", "1"], 1),
    (1, ["--emulate-nodes", "1"], 1),
], ids=["one-node-of-three-ranks", "single-rank"])
def test_network_test_needs_two_nodes(harness, tmp_path, np, nodes_args, found):
    p = too_few(harness, tmp_path, np, "network_test", *nodes_args)
    assert p.stderr.count(f"needs at least 2 nodes, found {found}") == 1


@pytest.mark.parametrize("kernels", sorted(CONGESTOR_SETS))
def test_load_test_minimum_per_congestor_count(harness, tmp_path, kernels):
    need = min_nodes(0.2, kernels)
    p = too_few(harness, tmp_path, need - 1, "network_load_test", "--emulate-nodes", "1",
                "--congestors", CONGESTOR_SETS[kernels])
    assert p.stderr.count(f"needs at least {need} nodes") == 1
    assert f"{kernels} congestor(s), canary fraction 0.2); found {need - 1} nodes" in p.stderr


@pytest.mark.parametrize("fraction", ["0.05", "0.3", "0.5"])
def test_load_test_minimum_per_canary_fraction(harness, tmp_path, fraction):
    need = min_nodes(float(fraction), 4)
    p = too_few(harness, tmp_path, need - 1, "network_load_test", "--emulate-nodes", "1",
                "--canary-fraction", fraction)
    assert p.stderr.count(f"needs at least {need} nodes") == 1
    assert f"canary fraction {float(fraction):g}" in p.stderr


def test_load_test_weights_that_starve_a_congestor(harness, tmp_path):
    """Enough nodes in total, but the weights deal none to p2p_incast: used to
    hang rank 0 forever waiting for p2p_incast's results."""
    p = too_few(harness, tmp_path, 10, "network_load_test", "--emulate-nodes", "1",
                "--congestors", "a2a:64,p2p_incast", "--seed", "1", *TINY)
    assert p.stderr.count("congestor p2p_incast gets 0 of the 8 congestor nodes") == 1


def test_more_emulated_nodes_than_ranks(harness, tmp_path):
    p = harness.run(2, "network_test", "--emulate-node-count", "3", "--output-dir", tmp_path,
                    env=FAST_FAIL)
    assert p.returncode == 2 and p.stderr.count("larger than the 2 ranks") == 1


# ------------------------------------------------------------ uneven PPN

@pytest.mark.parametrize("np,args,ppn", [
    (3, ["--emulate-nodes", "2"], (1, 2)),        # nodes {0,1} {2}: slice 1 has one rank
    (5, ["--emulate-node-count", "2"], (2, 3)),   # 3 + 2: slice 2 has one rank
    (7, ["--emulate-nodes", "3"], (1, 3)),        # 3 + 3 + 1
], ids=["2+1", "3+2", "3+3+1"])
def test_uneven_ranks_per_node_network_test(harness, tmp_path, np, args, ppn):
    p = harness.run(np, "network_test", *args, *TINY, "--output-dir", tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    doc = harness.load_json(tmp_path / "network_test.json")
    env = doc["environment"]
    assert (env["ppn_min"], env["ppn_max"]) == ppn
    assert "(uneven)" in p.stdout
    assert doc["status"] == "complete" and len(doc["tables"][0]["rows"]) == 8


@pytest.mark.parametrize("seed,role", [("1", "congestor"), ("5", "canary")])
def test_uneven_ranks_per_node_load_test(harness, tmp_path, seed, role):
    """11 ranks on 10 nodes: one node has 2 ranks, so its second rank is
    alone in slice 1, among the congestors (seed 1) or the canaries (seed 5)."""
    p = harness.run(11, "network_load_test", "--emulate-node-count", "10", "--seed", seed,
                    *TINY, *TINY_CONGESTORS, "--output-dir", tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    doc = harness.load_json(tmp_path / "network_load_test.json")
    assert (doc["environment"]["ppn_min"], doc["environment"]["ppn_max"]) == (1, 2)
    assert doc["status"] == "complete" and len(doc["impact"]) == 3
    lone_congestor = [g for g in doc["placement"]["congestor_groups"] if g["slice"] == 1]
    assert bool(lone_congestor) == (role == "congestor")
    if lone_congestor:
        assert len(lone_congestor[0]["nodes"]) == 1
