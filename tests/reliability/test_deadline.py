"""--deadline: the whole job ends with a message (catalogue section E).

What ends each job is asserted, never how long it took: its exit status
(124), the deadline's message and the file's abort_reason. Every test of
a job lasts its time limit at least (the measurements never run out:
relsupport.SLOW), so a job given a deadline before its natural end always
reaches the deadline, however slow the host; a slow host only delays the
phases, so each deadline leaves several seconds for the phases the test
expects before it.
"""
import pytest

from relsupport import FAR_CAP, FAR_DEADLINE, SLOW, TINY, TINY_CONGESTORS, \
    check_finished_phases_kept, job_guard, mpi_harness, no_temporary_files, read_json_if_any

OPENMPI = mpi_harness.MPI == "openmpi"


def run_to_deadline(jobs, tmp_path, program, np, deadline, *args):
    job = jobs(np, program, "--emulate-nodes", "1", *args, "--deadline", str(deadline),
               "--output-dir", tmp_path)
    rc = job.wait(timeout=job_guard(deadline))
    assert job.leftover() == []
    # Open MPI's mpirun reports the first failing rank: rank 0's 124. MPICH's
    # mpiexec reports 9 once it has killed the other ranks (or 124).
    assert rc == 124 if OPENMPI else rc in (124, 9), job.stderr()[-2000:]
    return job


def test_deadline_mid_run(jobs, tmp_path):
    # 8 tests of 5 s at least: the deadline at 20 s comes before the end
    # (40 s at the earliest) and after the first phase, leaving 15 s for
    # the set-up and the file's write (0.2 s on a quiet host; a loaded one
    # needs the room, and the whole suite runs this stage beside others).
    job = run_to_deadline(jobs, tmp_path, "network_test", 4, 20, *SLOW, "--time-limit", "5")
    assert job.stderr().count("--deadline of 20 s reached: aborting the job; results of "
                              "the finished phases are in") == 1
    doc = read_json_if_any(tmp_path / "network_test.json")
    check_finished_phases_kept(doc, job.stdout(), "network_test")
    assert len(doc["phases"]) < 8
    assert doc["status"] == "aborted"
    assert doc["abort_reason"] == "deadline: --deadline 20 s reached"
    # The step that was running, not one already saved.
    assert doc["aborted_in"].startswith("isolated: "), doc["aborted_in"]
    no_temporary_files(tmp_path)


def test_deadline_before_the_first_phase(jobs, tmp_path):
    # The first test lasts 60 s at least: the deadline at 0.5 s comes first.
    job = run_to_deadline(jobs, tmp_path, "network_test", 4, 0.5, *SLOW, "--time-limit", "60")
    assert job.stderr().count("--deadline of 0.5 s reached: aborting the job; no phase had "
                              "finished, so no results were written") == 1
    assert read_json_if_any(tmp_path / "network_test.json") is None
    no_temporary_files(tmp_path)


def test_deadline_during_congestion(jobs, tmp_path):
    # The 3 isolated tests last 5 s each at least, the 3 loaded ones as
    # much again: the run cannot end before 30 s, so the deadline at 25 s
    # ends it, after its first phase, leaving 20 s for the set-up of 10
    # ranks and the file's write (under a second on a quiet host, MPICH's
    # polling included; with 6.5 s MPICH beside another job missed it).
    job = run_to_deadline(jobs, tmp_path, "network_load_test", 10, 25, *SLOW,
                          "--time-limit", "5", *TINY_CONGESTORS, "--seed", "3")
    doc = read_json_if_any(tmp_path / "network_load_test.json")
    check_finished_phases_kept(doc, job.stdout(), "network_load_test")
    assert doc["phases"][0]["name"] == "isolated:rr_two_sided_lat" and doc["status"] == "aborted"


@pytest.mark.cap(FAR_CAP)
def test_deadline_not_reached(harness, tmp_path):
    """A deadline the run does not reach changes nothing: the run ends by
    its work (2 measurements per test), complete, exit 0. (A deadline that
    kept the job alive until it came would end it with 124.)"""
    p = harness.run(4, "network_test", "--emulate-nodes", "1", *TINY, "--deadline", FAR_DEADLINE,
                    "--output-dir", tmp_path, timeout=job_guard(FAR_DEADLINE))
    assert p.returncode == 0, p.stderr[-2000:]
    doc = harness.load_json(tmp_path / "network_test.json")
    assert doc["status"] == "complete" and doc["abort_reason"] is None
    assert "--deadline of" not in p.stderr
