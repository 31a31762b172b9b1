"""--deadline: the whole job ends with a message (catalogue section E)."""
import time

import pytest

from relsupport import END_BOUND, SLOW, TINY, TINY_CONGESTORS, check_finished_phases_kept, \
    mpi_harness, no_temporary_files, read_json_if_any

OPENMPI = mpi_harness.MPI == "openmpi"


def run_to_deadline(jobs, tmp_path, program, np, deadline, *args):
    job = jobs(np, program, "--emulate-nodes", "1", *args, "--deadline", str(deadline),
               "--output-dir", tmp_path)
    rc = job.wait(timeout=deadline + END_BOUND + 10)
    took = job.ended - job.started
    assert took <= deadline + END_BOUND, f"{took:.1f} s for a deadline of {deadline} s"
    assert job.leftover() == []
    # Open MPI's mpirun reports the first failing rank: rank 0's 124. MPICH's
    # mpiexec reports 9 once it has killed the other ranks (or 124).
    assert rc == 124 if OPENMPI else rc in (124, 9), job.stderr()[-2000:]
    return job


@pytest.mark.cap(40)
def test_deadline_mid_run(jobs, tmp_path):
    job = run_to_deadline(jobs, tmp_path, "network_test", 4, 2.5, *SLOW, "--time-limit", "0.5")
    assert job.stderr().count("--deadline of 2.5 s reached: aborting the job; results of "
                              "the finished phases are in") == 1
    doc = read_json_if_any(tmp_path / "network_test.json")
    check_finished_phases_kept(doc, job.stdout(), "network_test")
    assert len(doc["phases"]) < 8
    assert doc["status"] == "aborted"
    assert doc["abort_reason"] == "deadline: --deadline 2.5 s reached"
    # The step that was running, not one already saved.
    assert doc["aborted_in"].startswith("isolated: "), doc["aborted_in"]
    no_temporary_files(tmp_path)


@pytest.mark.cap(40)
def test_deadline_before_the_first_phase(jobs, tmp_path):
    job = run_to_deadline(jobs, tmp_path, "network_test", 4, 0.5, *SLOW, "--time-limit", "5",
                          "--measurements", "10000000")
    assert job.stderr().count("--deadline of 0.5 s reached: aborting the job; no phase had "
                              "finished, so no results were written") == 1
    assert read_json_if_any(tmp_path / "network_test.json") is None
    no_temporary_files(tmp_path)


@pytest.mark.cap(60)
def test_deadline_during_congestion(jobs, tmp_path):
    # Lands in the loaded phases: the isolated phase takes about 3 time
    # limits, the loaded phases at least 3 more. 10 ranks on 2 cores run
    # slower under MPICH (busy polling) than under Open MPI (yielding), so
    # MPICH gets longer tests and a later deadline, well before the end.
    limit, deadline = ("0.6", 3.0) if OPENMPI else ("1.5", 8.0)
    job = run_to_deadline(jobs, tmp_path, "network_load_test", 10, deadline, *SLOW,
                          "--time-limit", limit, "--measurements", "10000000",
                          *TINY_CONGESTORS, "--seed", "3")
    doc = read_json_if_any(tmp_path / "network_load_test.json")
    check_finished_phases_kept(doc, job.stdout(), "network_load_test")
    assert doc["phases"][0]["name"] == "isolated:rr_two_sided_lat" and doc["status"] == "aborted"


@pytest.mark.cap(40)
def test_deadline_not_reached(harness, tmp_path):
    t = time.monotonic()
    p = harness.run(4, "network_test", "--emulate-nodes", "1", *TINY, "--deadline", "60",
                    "--output-dir", tmp_path, timeout=30)
    assert p.returncode == 0 and time.monotonic() - t < 30
    doc = harness.load_json(tmp_path / "network_test.json")
    assert doc["status"] == "complete" and doc["abort_reason"] is None
    assert "--deadline of" not in p.stderr
