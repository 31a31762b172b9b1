"""network_load_test: every phase's JSON entry carries each node's network
counter deltas, read by one rank per node (here from a fake /sys given by
GPCNET_SYS_ROOT: what exists is reported, what does not is absent)."""
import json

import mpi_harness

from gpcnet.results_json.load import load


def test_every_phase_has_every_nodes_counters(tmp_path):
    sys_root = tmp_path / "sys"
    for rel, value in {"class/net/eth0/statistics/tx_bytes": "1000",
                       "class/net/eth0/statistics/rx_bytes": "2000",
                       "class/infiniband/mlx5_0/ports/1/counters/port_xmit_data": "4294967295",
                       "class/infiniband/mlx5_0/ports/1/counters/port_xmit_wait": "7"}.items():
        (sys_root / rel).parent.mkdir(parents=True, exist_ok=True)
        (sys_root / rel).write_text(value + "\n")
    out = tmp_path / "out"
    out.mkdir()
    p = mpi_harness.run(10, "network_load_test", "--emulate-nodes", "1", "--time-limit", "1",
                        "--measurements", "3", "--congestor-measurements", "4", "--quiet",
                        "--output-dir", str(out), env={"GPCNET_SYS_ROOT": str(sys_root)})
    assert p.returncode == 0, p.stderr[-2000:]
    doc = json.loads((out / "network_load_test.json").read_text())
    load(str(out / "network_load_test.json"))          # still valid against the schema
    nodes = doc["placement"]["all_nodes"]
    assert len(nodes) == 10
    phases = [ph for ph in doc["phases"] if ph["name"].startswith(("isolated:", "loaded:"))]
    assert len(phases) == 6
    for ph in phases:
        assert sorted(ph["counters"]) == sorted(nodes)
        for node in nodes:
            c = ph["counters"][node]
            assert c["eth0"] == {"kind": "interface", "tx_bytes": 0, "rx_bytes": 0}   # no drop files: absent
            assert c["mlx5_0/1"] == {"kind": "infiniband", "port_xmit_data": 0, "port_xmit_wait": 0}
