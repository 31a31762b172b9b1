"""Network tiles and processor tiles of the co-run paper's metric on an
HPE Slingshot fabric's shape: a dragonfly of two groups of four Rosetta
switches, each with four edge ports (nodes), three local links (the other
switches of its group) and one global link (the other group), as the
Fabric Controller's port-links answer gives it (tests/studies/slingshot/,
written from its documented API, with the node names a site adds); switch
counters as its port-set statistics answers give them, recorded once a
second by whoever runs the fabric manager; the nodes' Cassini NICs as the
cxi driver's telemetry files show them."""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gpcnet.infra.errors import GpcnetError
from gpcnet.study import cassini, counters, sampling, slingshot
from gpcnet.study.node_jobs import JobSampler
from gpcnet.study.sources import slingshot as slingshot_source

HERE = Path(__file__).resolve().parent / "slingshot"
FABRIC = HERE / "port-links.json"
PY = str(counters.__file__).rsplit("/gpcnet/", 1)[0]
APP = ["nid000001", "nid000002", "nid000005"]       # two on x1000c0r0, one on x1000c0r1
R0, R1 = "x1000c0r0", "x1000c0r1"


def statistics(k: int) -> list:
    """The k-th recorded port-set statistics answer (cumulative counters)."""
    return json.loads((HERE / "port-set-statistics.json").read_text())[k]


def write_record(path: Path, times: list) -> None:
    path.write_text("".join(json.dumps({"time": t, "statistics": statistics(k)}) + "\n"
                            for k, t in enumerate(times)))


def fake_cxi(root: Path, nics: dict) -> str:
    """A /sys with the cxi driver's telemetry files: nics {cxiN: {name: value}}."""
    for dev, values in nics.items():
        tel = root / "class" / "cxi" / dev / "device" / "telemetry"
        tel.mkdir(parents=True, exist_ok=True)
        for name, v in values.items():
            (tel / name).write_text(f"{v}@1764331200.123456789\n")
    return str(root)


def test_the_fabric_splits_edge_and_fabric_ports():
    fab = slingshot.read_fabric(str(FABRIC))
    assert len(fab["edge"]) == 32 and fab["edge"]["x1000c0r1j0p0"] == "nid000005"
    assert len(fab["links"]) == 32                                   # 16 links, both ends
    assert fab["links"]["x1000c0r0j20p0"] == "x1001c0r0j20p0"        # global
    assert fab["links"]["x1000c0r2j10p0"] == "x1000c0r0j12p0"        # local


def test_network_tiles_are_the_fabric_ports_of_the_applications_switches():
    t = slingshot.tiles(slingshot.read_fabric(str(FABRIC)), APP + ["NID000003.hsn.example", "gpu7"])
    assert t["routers"] == {"nid000001": [R0], "nid000002": [R0], "nid000005": [R1], "nid000003": [R0]}
    # each application switch: its 3 local ports and its global port; no edge port, no other switch
    assert sorted(t["ntile"]) == sorted([f"{R0}j11p0", f"{R0}j12p0", f"{R0}j13p0", f"{R0}j20p0",
                                         f"{R1}j10p0", f"{R1}j12p0", f"{R1}j13p0", f"{R1}j20p0"])
    assert t["ntile"][f"{R1}j20p0"] == {"router": R1, "peer": "x1001c0r1j20p0"}
    assert t["missing"] == ["gpu7"]


def test_a_node_with_nics_on_two_switches_has_both_switches_network_tiles():
    """An EX node's NICs may be cabled to different switches: each switch
    that serves one of the application's NICs is a router of the metric,
    and a NIC the fabric names is a processor tile of its own switch."""
    fab = slingshot.read_fabric(str(FABRIC))
    fab["edge"]["x1000c0r2j1p1"] = "nid000001/cxi1"
    t = slingshot.tiles(fab, ["nid000001"])
    assert t["routers"] == {"nid000001": [R0, "x1000c0r2"]} and t["nics"] == {"nid000001/cxi1": "x1000c0r2"}
    assert {v["router"] for v in t["ntile"].values()} == {R0, "x1000c0r2"} and len(t["ntile"]) == 8
    by_host = {"nid000001": [{"time": 0, "ports": {"nid000001/cxi0": {}, "nid000001/cxi1": {}}}],
               "gpu7": [{"time": 0, "ports": {"gpu7/cxi0": {}}}]}
    assert slingshot.ptile_scope(by_host, t) == {
        "nid000001/cxi0": {"router": R0, "node": "nid000001"},
        "nid000001/cxi1": {"router": "x1000c0r2", "node": "nid000001"},
        "gpu7/cxi0": {"router": "gpu7", "node": "gpu7"}}


def test_the_nic_reading_sums_the_traffic_classes(tmp_path):
    root = fake_cxi(tmp_path, {
        "cxi0": {"hni_rx_paused_0": 5, "hni_rx_paused_1": 7, "hni_pkts_recv_by_tc_0": 100,
                 "hni_pkts_recv_by_tc_1": 20, "hni_tx_paused_0": 999},
        "cxi1": {"hni_rx_paused_0": 3},                                 # no packet counter: left out
        "cxi2": {"hni_rx_paused_0": "garbage", "hni_pkts_recv_by_tc_0": 1}})
    r = cassini.reading(root, host="nid000001")
    assert r["source"] == "slingshot-nic"
    assert r["ports"] == {"nid000001/cxi0": {"stall": 12, "flit": 120}}
    assert cassini.parse_value("18446744073709551615@1764331200.000000001\n") == (2**64 - 1, 1764331200.000000001)
    assert cassini.parse_value("12@1764331200.5") is None
    assert cassini.reading(str(tmp_path / "none"), host="n")["source"] == "none"


def test_the_node_sampler_prints_one_nic_reading(tmp_path):
    root = fake_cxi(tmp_path, {"cxi1": {"hni_rx_paused_3": 5, "hni_pkts_recv_by_tc_3": 50}})
    p = subprocess.run([sys.executable, "-m", "gpcnet.study.counters", root, "--cxi"], capture_output=True,
                       text=True, timeout=60, env={**os.environ, "PYTHONPATH": PY})
    r = json.loads(p.stdout)
    assert r["source"] == "slingshot-nic" and list(r["ports"].values()) == [{"stall": 5, "flit": 50}]


def test_a_named_pipe_as_a_telemetry_file_is_no_value(tmp_path):
    root = fake_cxi(tmp_path, {"cxi0": {"hni_pkts_recv_by_tc_0": 1}})
    os.mkfifo(tmp_path / "class/cxi/cxi0/device/telemetry/hni_rx_paused_0")
    assert cassini.nic_counters(root) == {}


def test_the_switch_record_is_read_for_the_counters_of_each_port(tmp_path):
    write_record(tmp_path / "sw.jsonl", [100.0, 101.0])
    rs = slingshot.read_switch_record(str(tmp_path / "sw.jsonl"))
    assert [r["time"] for r in rs] == [100.0, 101.0]
    # the fixture's per-interval steps of x1000c0r0j12p0: 30 PAUSE frames out, 100 octets in
    a, b = rs[0]["ports"][f"{R0}j12p0"], rs[1]["ports"][f"{R0}j12p0"]
    assert (b["stall"] - a["stall"], b["flit"] - a["flit"]) == (30, 100)
    assert slingshot.during(rs + [{"time": 105.0}, {"time": 106.0}], 100.5, 102.0) == rs + [{"time": 105.0}]


def stopped(by_host):
    """JobSampler.stop returning these node sampler readings."""
    def stop(sampler):
        return {h: list(rs) for h, rs in by_host.items()}, list(sampler.notes)
    return stop


NICS = {"nid000001": [(0, 0), (40, 400)], "nid000002": [(7, 0), (7, 300)], "nid000005": [(0, 0), (10, 100)]}


def nic_readings(t0: float) -> dict:
    return {h: [{"time": t0 + 2 * i, "ports": {f"{h}/cxi0": {"stall": s, "flit": f}}} for i, (s, f) in enumerate(v)]
            for h, v in NICS.items()}


class Launcher:
    env: dict = {}

    child_path = staticmethod(str)   # the job runs here: the name as given

    def job(self, nodes, command, tag, ppn=None):
        return command


def test_the_metric_is_on_the_network_tiles_and_the_nics_are_processor_tiles(tmp_path, monkeypatch):
    """Hand-computed: per interval, x1000c0r0's fabric ports 10/100, 30/100,
    0/1000 (below the threshold: dropped) and 50/100: 0.3; x1000c0r1's four
    20/100: 0.2; the mean over routers 0.25 in both intervals. Their stalls
    per second (no threshold): (10+30+0+50)/4 = 22.5 and 20, 21.25 a step,
    over intervals of 2 s and 1 s: 42.5 / 3 s. The NICs: 40/2 s and 0 on
    x1000c0r0 (10), 10/2 s on x1000c0r1 (5): 7.5 stalls/s. The heavy
    stalls of other switches and of an edge port never count."""
    t0 = time.time() - 100
    write_record(tmp_path / "sw.jsonl", [t0 - 1, t0 + 1, t0 + 2])
    monkeypatch.setenv(slingshot.FABRIC_ENV, str(FABRIC))
    monkeypatch.setenv(slingshot.SWITCH_ENV, str(tmp_path / "sw.jsonl"))
    monkeypatch.setattr(JobSampler, "stop", stopped(nic_readings(t0)))
    s = slingshot_source.SlingshotSampler(Launcher(), APP, 1.0, tmp_path, "c", 60)
    assert s.cmd[-1] == "--cxi" and s.fabric == {"from": f"file {FABRIC}", "switches": 2, "missing": []}
    s.window[0] = t0
    rec = sampling.record(s, 0.0, 1.0, 1.0)
    assert rec["source"] == "slingshot" and rec["stall_counter"].startswith("switch dot3HCOutPauseFrames")
    assert rec["metric"]["stall_ratio"] == pytest.approx(0.25)
    assert (rec["metric"]["samples_kept"], rec["metric"]["samples_dropped"]) == (14, 2)
    assert rec["tiles"]["ntile"]["stall_per_s"] == pytest.approx(42.5 / 3)
    assert rec["tiles"]["ntile"]["routers"] == 2 and rec["tiles"]["ntile"]["ports"] == 8
    assert rec["ptile_ports"]["nid000002/cxi0"] == {"router": R0, "node": "nid000002"}
    assert rec["tiles"]["ptile"]["stall_per_s"] == pytest.approx(7.5)
    assert rec["errors"] == []
    rates = set().union(*(iv["rates"] for iv in rec["series"]))
    assert "x1000c0r2j10p0" not in rates and f"{R0}j0p0" not in rates and "x1001c0r0j20p0" not in rates


def test_a_slingshot_run_record_is_a_valid_study_and_reported(tmp_path, monkeypatch):
    from gpcnet.report import study_page
    from gpcnet.study import document
    t0 = time.time() - 100
    write_record(tmp_path / "sw.jsonl", [t0 - 1, t0 + 1, t0 + 2])
    monkeypatch.setenv(slingshot.FABRIC_ENV, str(FABRIC))
    monkeypatch.setenv(slingshot.SWITCH_ENV, str(tmp_path / "sw.jsonl"))
    monkeypatch.setattr(JobSampler, "stop", stopped(nic_readings(t0)))
    runs = []
    for setting, k in (("I", 0), ("III", 0)):
        s = slingshot_source.SlingshotSampler(Launcher(), APP, 1.0, tmp_path, "c", 60)
        s.window[0] = t0
        runs.append({"id": f"{setting}-r{k}", "setting": setting, "rotation": k, "status": "ok", "wall_s": 2.0,
                     "app_nodes": APP, "congestor_nodes": [], "counters": sampling.record(s, 0.0, 1.0, 1.0)})
    doc = {"kind": "gpcnet_study", "schema_version": 1, "nodes": APP, "runs": runs,
           "config": {"study": "corun", "app_command": ["app"], "n": 3, "ppn": 1, "rotations": 1,
                      "launcher": "mpirun", "settings": ["I", "III"], "baseline": "I", "congestor_args": []}}
    doc = json.loads(json.dumps(doc))
    document.validate(doc, "study.json")
    assert "dot3HCOutPauseFrames" in study_page.render(doc)


def test_without_the_switch_record_the_nics_are_read_and_there_is_no_ratio(tmp_path, monkeypatch):
    monkeypatch.setenv(slingshot.FABRIC_ENV, str(FABRIC))
    monkeypatch.delenv(slingshot.SWITCH_ENV, raising=False)
    monkeypatch.setattr(JobSampler, "stop", stopped(nic_readings(1000.0)))
    s = slingshot_source.SlingshotSampler(Launcher(), APP, 1.0, tmp_path, "c", 60)
    rec = sampling.record(s, 0.0, 1.0, 1.0)
    assert rec["metric"]["stall_ratio"] is None and rec["errors"] == [slingshot_source.NO_SWITCH_RECORD]
    assert rec["tiles"]["ptile"]["stall_per_s"] == pytest.approx(7.5)


def test_the_node_sampler_reads_the_nics_and_the_study_the_record(tmp_path, monkeypatch):
    """The mpirun/srun path without MPI: the job is the node sampler on this
    host (--cxi, a fake /sys); the fabric manager's record is written while
    it runs, as a site's loop would."""
    me = os.uname().nodename.split(".")[0].lower()
    fab = json.loads(FABRIC.read_text())
    fab["edge_nodes"]["x1000c0r0j0p0"] = me
    (tmp_path / "fabric.json").write_text(json.dumps(fab))
    root = fake_cxi(tmp_path / "sys", {"cxi0": {"hni_rx_paused_0": 3, "hni_pkts_recv_by_tc_0": 30}})
    record = tmp_path / "sw.jsonl"
    write_record(record, [time.time() - 1])
    monkeypatch.setenv(slingshot.FABRIC_ENV, str(tmp_path / "fabric.json"))
    monkeypatch.setenv(slingshot.SWITCH_ENV, str(record))

    class OneHost(Launcher):
        env = {"PYTHONPATH": PY, "PATH": "/usr/bin:/bin", "GPCNET_SYS_ROOT": root}

    s = slingshot_source.SlingshotSampler(OneHost(), [me], 0.1, tmp_path, "sampler-s", 60)
    s.start()
    deadline = time.monotonic() + 60
    while (not s.out.exists() or len(s.out.read_text().splitlines()) < 3) and time.monotonic() < deadline:
        time.sleep(0.05)
    with record.open("a") as f:
        for k in (1, 2):
            f.write(json.dumps({"time": time.time(), "statistics": statistics(k)}) + "\n")
            time.sleep(0.01)
    rec = sampling.record(s, 0.0, 0.1, 1.0)
    assert rec["source"] == "slingshot" and set(rec["ptile_ports"]) == {f"{me}/cxi0"}
    assert rec["ptile_ports"][f"{me}/cxi0"]["router"] == R0
    assert set(rec["ports"]) == {f"{R0}j11p0", f"{R0}j12p0", f"{R0}j13p0", f"{R0}j20p0"}
    assert rec["metric"]["stall_ratio"] == pytest.approx(0.3)        # x1000c0r0 alone: mean(0.1, 0.3, 0.5)
    assert rec["tiles"]["ptile"]["stall_per_s"] == 0.0                # the fake NIC's counters do not move
    assert rec["errors"] == []
    assert all(json.loads(x)["source"] == "slingshot-nic" for x in s.out.read_text().splitlines())


def run_cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "gpcnet.study.slingshot", *map(str, args)], capture_output=True,
                          text=True, timeout=60, env={**os.environ, "PYTHONPATH": PY, **(env or {})})


def test_the_cli_prints_the_tiles_it_would_read(tmp_path):
    write_record(tmp_path / "sw.jsonl", [1.0, 2.0, 3.0])
    p = run_cli(FABRIC, "nid000005", "--switch-counters", tmp_path / "sw.jsonl")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert sorted(out["ntile"]) == [f"{R1}j10p0", f"{R1}j12p0", f"{R1}j13p0", f"{R1}j20p0"]
    assert out["switch_readings"] == 3


def _fabric(**change):
    doc = json.loads(FABRIC.read_text())
    for path, value in change.items():
        where = doc
        keys = path.split("__")
        for k in keys[:-1]:
            where = where[int(k)] if isinstance(where, list) else where[k]
        last = keys[-1]
        where[int(last) if isinstance(where, list) else last] = value
    return json.dumps(doc)


BAD_FABRICS = {
    "not-json": ("{", "malformed JSON at line 1"),
    "a-list": ("[]", "$: expected the Fabric Controller's port-links object"),
    "no-edge-nodes": (json.dumps({"ports": {"edge": [], "fabric": []}, "links": []}), "$.edge_nodes: expected"),
    "bad-port": (_fabric(ports__fabric__3="x1000c0r0"), "$.ports.fabric[3]: 'x1000c0r0' is not a switch port xname"),
    "bad-endpoint": (_fabric(links__2__endpoint2=7), "$.links[2].endpoint2: 7 is not a switch port xname"),
    "edge-in-a-link": (_fabric(links__0__endpoint1="x1000c0r0j0p0"),
                       "$.links[0].endpoint1: x1000c0r0j0p0 is listed as an edge port"),
    "node-not-edge": (_fabric(edge_nodes={"x1000c0r0j11p0": "nid000001"}),
                      "$.edge_nodes['x1000c0r0j11p0']: not one of $.ports.edge"),
    "markup-node": (_fabric(edge_nodes={"x1000c0r0j0p0": "<b>n</b>"}),
                    "$.edge_nodes['x1000c0r0j0p0']: '<b>n</b>' is not a host name (HOST or HOST/cxiN)"),
}


@pytest.mark.parametrize("case", sorted(BAD_FABRICS))
def test_a_bad_fabric_is_one_line_exit_2(tmp_path, case):
    text, message = BAD_FABRICS[case]
    (tmp_path / "f.json").write_text(text)
    p = run_cli(tmp_path / "f.json", "nid000001")
    assert p.returncode == 2 and p.stdout == ""
    assert len(p.stderr.splitlines()) == 1 and message in p.stderr and "f.json" in p.stderr, p.stderr


def _line(k=0, **change):
    item = {"time": 10.0 + k, "statistics": statistics(k)}
    item.update(change)
    return json.dumps(item)


BAD_RECORDS = {
    "not-json": (_line() + "\n{oops\n", ":2: not a JSON line"),
    "no-time": (json.dumps({"statistics": []}) + "\n", ":1: time: expected seconds since the epoch, not null"),
    "time-backwards": (_line(1) + "\n" + _line(0) + "\n", ":2: time: 10 does not follow the line before (11)"),
    "no-statistics": (json.dumps({"time": 1}) + "\n", ":1: expected {\"time\": seconds, \"statistics\""),
    "value-not-a-count": (_line(statistics=[{"ports": [{"xname": "x1000c0r0j11p0", "status": {
        "name": "3635", "stat": [{"name": "dot3HCOutPauseFrames", "value": "-3"}]}}]}]) + "\n",
        ":1: statistics[0].ports[0].status.stat[0].value: expected a counter value"),
    "bad-xname": (_line(statistics=[{"ports": [{"xname": "nid000001", "status": {}}]}]) + "\n",
                  ":1: statistics[0].ports[0].xname: expected a switch port xname"),
    "nan": ('{"time": NaN, "statistics": []}\n', ":1: not a JSON line: non-standard JSON constant NaN"),
    "deep": ("[" * 100000 + "\n", ":1: nested too deeply"),
}


@pytest.mark.parametrize("case", sorted(BAD_RECORDS))
def test_a_bad_switch_record_is_one_line_exit_2(tmp_path, case):
    text, message = BAD_RECORDS[case]
    (tmp_path / "sw.jsonl").write_text(text)
    p = run_cli(FABRIC, "nid000001", "--switch-counters", tmp_path / "sw.jsonl")
    assert p.returncode == 2 and p.stdout == ""
    assert len(p.stderr.splitlines()) == 1 and message in p.stderr and "sw.jsonl" in p.stderr, p.stderr


def test_special_files_are_refused(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    p = run_cli(tmp_path / "pipe")
    assert p.returncode == 2 and "is a named pipe, not a regular file" in p.stderr
    p = run_cli(FABRIC, "--switch-counters", "/dev/zero")
    assert p.returncode == 2 and "is a character device, not a regular file" in p.stderr


def test_a_record_that_stopped_or_went_bad_is_a_gap_named_in_the_errors(tmp_path, monkeypatch):
    t0 = time.time() - 100
    record = tmp_path / "sw.jsonl"
    write_record(record, [t0 - 20, t0 - 10])                 # the site's loop ended before the run
    monkeypatch.setenv(slingshot.FABRIC_ENV, str(FABRIC))
    monkeypatch.setenv(slingshot.SWITCH_ENV, str(record))
    monkeypatch.setattr(JobSampler, "stop", stopped(nic_readings(t0)))
    s = slingshot_source.SlingshotSampler(Launcher(), APP, 1.0, tmp_path, "c", 60)
    s.window[0] = t0
    rec = sampling.record(s, 0.0, 1.0, 1.0)
    assert rec["metric"]["stall_ratio"] is None
    assert rec["errors"] == [f"1 switch counter reading(s) in {record} cover the run"]
    s = slingshot_source.SlingshotSampler(Launcher(), APP, 1.0, tmp_path, "c", 60)
    s.window[0] = t0
    with record.open("a") as f:
        f.write("{half a line\n")                            # written while the run went on
    rec = sampling.record(s, 0.0, 1.0, 1.0)
    assert rec["metric"]["stall_ratio"] is None and len(rec["errors"]) == 1
    assert rec["errors"][0].startswith(f"{slingshot.SWITCH_ENV} {record}:3: not a JSON line")
    assert rec["tiles"]["ptile"]["stall_per_s"] == pytest.approx(7.5)    # the NICs are still recorded


def test_a_bad_record_is_refused_before_the_run(tmp_path, monkeypatch):
    (tmp_path / "sw.jsonl").write_text("[]\n")
    monkeypatch.setenv(slingshot.FABRIC_ENV, str(FABRIC))
    monkeypatch.setenv(slingshot.SWITCH_ENV, str(tmp_path / "sw.jsonl"))
    with pytest.raises(GpcnetError, match=r"sw.jsonl:1: expected \{"):
        slingshot_source.SlingshotSampler(Launcher(), APP, 1.0, tmp_path, "c", 60)


hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

FUZZ = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                           | st.text(max_size=20), lambda c: st.lists(c, max_size=4)
                           | st.dictionaries(st.text(max_size=8), c, max_size=4), max_leaves=12)


def one_line_or_result(read, *args):
    try:
        return read(*args)
    except GpcnetError as e:
        assert "\n" not in str(e) and len(str(e)) < 2000, str(e)
        return None


@FUZZ
@given(field=st.sampled_from(["ports", "links", "edge_nodes", "ports.edge", "ports.fabric", "links.0",
                              "links.0.endpoint1", "edge_nodes.x1000c0r0j0p0"]), value=JSON_VALUES)
def test_a_mutated_fabric_is_read_or_refused_in_one_line(field, value):
    doc = json.loads(FABRIC.read_text())
    where, keys = doc, field.split(".")
    for k in keys[:-1]:
        where = where[int(k)] if isinstance(where, list) else where[k]
    where[int(keys[-1]) if isinstance(where, list) else keys[-1]] = value
    fab = one_line_or_result(slingshot.parse_fabric, doc, "f.json")
    if fab is not None:
        slingshot.tiles(fab, APP)


@FUZZ
@given(raw=st.binary(max_size=300) | JSON_VALUES.map(lambda v: (json.dumps(v) + "\n").encode()))
def test_any_bytes_as_a_switch_record_or_a_telemetry_file(tmp_path, raw):
    (tmp_path / "r").write_bytes(raw)
    one_line_or_result(slingshot.read_switch_record, str(tmp_path / "r"))
    cassini.parse_value(raw.decode("utf-8", "replace"))
