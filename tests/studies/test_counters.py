"""The stall metric of the co-run paper (Zhang et al., Section II-B) on
synthetic counter series with known answers, and the node sampler that
reads the counters (sysfs, infiniband-diags) during a run."""
import json
import os
import subprocess
import sys

import pytest

from gpcnet.infra.fork_sampler import ForkSampler
from gpcnet.study import counters, sampling, stall
from gpcnet.study.sources import infiniband

PY = str(counters.__file__).rsplit("/gpcnet/", 1)[0]


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


def readings(*steps, t0=100.0, dt=1.0, dts=None):
    """Cumulative readings from per-interval increments {port: (stalls, flits)},
    every interval dt long, or dts[i] each."""
    totals, out, t = {}, [], t0
    out.append({"time": t, "ports": {p: {"stall": 0, "flit": 0} for s in steps for p in s}})
    for i, step in enumerate(steps):
        t += dts[i] if dts else dt
        for p, (s, f) in step.items():
            c = totals.setdefault(p, [0, 0])
            c[0] += s
            c[1] += f
        out.append({"time": t, "ports": {p: {"stall": c[0], "flit": c[1]} for p, c in totals.items()}})
    return out


SCOPE1 = {"a": {"router": "r0"}, "b": {"router": "r0"}}


def test_rates_are_per_second_differences_of_the_cumulative_counters():
    series = stall.intervals(readings({"a": (10, 100)}, {"a": (30, 300)}, dt=0.5), start=100.0)
    assert [iv["t"] for iv in series] == [0.5, 1.0]
    assert [iv["dt"] for iv in series] == [0.5, 0.5]
    assert series[0]["rates"]["a"] == [20.0, 200.0] and series[1]["rates"]["a"] == [60.0, 600.0]


def test_threshold_is_a_rate_not_a_total():
    # 40 stalls over 4 s = 10 stalls/s in each interval of 1 s, or 40 over one interval of 4 s:
    # the same rate, so a threshold of 10/s keeps both and 11/s drops both.
    slow = stall.intervals(readings(*[{"a": (10, 100)}] * 4), 100.0)
    once = stall.intervals(readings({"a": (40, 400)}, dt=4.0), 100.0)
    for series in (slow, once):
        assert stall.stall_ratio(series, {"a": {"router": "r"}}, 10.0)["stall_ratio"] == pytest.approx(0.1)
        m = stall.stall_ratio(series, {"a": {"router": "r"}}, 11.0)
        assert m["stall_ratio"] is None and m["samples_kept"] == 0 and "below --stall-threshold 11" in m["reason"]


def test_intervals_below_the_threshold_are_dropped_not_zeroed():
    # interval 1: 2 stalls/s (dropped at threshold 5), ratio 0.9 would drag the mean up;
    # interval 2: 50 stalls/s of 500 flits/s = 0.1; interval 3: 80/200 = 0.4.
    series = stall.intervals(readings({"a": (2, 2.2)}, {"a": (50, 500)}, {"a": (80, 200)}), 100.0)
    m = stall.stall_ratio(series, {"a": {"router": "r"}}, 5.0)
    assert m["stall_ratio"] == pytest.approx(0.25)
    assert (m["samples_kept"], m["samples_dropped"], m["intervals"]) == (2, 1, 3)


def test_mean_of_per_port_ratios_not_ratio_of_sums():
    series = stall.intervals(readings({"a": (10, 100), "b": (300, 1000)}), 100.0)
    m = stall.stall_ratio(series, SCOPE1, 0.0)
    assert m["stall_ratio"] == pytest.approx((0.1 + 0.3) / 2)      # 0.2
    assert m["stall_ratio"] != pytest.approx(310 / 1100)            # the ratio of sums, 0.28


def test_router_average_then_over_routers_and_duration():
    # router r0: ports a (0.1) and b (0.3) -> 0.2; router r1: port c (0.8).
    # The paper averages the tiles of each router, then routers: (0.2 + 0.8) / 2 = 0.5,
    # not the mean of the three ports (0.4).
    series = stall.intervals(readings({"a": (10, 100), "b": (30, 100), "c": (80, 100)}), 100.0)
    scope = {"a": {"router": "r0"}, "b": {"router": "r0"}, "c": {"router": "r1"}}
    assert stall.stall_ratio(series, scope, 0.0)["stall_ratio"] == pytest.approx(0.5)


def test_only_the_applications_ports_count():
    # port x serves congestor nodes only: heavy stalls there must not move the metric.
    series = stall.intervals(readings({"a": (10, 100), "x": (900, 1000)}), 100.0)
    assert stall.stall_ratio(series, {"a": {"router": "r0"}}, 0.0)["stall_ratio"] == pytest.approx(0.1)
    assert stall.stall_ratio(series, {"a": {"router": "r0"}, "x": {"router": "r1"}}, 0.0)["stall_ratio"] \
        == pytest.approx(0.5)
    m = stall.stall_ratio(series, {}, 0.0)
    assert m["stall_ratio"] is None and "no port in the scope" in m["reason"]
    stall.add_means(series, {"a": {"router": "r0"}})
    assert series[0]["stall_per_s"] == 10.0 and series[0]["flit_per_s"] == 100.0


def test_no_flits_no_ratio_and_saturated_or_absent_counters_give_no_rate():
    series = stall.intervals(readings({"a": (10, 0)}), 100.0)
    m = stall.stall_ratio(series, {"a": {"router": "r"}}, 0.0)
    assert m["stall_ratio"] is None and m["samples_dropped"] == 1
    ceiling = counters.IB_SATURATED
    rs = [{"time": 0.0, "ports": {"s": {"stall": ceiling, "flit": 5, "saturates": True},
                                  "w": {"stall": 2 ** 32 - 10, "flit": 0}, "gone": {"stall": 0, "flit": 0}}},
          {"time": 2.0, "ports": {"s": {"stall": ceiling, "flit": 9, "saturates": True},
                                  "w": {"stall": 10, "flit": 40}, "new": {"stall": 5, "flit": 5}}}]
    series = stall.intervals(rs, 0.0)
    assert series[0]["rates"] == {"w": [10.0, 20.0]}     # s saturated, gone/new absent once; w wrapped
    m = stall.stall_ratio([], {"a": {"router": "r"}}, 0.0)
    assert m["stall_ratio"] is None and "fewer than two counter readings" in m["reason"]


def test_run_ratio_reads_the_record():
    assert stall.run_ratio({"counters": {"metric": {"stall_ratio": 0.3}}}) == 0.3
    assert stall.run_ratio({"counters": None}) is None and stall.run_ratio({}) is None


def test_nodes_sampled_on_their_own_samplers_keep_their_own_intervals():
    h1 = [{"time": 10.0, "ports": {"h1/mlx5_0/1": {"stall": 0, "flit": 0}}},
          {"time": 11.0, "ports": {"h1/mlx5_0/1": {"stall": 10, "flit": 100}}}]
    h2 = [{"time": 500.0, "ports": {"h2/mlx5_0/1@switch7/3": {"stall": 0, "flit": 0}}},
          {"time": 501.0, "ports": {"h2/mlx5_0/1@switch7/3": {"stall": 30, "flit": 100}}},
          {"time": 502.0, "ports": {"h2/mlx5_0/1@switch7/3": {"stall": 30, "flit": 100}}}]
    scope = sampling.node_scope({"h1": h1, "h2": h2})
    assert scope == {"h1/mlx5_0/1": {"router": "h1"}, "h2/mlx5_0/1@switch7/3": {"router": "switch7"}}
    series = sampling.join([stall.intervals(h, h[0]["time"]) for h in (h1, h2)])
    assert [(iv["t"], iv["dt"]) for iv in series] == [(1.0, 1.0), (1.0, 1.0), (2.0, 1.0)]
    assert {p: r for iv in series[:2] for p, r in iv["rates"].items()} == {
        "h1/mlx5_0/1": [10.0, 100.0], "h2/mlx5_0/1@switch7/3": [30.0, 100.0]}
    assert stall.stall_ratio(series, scope, 1.0)["stall_ratio"] == pytest.approx(0.2)


def test_sample_reads_what_exists_and_leaves_the_rest_absent(tmp_path):
    root = fake_sys(tmp_path, net={"eth0": {"tx_bytes": 10, "rx_bytes": 20}},
                    ib={"mlx5_0/1": {"port_xmit_data": 100, "port_xmit_wait": 5}})
    (tmp_path / "class" / "net" / "lo").mkdir()          # no statistics at all
    (tmp_path / "class" / "net" / "eth0" / "statistics" / "tx_dropped").write_text("garbage\n")
    s = counters.sample(root)
    assert s["net"] == {"eth0": {"tx_bytes": 10, "rx_bytes": 20}}
    assert s["ib"] == {"mlx5_0/1": {"port_xmit_data": 100, "port_xmit_wait": 5}}
    r = counters.reading(root, None)
    assert r["source"] == "infiniband-hca"
    assert r["ports"] == {f"{s['host']}/mlx5_0/1": {"stall": 5, "flit": 100, "saturates": True}}


def test_no_counters_at_all(tmp_path):
    r = counters.reading(str(tmp_path), None)
    assert r["source"] == "none" and r["ports"] == {}


def test_wrapping_counters():
    assert counters.counter_delta(100, 250) == 150
    assert counters.counter_delta(2 ** 32 - 10, 5) == 15             # 32-bit wrap
    assert counters.counter_delta(2 ** 40, 7) == 2 ** 64 - 2 ** 40 + 7  # 64-bit wrap
    assert counters.counter_delta(None, 5) is None
    assert counters.counter_delta(5, None) is None


def _fake_diags(bin_dir):
    """smpquery/perfquery stand-ins: the neighbour of mlx5_0 port 1 is port 7
    of the switch with LID 12, whose PortXmitWait/PortXmitData are 40/800."""
    bin_dir.mkdir()
    (bin_dir / "smpquery").write_text(
        "#!/bin/sh\ncase \"$*\" in\n"
        "*nodeinfo*) printf '# Node info: DR path slid 65535; dlid 65535; 0,1\\n"
        "NodeType:........................Switch\\nLocalPort:.......................7\\n';;\n"
        "*portinfo*) printf '# Port info\\nLid:.............................12\\n';;\nesac\n")
    (bin_dir / "perfquery").write_text(
        "#!/bin/sh\n[ \"$1 $2\" = \"12 7\" ] || exit 1\n"
        "printf '# Port counters: Lid 12 port 7\\nPortXmitData:....................800\\n"
        "PortXmitWait:....................40\\n'\n")
    for f in bin_dir.iterdir():
        f.chmod(0o755)


def test_switch_port_through_infiniband_diags_where_readable(tmp_path, monkeypatch):
    root = fake_sys(tmp_path / "sys", ib={"mlx5_0/1": {"port_xmit_data": 100, "port_xmit_wait": 5}})
    _fake_diags(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    found = counters.find_switch_ports(counters.sample(root))
    assert found == {"mlx5_0/1": ("12", "7")}
    r = counters.reading(root, found)
    assert r["source"] == "infiniband-switch"
    assert list(r["ports"].values()) == [{"stall": 40, "flit": 800, "saturates": True}]
    assert list(r["ports"])[0].endswith("/mlx5_0/1@switch12/7")


def test_sampler_runs_as_a_module(tmp_path):
    root = fake_sys(tmp_path, net={"eth9": {"rx_bytes": 42}},
                    ib={"mlx5_0/1": {"port_xmit_data": 100, "port_xmit_wait": 5}})
    env = {"PYTHONPATH": PY, "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-m", "gpcnet.study.counters", root], capture_output=True,
                         text=True, check=True, env=env)
    assert json.loads(out.stdout)["net"] == {"eth9": {"rx_bytes": 42}}
    stop = tmp_path / "stop"
    stop.write_text("")
    # stop file already there: the first reading, then the last one, then exit 0
    out = subprocess.run([sys.executable, "-m", "gpcnet.study.counters", "--interval", "0.2", "--stop-file",
                          str(stop), root], capture_output=True, text=True, env=env, timeout=60)
    lines = [json.loads(x) for x in out.stdout.splitlines()]
    assert out.returncode == 0 and len(lines) == 2
    assert all(x["source"] == "infiniband-hca" and len(x["ports"]) == 1 for x in lines)
    for bad in ("0", "-1"):
        p = subprocess.run([sys.executable, "-m", "gpcnet.study.counters", "--interval", bad, root],
                           capture_output=True, text=True, env=env, timeout=60)
        assert p.returncode == 2 and p.stdout == "" and len(p.stderr.strip().splitlines()) == 1


def test_testbed_scope_is_the_links_into_the_applications_switches():
    # fat-tree, 2 hosts per leaf: node01-02 on leaf0, node03-04 on leaf1, node05-06 on leaf2.
    # A tile of leaf R is a link to a spine; its incoming flits queue at the spine's port into R.
    from gpcnet.testbed import counters as tbc
    from gpcnet.testbed.topology import build
    tree = build("fat-tree", 6, hosts_per_leaf=2, spines=2, taper=2)
    assert tbc.network_tiles(tree, ["node01", "node03"]) == {
        "spine0/s0l0": {"router": "leaf0"}, "spine1/s1l0": {"router": "leaf0"},
        "spine0/s0l1": {"router": "leaf1"}, "spine1/s1l1": {"router": "leaf1"}}
    assert set(tbc.network_tiles(tree, ["node05", "node06"])) == {"spine0/s0l2", "spine1/s1l2"}
    assert tbc.network_tiles(build("star", 4), ["node01"]) == {}     # one switch: no network tile


def test_node_samplers_as_a_job_give_the_series_and_name_the_silent_nodes(tmp_path, monkeypatch):
    """The mpirun/srun path without MPI: a launcher whose job is the sampler
    itself on this host; the second node never answers."""
    import socket
    root = fake_sys(tmp_path / "sys", ib={"mlx5_0/1": {"port_xmit_data": 100, "port_xmit_wait": 5}})
    monkeypatch.setenv("GPCNET_SYS_ROOT", root)

    class OneHost:
        env = {"PYTHONPATH": PY, "PATH": "/usr/bin:/bin", "GPCNET_SYS_ROOT": root}

        child_path = staticmethod(str)   # the job runs here: the name as given

        def job(self, nodes, command, tag, ppn=None):
            return command

    host = socket.gethostname().split(".")[0]
    s = infiniband.Sampler(OneHost(), [host, "ghost"], 0.1, tmp_path, "sampler-x", 60)
    s.start()
    import time
    deadline = time.monotonic() + 60
    while (not s.out.exists() or len(s.out.read_text().splitlines()) < 2) and time.monotonic() < deadline:
        time.sleep(0.05)                                # two readings out: the last one makes three
    rec = sampling.record(s, 0.0, 0.1, 1.0)
    assert rec["source"] == "infiniband-hca"
    # a node alone finds only its own node-facing port: a processor tile, never the metric's scope
    assert rec["ports"] == {} and list(rec["ptile_ports"]) == [f"{host}/mlx5_0/1"]
    assert rec["ptile_ports"][f"{host}/mlx5_0/1"]["router"] == host
    assert len(rec["series"]) >= 2 and rec["series"][0]["rates"][f"{host}/mlx5_0/1"] == [0.0, 0.0]
    assert rec["metric"]["stall_ratio"] is None and "no network tile read" in rec["metric"]["reason"]
    assert rec["tiles"]["ptile"]["stall_per_s"] == 0.0 and rec["tiles"]["ntile"]["stall_per_s"] is None
    assert len(rec["errors"]) == 1 and "no readings from ghost" in rec["errors"][0]
    assert s.proc.poll() is not None                    # stopped by its stop file


def test_in_process_sampler_runs_in_a_child_and_keeps_every_reading(tmp_path):
    import os
    import time
    calls = iter(range(10 ** 6))

    def read():
        n = next(calls)
        if n == 1:
            raise OSError("netlink gone")
        return {"time": time.time(), "ports": {"p": {"stall": n, "flit": 10 * n}}}

    s = ForkSampler(read, 0.05, "testbed-tc", {"p": {"router": "r"}}, tmp_path / "s.jsonl")
    s.start()
    assert s.pid != os.getpid()
    deadline = time.monotonic() + 60
    while len((tmp_path / "s.jsonl").read_text().splitlines()) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    by_host, errors = s.stop()
    assert errors == ["reading failed: OSError: netlink gone"]
    readings = by_host[""]
    assert len(readings) >= 3 and [r["ports"]["p"]["stall"] for r in readings[:2]] == [0, 2]
    import pytest as _pytest
    with _pytest.raises(ChildProcessError):
        os.waitpid(s.pid, os.WNOHANG)                # reaped: nothing left behind


BAD_NUMBERS = ["²", "٣", "7" * 5000]    # str.isdigit() accepts each; int() refuses or misreads them


@pytest.mark.parametrize("value", BAD_NUMBERS)
def test_a_rank_variable_that_is_not_ascii_digits_falls_back_to_the_host_name(monkeypatch, value):
    import socket
    for var in counters.RANK_VARIABLES:
        monkeypatch.setenv(var, value)
    me = socket.gethostname().split(".")[0]
    tiles = {"nodes": ["other", me], "by_node": [[{"key": "a"}], [{"key": "b"}]]}
    assert counters.my_targets(tiles) == (me, [{"key": "b"}])
    monkeypatch.setenv("OMPI_COMM_WORLD_RANK", "0")
    assert counters.my_targets(tiles) == ("other", [{"key": "a"}])


@pytest.mark.parametrize("value", BAD_NUMBERS)
def test_a_switch_port_or_lid_that_is_not_ascii_digits_is_no_switch_port(tmp_path, monkeypatch, value):
    root = fake_sys(tmp_path / "sys", ib={"mlx5_0/1": {"port_xmit_data": 100, "port_xmit_wait": 5}})
    monkeypatch.setattr(counters.shutil, "which", lambda name: "/bin/" + name)
    for answer in ({"NodeType": "Switch", "LocalPort": value, "Lid": "12"},
                   {"NodeType": "Switch", "LocalPort": "7", "Lid": value}):
        monkeypatch.setattr(counters, "_tool", lambda cmd, a=answer: a)
        assert counters.find_switch_ports(counters.sample(root)) == {}
