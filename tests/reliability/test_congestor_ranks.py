"""network_congestor's per-rank bandwidth (catalogue section S, the fat-tree
bullies' "slowest bully rank"): every reporting rank is in the JSON with its
node and kernel, the ranks add up to each kernel's bytes and average to its
per-rank MiB/s, and the slowest is the minimum. (The table is unchanged:
tests/integration/test_golden.py.)"""
import socket

import pytest

from relsupport import read_json_if_any

QUICK = ["--emulate-nodes", "1", "--congestor-iterations", "16", "--report-interval", "0.5"]


def _check(run):
    ranks = run["rank_bandwidth"]
    assert len({r["rank"] for r in ranks}) == len(ranks)
    for k in run["kernels"]:
        mine = [r for r in ranks if r["kernel"] == k["kernel"]]
        assert len(mine) == k["reporting_ranks"] > 0, k
        assert sum(r["bytes"] for r in mine) == pytest.approx(k["bytes"], rel=1e-12)
        mean = sum(r["mib_s"] for r in mine) / len(mine)
        assert mean == pytest.approx(k["mib_s_per_rank"], rel=1e-9)
        slow = min(mine, key=lambda r: r["bytes"])
        assert k["slowest_rank"]["mib_s"] == pytest.approx(slow["mib_s"], rel=1e-12)
        assert k["slowest_rank"]["mib_s"] <= mean * (1 + 1e-12)
        assert {k["slowest_rank"]["rank"], k["slowest_rank"]["node"]} <= {
            x for r in mine if r["bytes"] == slow["bytes"] for x in (r["rank"], r["node"])}
    return ranks


@pytest.mark.cap(120)
def test_every_kernel_rank_in_the_json(harness, tmp_path):
    p = harness.run(8, "network_congestor", *QUICK, "--duration", "1", "--output-dir", tmp_path, timeout=90)
    assert p.returncode == 0, p.stderr[-2000:]
    run = read_json_if_any(tmp_path / "network_congestor.json")["congestor_run"]
    ranks = _check(run)
    assert {r["kernel"] for r in ranks} == {"a2a", "p2p_incast", "rma_incast", "rma_bcast"}


@pytest.mark.cap(120)
def test_flows_ranks_are_the_senders(harness, tmp_path):
    """Three senders into one receiver and a pair: the receiver sends
    nothing, so five ranks report (the sending ones), as the aggregate."""
    h = socket.gethostname()
    flows = tmp_path / "flows.txt"
    flows.write_text("".join(f"{h}#{a} {h}#{b}\n" for a, b in ((1, 0), (2, 0), (3, 0), (4, 5), (5, 4))))
    p = harness.run(8, "network_congestor", *QUICK, "--flows", flows, "--duration", "1",
                    "--congestor-bytes", "65536", "--output-dir", tmp_path, timeout=90)
    assert p.returncode == 0, p.stderr[-2000:]
    run = read_json_if_any(tmp_path / "network_congestor.json")["congestor_run"]
    ranks = _check(run)
    assert sorted(r["node"] for r in ranks) == [f"{h}#{i}" for i in range(1, 6)]
    assert all(r["bytes"] > 0 and r["bytes"] % 65536 == 0 for r in ranks)

