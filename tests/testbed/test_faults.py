"""Faults injected into the testbed while network_load_test runs across it
(docs/reliability.md, "T. Faults injected on the testbed"; docs/testbed.md#faults).

Each case starts the load test on 4 hosts, waits until its JSON shows the
first phase finished, injects the fault on a canary host that is not rank
0's (so that rank 0 can still write the file), and checks what a user
needs: how the job ends and within what bound, the exit code, the phases
finished before the fault still in the JSON, the status naming the
failure (the step in "aborted_in", the host in "failed_hosts": the runs use
--fault-probe), the fault in `gpcnet testbed status` and gone after
`fault clear`, and nothing left after `down`.

Every phase of the run lasts PHASE_S seconds at least whatever the
machine's speed (a time limit with more measurements than fit in it), so a
fault injected after the first phase always lands mid-run: three phases,
9 s at least, follow. How the job ended is asserted, never how long it
took: runs that must complete, or end by the launcher's SIGTERM, have a
far --deadline (a hang guard, 15 times a run's 20 s), so a run that ended
by the signal did not wait for its deadline; the link-down run, which only
the deadline can end, has LINK_DOWN_DEADLINE, far enough for its first
phase and the fault (about 7 s) to come before the probe.
"""
import tempfile
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import (QUICK, REPO, STATE_DIR, binary, gpcnet, load, make_testbed, our_mounts,
                      our_namespaces)

PHASE_S = 3
FAR_DEADLINE = 300   # never reached: a hang guard of runs that complete or end by a signal
LINK_DOWN_DEADLINE = 80
PROBE = 10           # --fault-probe: rank 0 asks who is there 10 s before the deadline
# Long enough for the test to see the flap in force (`testbed status`, a
# new Python process: 1-2 s on a busy host; with 2 s it had ended first),
# short enough for TCP to carry the job across it.
FLAP_S = 10
# Latency and Allreduce canaries only: a bandwidth measurement over a link
# cut to 1% takes tens of seconds (measured: 28 s), past any time limit.
LOAD = ["--tests", "rr_two_sided_lat,multiple_allreduce", "--time-limit", PHASE_S, "--measurements", 10000000,
        "--rings", 2, "--iterations", 4, "--warmup", 1, "--congestors", "a2a", "--canary-fraction", 0.5,
        "--congestor-measurements", 2, "--seed", 1, "--fault-probe", PROBE, "--quiet"]
ALL_PHASES = 4
LOAD_TEST_STEPS = {"isolated", "with congestion"}  # an aborted JSON's "aborted_in" names one

testbed = make_testbed("--hosts", "4")


@pytest.fixture
def tb(testbed):
    """The module's testbed, with no fault before or after each test."""
    assert faults_in_force() == []
    yield
    gpcnet("testbed", "fault", "clear", check=False)
    assert faults_in_force() == []


def faults_in_force():
    with tempfile.TemporaryDirectory(dir="/var/tmp") as d:
        gpcnet("testbed", "status", "--json", f"{d}/status.json")
        return load(f"{d}/status.json")["faults"]


def qdiscs(ns, dev):
    return subprocess.run(["ip", "netns", "exec", ns, "tc", "qdisc", "show", "dev", dev],
                          capture_output=True, text=True, check=True).stdout


class Run:
    """The load test running on the testbed, in the background."""

    def __init__(self, out, deadline=FAR_DEADLINE):
        self.json = out / "network_load_test.json"
        self.deadline = deadline
        env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
        self.start = time.monotonic()
        # Hang guards: `testbed run --timeout` above the job's deadline,
        # the waits here above both.
        self.job = subprocess.Popen(
            [sys.executable, "-m", "gpcnet", "testbed", "run", "--timeout", str(deadline + 60), "--",
             str(binary("network_load_test")), *map(str, LOAD), "--deadline", str(deadline),
             "--output-dir", str(out)],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=out)

    def first_phase(self):
        """The JSON once a phase has finished: the fault goes in now. (A
        job that ends first, by its deadline or otherwise, fails here.)"""
        while time.monotonic() < self.start + self.deadline + 120:
            try:
                doc = load(self.json)
                if doc["phases"]:
                    return doc
            except (OSError, ValueError):
                pass
            assert self.job.poll() is None, self.job.communicate()
            time.sleep(0.05)
        pytest.fail("the job hung before its first phase")

    def end(self):
        try:
            out, err = self.job.communicate(timeout=self.deadline + 120)
        except subprocess.TimeoutExpired:
            self.job.kill()
            pytest.fail("the job hung past its --deadline")
        if self.deadline == FAR_DEADLINE:
            assert "--deadline of" not in err, err[-2000:]   # a hang guard only
        return self.job.returncode, load(self.json), err, time.monotonic()


def victim(doc):
    """A canary host other than rank 0's (node01: ranks are dealt in host order)."""
    return next(n for n in doc["placement"]["canary_nodes"] if n != "node01")


def kept(before, after):
    names = [p["name"] for p in after["phases"]]
    assert names[:len(before["phases"])] == [p["name"] for p in before["phases"]]
    return names


def test_short_flap_the_run_continues(tb, tmp_path):
    run = Run(tmp_path)
    before = run.first_phase()
    host = victim(before)
    flap = subprocess.Popen([sys.executable, "-m", "gpcnet", "testbed", "fault", "flap", host, str(FLAP_S)],
                            env=dict(os.environ, PYTHONPATH=str(REPO / "python")),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert "link down" in flap.stdout.readline()
    recorded = faults_in_force()
    assert [(f["kind"], f["target"]) for f in recorded] == [("flap", host)]
    assert "state DOWN" in subprocess.run(["ip", "-n", "gtb-fabric", "link", "show", f"d{int(host[4:])}"],
                                          capture_output=True, text=True).stdout
    out, err = flap.communicate(timeout=FLAP_S + 30)
    assert flap.returncode == 0, err
    assert f"flap {host}: link up again" in out
    code, doc, err, ended = run.end()
    print(f"MEASURED flap {FLAP_S} s: exit {code}, {doc['status']}, job {ended - run.start:.1f} s")
    # TCP retransmits over the gap: the job goes on and completes.
    assert code == 0, err[-2000:]
    assert doc["status"] == "complete" and "failed_hosts" not in doc
    assert len(kept(before, doc)) == ALL_PHASES
    assert faults_in_force() == []      # the flap removed its own record


def test_link_down_ended_by_the_deadline(tb, tmp_path):
    run = Run(tmp_path, LINK_DOWN_DEADLINE)
    before = run.first_phase()
    host = victim(before)
    gpcnet("testbed", "fault", "link-down", host)
    assert [(f["kind"], f["target"]) for f in faults_in_force()] == [("link-down", host)]
    code, doc, err, ended = run.end()
    print(f"MEASURED link-down: exit {code}, job ended {ended - run.start:.1f} s after its start")
    # Nothing fails: TCP waits for the link, the ranks wait for TCP; only
    # the deadline ends the job, and does, with the finished phases kept.
    assert code == 124, err[-2000:]
    assert doc["status"] == "aborted"
    assert doc["abort_reason"] == f"deadline: --deadline {LINK_DOWN_DEADLINE} s reached"
    assert doc["aborted_in"].split(": ")[0] in LOAD_TEST_STEPS, doc["aborted_in"]
    # The host cut off is named: its ranks did not answer the probe (which
    # therefore came after the fault: before it, every host answers).
    assert doc["failed_hosts"] == [host], err[-2000:]
    assert doc["fault_probe"]["from"] == "node01" and doc["fault_probe"]["silent_hosts"] == [host]
    assert len(kept(before, doc)) < ALL_PHASES
    assert err.count(f"--deadline of {LINK_DOWN_DEADLINE} s reached") == 1
    assert err.count(f"failed host: {host} (\"failed_hosts\" in the JSON)") == 1
    gpcnet("testbed", "fault", "clear", host)
    assert "state UP" in subprocess.run(["ip", "-n", "gtb-fabric", "link", "show", f"d{int(host[4:])}"],
                                        capture_output=True, text=True).stdout


def test_degraded_link_the_run_completes(tb, tmp_path):
    run = Run(tmp_path)
    before = run.first_phase()
    host = victim(before)
    port = f"d{int(host[4:])}"
    assert "rate 1Gbit" in qdiscs("gtb-fabric", port)
    gpcnet("testbed", "fault", "degrade", port)
    (f,) = faults_in_force()
    assert (f["kind"], f["target"], f["percent"]) == ("degrade", host, 1)
    # Both ends: the switch port and the host's NIC.
    assert "rate 10Mbit" in qdiscs("gtb-fabric", port)
    assert "rate 10Mbit" in qdiscs(f"gtb-{host}", "data0")
    code, doc, err, ended = run.end()
    print(f"MEASURED degrade: exit {code}, {doc['status']}, job {ended - run.start:.1f} s")
    assert code == 0, err[-2000:]
    assert doc["status"] == "complete" and "failed_hosts" not in doc
    assert len(kept(before, doc)) == ALL_PHASES
    gpcnet("testbed", "fault", "clear", port)
    assert "rate 1Gbit" in qdiscs("gtb-fabric", port)
    assert "rate 1Gbit" in qdiscs(f"gtb-{host}", "data0")


def netem_works():
    probe = "gtbprobe-netem"
    subprocess.run(["ip", "netns", "add", probe], check=True)
    try:
        return subprocess.run(["ip", "netns", "exec", probe, "tc", "qdisc", "add", "dev", "lo", "root",
                               "netem", "loss", "1%"], capture_output=True).returncode == 0
    finally:
        subprocess.run(["ip", "netns", "del", probe], check=True)


def test_packet_loss_or_refused_without_netem(tb, tmp_path):
    if not netem_works():
        p = gpcnet("testbed", "fault", "loss", "node02", "5", check=False)
        assert p.returncode == 2
        assert p.stderr == ("gpcnet testbed: this kernel has no netem (sch_netem): packet loss "
                            "cannot be emulated on this machine\n")
        assert faults_in_force() == []
        assert "netem" not in qdiscs("gtb-fabric", "d2")
        return
    run = Run(tmp_path)
    before = run.first_phase()
    host = victim(before)
    gpcnet("testbed", "fault", "loss", host, "5")
    assert "loss 5%" in qdiscs("gtb-fabric", f"d{int(host[4:])}")
    code, doc, err, _ = run.end()
    assert code == 0, err[-2000:]
    assert doc["status"] == "complete" and len(kept(before, doc)) == ALL_PHASES


def test_probe_with_one_sided_tests_refused_before_measuring(tb, tmp_path):
    """Open MPI over TCP between hosts cannot make one-sided windows with
    MPI_THREAD_MULTIPLE: network_test's default tests (RR Get Lat, RR Put
    BW) with --fault-probe are refused at once, not aborted mid-set-up."""
    p = gpcnet("testbed", "run", "--timeout", 60, "--", binary("network_test"), *QUICK,
               "--deadline", 30, "--fault-probe", 4, "--output-dir", tmp_path, check=False)
    assert p.returncode == 2, p.stderr[-2000:]
    assert ("--fault-probe: with MPI_THREAD_MULTIPLE this MPI cannot make the one-sided windows "
            "that rr_get_lat, rr_put_bw use") in p.stderr
    assert "MPI_ERR_WIN" not in p.stderr and list(tmp_path.glob("*.json")) == []


def test_killed_host_ends_the_job(tb, tmp_path):
    run = Run(tmp_path)
    before = run.first_phase()
    host = victim(before)
    killed_at = time.monotonic()   # for the MEASURED line only
    gpcnet("testbed", "fault", "kill-host", host)
    assert [(f["kind"], f["target"]) for f in faults_in_force()] == [("kill-host", host)]
    code, doc, err, ended = run.end()
    print(f"MEASURED kill-host: exit {code}, job ended {ended - killed_at:.1f} s after the kill")
    # mpirun loses the host's daemon and ends the job: the others get
    # SIGTERM, so rank 0 marks the file aborted; they answer the probe on
    # their way out, the lost host's ranks cannot, and the JSON names it.
    # Ended by that SIGTERM, not by waiting for the far deadline (Run.end).
    assert code not in (0, 124)
    assert doc["status"] == "aborted" and doc["abort_reason"] == "signal SIGTERM"
    assert doc["aborted_in"].split(": ")[0] in LOAD_TEST_STEPS, doc["aborted_in"]
    assert doc["fault_probe"]["after"] == "SIGTERM"
    # Named always. Now and then (4 of about 60 runs) mpirun's daemon
    # tree also ended another host's ranks without a signal (the lost
    # daemon was their parent: "ORTE was unable to reliably start one or
    # more daemons"); they are silent too, and named beside it
    # (docs/reliability.md#fault-probe). Never rank 0's own host.
    assert host in doc["failed_hosts"] and "node01" not in doc["failed_hosts"], err[-2000:]
    if doc["failed_hosts"] != [host]:
        assert "the lost host, and any whose ranks the launcher ended without a signal" in err
    assert len(kept(before, doc)) < ALL_PHASES
    # Open MPI's mpirun usually names the host ("Remote daemon: ... on node
    # node02"), but once said "ORTE was unable to reliably start one or more
    # daemons" instead: not asserted (docs/reliability.md, T faults).
    # Cleared, the host is back: a new /tmp, and jobs run on it again.
    gpcnet("testbed", "fault", "clear", host)
    hosts = gpcnet("testbed", "run", "--timeout", 60, "--", "hostname").stdout.split()
    assert sorted(hosts) == ["node01", "node02", "node03", "node04"]
    (tmp_path / "after").mkdir()
    gpcnet("testbed", "run", "--timeout", 60, "--", binary("network_test"), *QUICK, "--output-dir",
           tmp_path / "after", "--quiet", timeout=120)
    assert load(tmp_path / "after" / "network_test.json")["status"] == "complete"


@pytest.mark.parametrize("args, message", [
    (["kill-host", "node99"], "unknown host 'node99' (hosts: node01 to node04)"),
    (["link-down", "d9"], "unknown host or switch port 'd9' (hosts node01 to node04, host ports d1 to d4)"),
    (["degrade", "star"], "unknown host or switch port 'star'"),
    (["flap", "node02", "abc"], "flap duration 'abc': expected a number > 0 and at most 3600"),
    (["flap", "node02", "0"], "flap duration '0': expected a number > 0"),
    (["flap", "node02", "-1"], "flap duration '-1': expected a number > 0"),
    (["flap", "node02", "nan"], "flap duration 'nan': expected a number > 0"),
    (["flap", "node02", "inf"], "flap duration 'inf': expected a number > 0"),
    (["degrade", "node02", "--percent", "0"], "--percent '0': expected a number > 0 and at most 100"),
    (["degrade", "node02", "--percent", "150"], "--percent '150': expected a number > 0"),
    (["loss", "node02", "x"], "loss 'x': expected a number > 0 and at most 100"),
    (["clear", "node03"], "no fault on node03 (faults on: nothing)"),
], ids=["unknown-host", "unknown-port", "switch-not-a-port", "duration-text", "duration-0",
        "duration-negative", "duration-nan", "duration-inf", "percent-0", "percent-150", "loss-text",
        "clear-nothing"])
def test_bad_fault_refused(tb, args, message):
    p = gpcnet("testbed", "fault", *args, check=False)
    assert p.returncode == 2
    assert p.stderr.startswith(f"gpcnet testbed: {message}") and p.stderr.count("\n") == 1, p.stderr
    assert p.stdout == ""
    assert faults_in_force() == []


def test_same_fault_twice_refused(tb):
    gpcnet("testbed", "fault", "degrade", "node03")
    p = gpcnet("testbed", "fault", "degrade", "d3", check=False)
    assert (p.returncode, p.stderr) == (2, "gpcnet testbed: node03 already has a degrade fault; "
                                           "`gpcnet testbed fault clear node03` first\n")
    assert len(faults_in_force()) == 1


def test_down_after_a_crash_midway_leaves_nothing(testbed):
    """Faults in force and a flap killed (SIGKILL) while its link is down:
    `down` still removes everything (this ends the module's testbed)."""
    gpcnet("testbed", "fault", "kill-host", "node04")
    gpcnet("testbed", "fault", "degrade", "node03", "--percent", "50")
    flap = subprocess.Popen([sys.executable, "-m", "gpcnet", "testbed", "fault", "flap", "node02", "600"],
                            env=dict(os.environ, PYTHONPATH=str(REPO / "python")),
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert "link down" in flap.stdout.readline()
    flap.send_signal(signal.SIGKILL)
    flap.wait()
    assert sorted(f["kind"] for f in faults_in_force()) == ["degrade", "flap", "kill-host"]
    gpcnet("testbed", "down")
    assert our_namespaces() == [] and our_mounts() == [] and not STATE_DIR.exists()
