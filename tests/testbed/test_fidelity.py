"""`gpcnet testbed run` records how faithful the emulation was
(docs/testbed.md#emulation-fidelity): a run beside CPU hogs is marked
host-bound in its results JSON, its --counters file and the footer after
its tables. The verdict's arithmetic on synthetic readings:
tests/python/test_testbed_fidelity.py."""
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import QUICK, binary, gpcnet, load, make_testbed
from gpcnet.testbed import fidelity

star2 = make_testbed("--topology", "star", "--hosts", "2", "--host-rate", "100mbit")

JOB = ["--tests", "rr_two_sided_lat", *QUICK, "--quiet"]


def hogs(n):
    """n busy loops, our own children, in one process group of their own
    (the first one's), so that one killpg ends them all."""
    loop = [sys.executable, "-c", "while True: pass"]
    first = subprocess.Popen(loop, process_group=0, stdin=subprocess.DEVNULL)
    return [first] + [subprocess.Popen(loop, process_group=first.pid, stdin=subprocess.DEVNULL)
                      for _ in range(n - 1)]


def stop(procs):
    try:
        os.killpg(procs[0].pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    for p in procs:
        p.kill()          # also one that had not joined the group yet
        p.wait(timeout=30)


def run_job(tmp_path, name):
    out = tmp_path / name
    counters = tmp_path / f"{name}-counters.json"
    p = gpcnet("testbed", "run", "--timeout", 240, "--counters", counters, "--",
               binary("network_test"), *JOB, "--output-dir", out, timeout=300)
    return p.stdout, load(out / "network_test.json"), load(counters)


def test_run_beside_cpu_hogs_is_host_bound(star2, tmp_path):
    p = hogs(2 * (os.cpu_count() or 1))
    try:
        stdout, doc, counters = run_job(tmp_path, "hogged")
    finally:
        stop(p)
    fid = doc["fidelity"]
    assert fid["verdict"] == "host-bound", fid
    assert any("idle over the run" in r for r in fid["reasons"]), fid["reasons"]
    assert fid["cpu"]["idle_share"] < fidelity.CPU_IDLE_MIN
    assert fid["samples"] >= 1 and fid["sample_interval_s"] == fidelity.SAMPLE_INTERVAL_S
    assert counters["fidelity"] == fid                    # the same record in both files
    lines = stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Emulation fidelity: "))
    assert lines[at].startswith("Emulation fidelity: host-bound (host CPUs ")
    assert "RR Two-sided Lat" in "\n".join(lines[:at])    # after the program's tables
    assert lines[at + 2] == f"  fidelity recorded in {tmp_path / 'hogged' / 'network_test.json'}"


def test_run_on_a_quiet_host_is_not_host_bound(star2, tmp_path):
    """Only where the machine is quiet and has CPUs to spare: the ranks
    poll (two of them keep two CPUs busy), and a busy machine is
    host-bound by right. tests/python/test_testbed_fidelity.py asserts
    the quiet case on synthetic readings everywhere."""
    before = fidelity.read_cpu()
    time.sleep(2)
    idle = fidelity.cpu_shares(before, fidelity.read_cpu())
    cpus = os.cpu_count() or 1
    if cpus < 8:
        pytest.skip(f"{cpus} CPUs: the job's 2 polling ranks alone leave too little idle (needs 8 or more)")
    if idle is None or idle["idle_share"] < 0.7:
        seen = "unreadable" if idle is None else f"{idle['idle_share']:.0%} idle"
        pytest.skip(f"the host is busy before the run ({seen} over 2 s; needs 70% or more)")
    stdout, doc, _ = run_job(tmp_path, "quiet")
    assert doc["fidelity"]["verdict"] == "faithful", doc["fidelity"]
    assert "Emulation fidelity: faithful" in stdout


def test_other_commands_get_no_footer(star2, tmp_path):
    """The output of a command that is not one of our programs is left as
    scripts read it; its --counters file still has the record."""
    counters = tmp_path / "c.json"
    p = gpcnet("testbed", "run", "--counters", counters, "--no-mpi", "--", "echo", "hello")
    assert p.stdout == "hello\n"
    assert load(counters)["fidelity"]["verdict"] in ("faithful", "host-bound")
