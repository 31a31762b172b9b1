import pytest

from gpcnet.study import counters


def fake_sys(root, net=None, ib=None):
    for iface, vals in (net or {}).items():
        d = root / "class" / "net" / iface / "statistics"
        d.mkdir(parents=True, exist_ok=True)
        for k, v in vals.items():
            (d / k).write_text(f"{v}\n")
    for port, vals in (ib or {}).items():
        dev, p = port.split("/")
        d = root / "class" / "infiniband" / dev / "ports" / p / "counters"
        d.mkdir(parents=True, exist_ok=True)
        for k, v in vals.items():
            (d / k).write_text(f"{v}\n")
    return str(root)


def test_sample_reads_what_exists_and_leaves_the_rest_absent(tmp_path):
    root = fake_sys(tmp_path, net={"eth0": {"tx_bytes": 10, "rx_bytes": 20}},
                    ib={"mlx5_0/1": {"port_xmit_data": 100, "port_xmit_wait": 5}})
    (tmp_path / "class" / "net" / "lo").mkdir()          # no statistics at all
    (tmp_path / "class" / "net" / "eth0" / "statistics" / "tx_dropped").write_text("garbage\n")
    s = counters.sample(root)
    assert s["net"] == {"eth0": {"tx_bytes": 10, "rx_bytes": 20}}
    assert s["ib"] == {"mlx5_0/1": {"port_xmit_data": 100, "port_xmit_wait": 5}}
    assert "port_rcv_data" not in s["ib"]["mlx5_0/1"]


def test_no_counters_at_all(tmp_path):
    s = counters.sample(str(tmp_path))
    assert s["net"] == {} and s["ib"] == {}
    d = counters.delta(s, counters.sample(str(tmp_path)))
    assert counters.node_stall(d) == {"stall_ratio": None,
                                      "reason": "no InfiniBand port counters on this node"}


def test_wrapping_counters():
    assert counters.counter_delta(100, 250) == 150
    assert counters.counter_delta(2 ** 32 - 10, 5) == 15             # 32-bit wrap
    assert counters.counter_delta(2 ** 40, 7) == 2 ** 64 - 2 ** 40 + 7  # 64-bit wrap
    assert counters.counter_delta(None, 5) is None
    assert counters.counter_delta(5, None) is None


def test_delta_keeps_raw_values_marks_saturation_and_drops_missing(tmp_path):
    before = {"host": "h", "time": 1.0,
              "net": {"eth0": {"tx_bytes": 2 ** 64 - 100, "rx_bytes": 5}},
              "ib": {"d/1": {"port_xmit_data": 1000, "port_xmit_wait": 10},
                     "d/2": {"port_xmit_data": 5, "port_xmit_wait": 2 ** 32 - 1}}}
    after = {"host": "h", "time": 3.5,
             "net": {"eth0": {"tx_bytes": 50, "rx_bytes": 9, "tx_dropped": 4}},
             "ib": {"d/1": {"port_xmit_data": 5_001_000, "port_xmit_wait": 500_010},
                    "d/2": {"port_xmit_data": 9_000_005, "port_xmit_wait": 2 ** 32 - 1}}}
    d = counters.delta(before, after)
    assert d["seconds"] == 2.5
    assert d["net"]["eth0"] == {"tx_bytes": 150, "rx_bytes": 4}     # tx_dropped absent before: absent
    assert d["ib"]["d/1"] == {"port_xmit_data": 5_000_000, "port_xmit_wait": 500_000}
    assert d["ib"]["d/2"]["saturated"] == ["port_xmit_wait"]
    st = counters.node_stall(d, threshold=1_000_000)
    assert st == {"stall_ratio": pytest.approx(0.1), "ports": 1}    # saturated port ignored
    assert counters.node_stall(d, threshold=10 ** 7)["stall_ratio"] is None


def test_switch_stall_ratio_with_threshold():
    ports = {"leaf0/l0s0": {"switch": "leaf0", "packets": 1000, "overlimits": 100, "drops": 3},
             "leaf0/d1": {"switch": "leaf0", "packets": 1000, "overlimits": 300, "drops": 0},
             "leaf0/d2": {"switch": "leaf0", "packets": 10, "overlimits": 10},   # under threshold
             "node01/data0": {"switch": None, "packets": 5000, "overlimits": 5000},
             "spine0/s0l0": {"switch": "spine0", "packets": 50, "overlimits": 50}}
    s = counters.switch_stall(ports, threshold=100)
    assert s == {"leaf0": {"overlimits": 400, "packets": 2000, "drops": 3, "ports": 2, "stall_ratio": 0.2}}


def test_sampler_runs_as_a_module(tmp_path):
    import json
    import subprocess
    import sys
    root = fake_sys(tmp_path, net={"eth9": {"rx_bytes": 42}})
    out = subprocess.run([sys.executable, "-m", "gpcnet.study.counters", root], capture_output=True,
                         text=True, check=True, env={"PYTHONPATH": str(counters.__file__).rsplit("/gpcnet/", 1)[0]})
    assert json.loads(out.stdout)["net"] == {"eth9": {"rx_bytes": 42}}
