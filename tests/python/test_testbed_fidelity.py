"""The testbed's emulation fidelity check without a testbed (no root): the
verdict on synthetic /proc/stat readings and counter series, the footer,
where the record goes. The check on a real run beside CPU hogs:
tests/testbed/test_fidelity.py."""
import json
import os
import shutil

import pytest

from conftest import fixture
from gpcnet.results_json.load import validate
from gpcnet.testbed import fidelity, run_fidelity, topology

STAT = "cpu  {user} 0 {system} {idle} {iowait} 0 {softirq} {steal} 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\nintr 1\n"


def stat(user=0, system=0, idle=0, iowait=0, softirq=0, steal=0):
    return fidelity.parse_cpu_line(STAT.format(**locals()))


def quiet():
    """60% of the CPU time idle over the run."""
    return fidelity.cpu_shares(stat(user=100, idle=100), stat(user=120, system=10, softirq=10, idle=160))


def busy():
    """2% idle: two CPU hogs on two cores beside the job."""
    return fidelity.cpu_shares(stat(user=100, idle=100), stat(user=288, softirq=8, idle=104))


def sample(dt, **ports):
    """One interval of a counter series: ports as (bytes, overlimits, backlog at its end)."""
    return {"t": 0.0, "dt": dt, "ports": {p: {"bytes": b, "packets": b // 1500, "drops": 0,
                                              "overlimits": o, "backlog": q}
                                          for p, (b, o, q) in ports.items()}}


RATE = 100_000_000                     # 100 Mbit/s
FULL = RATE // 8 // 2                  # bytes a full 100 Mbit/s link sends in 0.5 s


def saturated(carried: float, n: int = 6) -> list:
    """n intervals of 0.5 s of leaf0/l0s0 with its queue full, sending `carried` of its rate."""
    return [sample(0.5, **{"leaf0/l0s0": (int(FULL * carried), 50, 30000),
                           "leaf0/l0p1": (1000, 0, 0)}) for _ in range(n)]


def test_cpu_line_parsed_and_shares():
    c = stat(user=5, system=1, idle=3, iowait=1, softirq=2, steal=4)
    assert c["idle"] == 3 and c["steal"] == 4 and c["softirq"] == 2
    shares = fidelity.cpu_shares(stat(), c)
    assert shares["idle_share"] == pytest.approx(4 / 16)     # iowait counts as idle
    assert shares["steal_share"] == pytest.approx(4 / 16)
    assert fidelity.parse_cpu_line("intr 1\n") is None
    assert fidelity.parse_cpu_line("cpu  a b c d\n") is None
    assert fidelity.cpu_shares(None, c) is None
    assert fidelity.cpu_shares(c, c) is None                # no time passed
    assert fidelity.parse_cpu_line(open("/proc/stat").read()) is not None


def test_idle_host_with_full_links_at_rate_is_faithful():
    links = fidelity.link_checks(saturated(0.98), {"leaf0/l0s0": RATE})
    assert [q["port"] for q in links] == ["leaf0/l0s0"]      # l0p1 built no queue
    assert links[0]["carried_share"] == pytest.approx(0.98, abs=0.01)
    assert links[0]["full_s"] == pytest.approx(2.5)           # the first interval has no start backlog
    assert fidelity.verdict(quiet(), links) == ("faithful", [])


def test_busy_cpus_make_the_run_host_bound():
    v, reasons = fidelity.verdict(busy(), fidelity.link_checks(saturated(0.98), {"leaf0/l0s0": RATE}))
    assert v == "host-bound"
    assert reasons == ["host CPUs 2.0% idle over the run, below 10%"]


def test_steal_makes_the_run_host_bound():
    cpu = fidelity.cpu_shares(stat(), stat(user=50, idle=30, steal=20))
    v, reasons = fidelity.verdict(cpu, [])
    assert v == "host-bound" and "20.0% of the CPU time stolen" in reasons[0]


def test_full_link_below_its_rate_makes_the_run_host_bound():
    links = fidelity.link_checks(saturated(0.4), {"leaf0/l0s0": RATE})
    v, reasons = fidelity.verdict(quiet(), links)
    assert v == "host-bound"
    assert reasons == ["leaf0/l0s0 carried 40% of its rate while its queue was full for 2.5 s, below 80%"]


def test_a_queue_full_too_briefly_is_listed_not_judged():
    links = fidelity.link_checks(saturated(0.1, n=2), {"leaf0/l0s0": RATE})
    assert links[0]["carried_share"] is None and links[0]["full_s"] == pytest.approx(0.5)
    assert fidelity.verdict(quiet(), links)[0] == "faithful"


def test_intervals_without_backlog_at_both_ends_are_not_full():
    # Bursts: overlimits in every interval, but the queue empties between them.
    series = [sample(0.5, **{"leaf0/l0s0": (FULL // 10, 5, 3000 if i % 2 else 0)}) for i in range(10)]
    links = fidelity.link_checks(series, {"leaf0/l0s0": RATE})
    assert links[0]["full_s"] == 0 and links[0]["carried_share"] is None


def test_unreadable_cpu_is_unknown(tmp_path):
    assert fidelity.read_cpu(str(tmp_path / "no-stat")) is None
    assert fidelity.cpu_shares(fidelity.read_cpu(str(tmp_path / "no-stat")), stat(user=1)) is None
    assert fidelity.verdict(None, [])[0] == "unknown"
    # A link that did not carry its rate still says host-bound.
    links = fidelity.link_checks(saturated(0.4), {"leaf0/l0s0": RATE})
    assert fidelity.verdict(None, links)[0] == "host-bound"


def test_record_and_footer():
    fid = fidelity.record(stat(user=100, idle=100), stat(user=288, softirq=8, idle=104), 12.5,
                          {"interval_s": 0.5, "samples": saturated(0.98), "errors": []},
                          {"leaf0/l0s0": RATE})
    assert fid["verdict"] == "host-bound" and fid["queues_built"] == ["leaf0/l0s0"]
    assert fid["cpu"]["idle_share"] == pytest.approx(0.02) and fid["samples"] == 6
    text = fidelity.footer(fid)
    assert text.startswith("Emulation fidelity: host-bound (host CPUs 2.0% idle over the run")
    assert "CPU idle 2.0%, steal 0.0% over 12.5 s; queues built at leaf0/l0s0 (carried 98%" in text
    quiet_fid = fidelity.record(stat(user=100, idle=100), stat(user=120, idle=180), 3, {}, {})
    assert fidelity.footer(quiet_fid).splitlines()[0] == "Emulation fidelity: faithful"
    assert "no queue built" in fidelity.footer(quiet_fid)


def test_degraded_link_judged_at_its_degraded_rate():
    topo = topology.build("fat-tree", 4, 2, 1, 1.0, "100mbit")
    rates = fidelity.rates_in_force(topo, [])
    uplink = next(k for k in rates if k.endswith("s0") and k.startswith("leaf0/"))
    assert rates[uplink] == 200_000_000
    faults = [{"kind": "degrade", "target": uplink.split("/")[1], "percent": 10}]
    assert fidelity.rates_in_force(topo, faults)[uplink] == 20_000_000


def test_results_paths_from_the_command():
    assert run_fidelity.results_paths(["./build/network_load_test", "--output-dir", "r/star/"]) == \
        ["r/star/network_load_test.json"]
    assert run_fidelity.results_paths(["srun", "-N", "4", "/b/network_test", "--json=/o/a.json"]) == \
        ["/o/a.json"]
    assert run_fidelity.results_paths(["network_congestor"]) == ["network_congestor.json"]
    assert run_fidelity.results_paths(["sh", "-c", "x", "./network_test", "--json", "a.json", "--json", "b.json",
                                       "./network_load_test"]) == ["b.json", "network_load_test.json"]
    assert run_fidelity.results_paths(["sbatch", "job.sh"]) == []


def test_attach_adds_a_valid_fidelity_record(tmp_path):
    path = tmp_path / "network_load_test.json"
    shutil.copy(fixture("load_run.json"), path)
    fid = fidelity.record(stat(user=100, idle=100), stat(user=290, idle=110), 4.0,
                          {"interval_s": 0.5, "samples": saturated(0.9), "errors": []}, {"leaf0/l0s0": RATE})
    note = run_fidelity.attach(str(path), fid, started=0)
    assert note == f"fidelity recorded in {path}"
    doc = json.loads(path.read_text())
    assert doc["fidelity"]["verdict"] == "host-bound"
    validate(doc)   # the schema knows the section


def test_attach_leaves_old_links_and_foreign_files(tmp_path):
    old = tmp_path / "old.json"
    shutil.copy(fixture("load_run.json"), old)
    fid = fidelity.record(None, None, 1.0, {}, {})
    assert "older than this run" in run_fidelity.attach(str(old), fid, started=os.stat(old).st_mtime + 60)
    link = tmp_path / "link.json"
    link.symlink_to(old)
    assert "fidelity not recorded" in run_fidelity.attach(str(link), fid, started=0)
    assert "fidelity" not in json.loads(old.read_text())
    other = tmp_path / "other.json"
    other.write_text('{"a": 1}\n')
    assert "not a gpcnet results JSON" in run_fidelity.attach(str(other), fid, started=0)
    assert other.read_text() == '{"a": 1}\n'
    assert "not written by this run" in run_fidelity.attach(str(tmp_path / "none.json"), fid, started=0)


def _report(cli, tmp_path, fid):
    doc = json.loads(open(fixture("load_run.json")).read())
    if fid is not None:
        doc["fidelity"] = fid
    src = tmp_path / "run.json"
    src.write_text(json.dumps(doc))
    out = tmp_path / "report.html"
    code, _, err = cli("report", src, "-o", out, "--force")
    assert code == 0, err
    return out.read_text()


def test_report_warns_of_a_host_bound_run(cli, tmp_path):
    fid = fidelity.record(stat(user=100, idle=100), stat(user=288, softirq=8, idle=104), 12.5,
                          {"interval_s": 0.5, "samples": saturated(0.98), "errors": []}, {"leaf0/l0s0": RATE})
    text = _report(cli, tmp_path, fid)
    assert '<p class="warning">Emulation fidelity: <b>host-bound</b> (host CPUs 2.0% idle over the run' in text
    assert '<section id="fidelity"><h2>Emulation fidelity</h2>' in text
    assert "<td>leaf0/l0s0</td>" in text and ">98%</td>" in text


def test_report_of_a_faithful_run_has_the_section_not_the_warning(cli, tmp_path):
    fid = fidelity.record(stat(user=100, idle=100), stat(user=120, idle=180), 3, {}, {})
    text = _report(cli, tmp_path, fid)
    assert "Verdict: <b>faithful</b>" in text and "No queue built on any switch port." in text
    assert 'class="warning">Emulation fidelity' not in text
    assert 'id="fidelity"' not in _report(cli, tmp_path, None)   # not a testbed run: no section


def test_footer_lists_a_few_ports_and_counts_the_rest():
    samples = [sample(0.5, **{f"star/d{i}": (1000, i, 0) for i in range(1, 8)})]
    fid = fidelity.record(stat(user=1, idle=1), stat(user=2, idle=9), 1.0,
                          {"interval_s": 0.5, "samples": samples, "errors": []}, {})
    assert fid["queues_built"] == [f"star/d{i}" for i in range(7, 0, -1)]   # most overlimits first
    assert fidelity.footer(fid).splitlines()[1].endswith(
        "queues built at star/d7, star/d6, star/d5, star/d4 and 3 more")


def test_a_study_run_records_the_cpu_part():
    from gpcnet.study import runner
    fid = fidelity.cpu_record(stat(user=100, idle=100), stat(user=288, softirq=8, idle=104), 2.0)
    assert fid["verdict"] == "host-bound" and fid["links_checked"] is False
    assert fidelity.cpu_record(stat(user=1, idle=1), stat(user=2, idle=9), 1.0)["verdict"] == "faithful"
    line = runner._finished({"wall_s": 2.0, "fidelity": fid})
    assert line == "2.000 s; emulation host-bound: host CPUs 2.0% idle over the run, below 10%"
    assert runner._finished({"wall_s": 2.0}) == "2.000 s"


def test_study_watch_records_on_the_testbed_only():
    from types import SimpleNamespace

    from gpcnet.study import emulation
    rec = {}
    emulation.watch(SimpleNamespace(name="local"))(rec)
    assert rec == {}
    emulation.watch(SimpleNamespace(name="testbed"))(rec)
    assert rec["fidelity"]["verdict"] in ("faithful", "host-bound", "unknown")
    assert rec["fidelity"]["links_checked"] is False and rec["fidelity"]["seconds"] >= 0
