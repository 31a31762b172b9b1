"""--fault-probe: the host behind a stalled or ended job named in its JSON
(docs/reliability.md#fault-probe; catalogue section E).

Every job has one rank per emulated node (`--emulate-nodes 1`), so a node's
name is "<host>#<rank>" and a rank stands for a host. The testbed's cases
(a link down, a host killed) are in tests/testbed/test_faults.py.

How each job ended is asserted (status, abort_reason, the probe's
"after"), never how long it took. A job ended by a signal has a far
deadline (relsupport.FAR_DEADLINE), so its probe can only come from the
signal. A job the deadline must end gives the test room before the probe:
PROBE s before a DEADLINE of 60 s, rank 2 is stopped once the first phase
is saved (a few seconds on a quiet host; the 50 s before the probe are
room for a loaded one, where a probe before the stop would find every rank
answering); the ranks have 0.75 x PROBE s to answer.
"""
import signal

import pytest

from relsupport import FAR_CAP, FAR_DEADLINE, job_guard, mpi_harness, no_temporary_files, \
    read_json_if_any
from test_interrupts import ended_by_deadline, ended_cleanly, results_kept, \
    start_and_wait_first_phase

OPENMPI = mpi_harness.MPI == "openmpi"
DEADLINE = 60
PROBE = 10
ANSWER_S = 0.75 * PROBE   # src/infra/fault_probe.c: the round of the deadline's probe
# Jobs ended by a signal: the probe's deadline round never comes first.
PROBE_FAR = ["--fault-probe", PROBE]


def node(doc, rank):
    return f"{doc['environment']['hostname']}#{rank}"


def ended_by_sigterm(jobs, tmp_path, send):
    """Start a probed job, send() once its first phase is saved; the file
    it leaves, which must say the job ended by SIGTERM."""
    job = start_and_wait_first_phase(jobs, tmp_path, extra=PROBE_FAR)
    send(job)
    ended_cleanly(job)
    doc = results_kept(job, tmp_path)
    assert doc["status"] == "aborted" and doc["abort_reason"] == "signal SIGTERM"
    assert doc["fault_probe"]["after"] == "SIGTERM", doc["fault_probe"]
    return job, doc


@pytest.mark.cap(FAR_CAP)
def test_frozen_rank_named_before_the_deadline(jobs, tmp_path):
    """A rank stops (SIGSTOP: a hung node, as good as a cut link): the others
    wait for it until the deadline; PROBE s before it, rank 0 finds that
    rank silent and the aborted JSON names its node."""
    job = start_and_wait_first_phase(jobs, tmp_path, extra=["--fault-probe", PROBE],
                                     deadline=DEADLINE)
    job.signal_rank(2, signal.SIGSTOP)
    # The probe did not come before the rank was stopped (it would have
    # found every rank answering).
    assert "--fault-probe:" not in job.stderr(), job.stderr()[-2000:]
    ended_by_deadline(job, DEADLINE)
    doc = results_kept(job, tmp_path)
    assert doc["status"] == "aborted" and doc["abort_reason"].startswith("deadline")
    assert doc["failed_hosts"] == [node(doc, 2)], job.stderr()[-2000:]
    assert doc["fault_probe"] == {"after": "deadline", "from": node(doc, 0), "ranks": 4, "answered": 3,
                                  "failed_host_count": 1, "silent_hosts": [node(doc, 2)],
                                  "silent_host_count": 1}
    assert doc["environment"]["mpi_thread_level"] == "multiple"
    err = job.stderr()
    assert err.count(f"--fault-probe: 1 of 4 ranks did not answer rank 0 (on {node(doc, 0)}) "
                     f"within {ANSWER_S:g} s; failed host: {node(doc, 2)}") == 1, err[-2000:]
    # The probe's line comes before the deadline's.
    assert err.index("--fault-probe:") < err.index(f"--deadline of {DEADLINE} s reached")


@pytest.mark.cap(FAR_CAP)
def test_stalled_job_with_every_rank_answering_names_no_host(jobs, tmp_path):
    """A job stuck in one rank's computation, not in the network, is not a
    lost host: every rank answers, nothing is named. (Stopping rank 2's main
    thread alone is not possible from outside; a job too long for its
    deadline stands in: the probe comes while the ranks still work, and
    always does: the one test lasts an hour at least.)"""
    deadline = PROBE + 5
    job = jobs(4, "network_test", "--emulate-nodes", "1", "--time-limit", "3600",
               "--measurements", "10000000", "--tests", "rr_two_sided_lat",
               "--deadline", deadline, "--fault-probe", PROBE, "--output-dir", tmp_path)
    ended_by_deadline(job, deadline)
    err = job.stderr()
    assert f"--fault-probe: all 4 ranks answered rank 0 within {ANSWER_S:g} s: no host is lost; "\
           "the job is slow, or stuck in a rank" in err, err[-2000:]
    # No phase finished (one test of an hour), so there is no file to name it in.
    assert read_json_if_any(tmp_path / "network_test.json") is None
    no_temporary_files(tmp_path)


@pytest.mark.cap(FAR_CAP)
@pytest.mark.skipif(not OPENMPI, reason="MPICH's mpiexec ends the others with SIGKILL: no handler "
                                        "runs (the file keeps \"running\", test_interrupts.py)")
def test_killed_rank_named_after_the_launchers_sigterm(jobs, tmp_path):
    """A rank killed (a host lost): mpirun sends the others SIGTERM; they
    answer rank 0 on their way out, the dead one cannot, and the JSON names
    its node."""
    job, doc = ended_by_sigterm(jobs, tmp_path, lambda j: j.signal_rank(2, signal.SIGKILL))
    assert doc["failed_hosts"] == [node(doc, 2)], job.stderr()[-2000:]
    assert doc["fault_probe"]["answered"] == 3 and doc["fault_probe"]["after"] == "SIGTERM"
    assert job.stderr().count("gpcnet: terminated (SIGTERM); results of the finished phases "
                              "are in") == 1


@pytest.mark.cap(FAR_CAP)
def test_sigterm_to_the_launcher_names_no_host(jobs, tmp_path):
    """A batch system's SIGTERM to the launcher: every rank gets it and
    answers; nothing is named, and nothing is saved after the signal."""
    job, doc = ended_by_sigterm(jobs, tmp_path, lambda j: j.signal_launcher(signal.SIGTERM))
    assert doc["failed_hosts"] == [] and doc["fault_probe"]["answered"] == 4, job.stderr()[-2000:]
    assert "--fault-probe: all 4 ranks answered rank 0 within 0.4 s: no host is lost\n" in job.stderr()


@pytest.mark.cap(FAR_CAP)
def test_sigterm_to_rank_0_alone_names_no_host(jobs, tmp_path):
    """Only rank 0 got the signal: the others, never asked, stay silent, and
    that is no reason to name them."""
    job, doc = ended_by_sigterm(jobs, tmp_path, lambda j: j.signal_rank(0, signal.SIGTERM))
    assert doc["failed_hosts"] == [] and doc["fault_probe"]["answered"] == 1
    assert "no rank on another host answered rank 0 within 0.4 s of its SIGTERM: no host named" \
        in job.stderr()


@pytest.mark.cap(FAR_CAP)
@pytest.mark.parametrize("program", ["network_test", "network_load_test"])
def test_probe_not_reached_changes_nothing_but_the_thread_level(jobs, tmp_path, program):
    """A run that ends before the probe's time: complete, no probe fields;
    the environment says MPI ran with threads, the preamble too."""
    extra = ["--congestor-measurements", "2", "--congestor-iterations", "4"] \
        if program == "network_load_test" else []
    job = jobs(4 if program == "network_test" else 10, program, "--emulate-nodes", "1",
               "--time-limit", "0.05", "--measurements", "2", "--rings", "2", "--iterations", "5",
               "--warmup", "1", *extra, "--deadline", FAR_DEADLINE, "--fault-probe", "5",
               "--output-dir", tmp_path)
    assert job.wait(timeout=job_guard()) == 0, job.stderr()[-2000:]
    doc = read_json_if_any(tmp_path / f"{program}.json")
    assert doc["status"] == "complete"
    assert "failed_hosts" not in doc and "fault_probe" not in doc
    assert doc["environment"]["mpi_thread_level"] == "multiple"
    # Not the reference's MPI set-up: the run is not an official one.
    assert "fault_probe" in doc["config"]["non_default"]
    assert job.stdout().count("  MPI with threads (MPI_THREAD_MULTIPLE) for --fault-probe\n") == 1
    assert job.leftover() == []


@pytest.mark.cap(FAR_CAP)
def test_without_the_probe_mpi_has_no_threads(jobs, tmp_path):
    job = jobs(2, "network_test", "--emulate-nodes", "1", "--time-limit", "0.05", "--measurements", "2", "--rings", "2",
               "--iterations", "5", "--warmup", "1", "--tests", "rr_two_sided_lat",
               "--output-dir", tmp_path)
    assert job.wait(timeout=job_guard()) == 0, job.stderr()[-2000:]
    doc = read_json_if_any(tmp_path / "network_test.json")
    assert doc["environment"]["mpi_thread_level"] == "single"
    assert "MPI_THREAD_MULTIPLE" not in job.stdout()


WINDOWS_REFUSED = ("--fault-probe: with MPI_THREAD_MULTIPLE this MPI cannot make the one-sided "
                   "windows that {} (MPI_Win_allocate fails; Open MPI 4.1 over TCP does); leave "
                   "out --fault-probe, or these with --tests/--congestors")


@pytest.mark.cap(FAR_CAP)
@pytest.mark.skipif(not OPENMPI, reason="Open MPI's osc/pt2pt is what refuses threads")
@pytest.mark.parametrize("program,args,kernels", [
    ("network_test", [], "rr_get_lat, rr_put_bw use"),
    ("network_load_test", ["--congestors", "a2a,rma_bcast"], "rma_bcast uses"),
], ids=["network_test", "load-test-congestor"])
def test_windows_that_refuse_threads_are_found_before_measuring(jobs, tmp_path, program, args,
                                                                  kernels):
    """Open MPI 4.1 over TCP cannot make one-sided windows with
    MPI_THREAD_MULTIPLE (its osc/pt2pt refuses; here forced on one host,
    where osc/sm would serve): a run that needs them is refused before
    anything is measured, with one message, not aborted mid-set-up."""
    job = jobs(10, program, "--emulate-nodes", "1", *args, "--deadline", FAR_DEADLINE,
               "--fault-probe", 3, "--output-dir", tmp_path, env={"OMPI_MCA_osc": "pt2pt"})
    assert job.wait(timeout=job_guard()) == 2, job.stderr()[-2000:]
    assert job.stderr().count(WINDOWS_REFUSED.format(kernels)) == 1, job.stderr()[-2000:]
    assert "Network" not in job.stdout()  # no preamble, nothing measured
    assert list(tmp_path.glob("*.json")) == []


@pytest.mark.cap(FAR_CAP)
@pytest.mark.skipif(not OPENMPI, reason="Open MPI's osc/pt2pt is what refuses threads")
def test_runs_without_one_sided_kernels_need_no_windows(jobs, tmp_path):
    job = jobs(4, "network_test", "--emulate-nodes", "1", "--tests", "rr_two_sided_lat",
               "--time-limit", "0.05", "--measurements", "2", "--rings", "2", "--iterations", "5",
               "--deadline", FAR_DEADLINE, "--fault-probe", 3, "--output-dir", tmp_path,
               env={"OMPI_MCA_osc": "pt2pt"})
    assert job.wait(timeout=job_guard()) == 0, job.stderr()[-2000:]
    assert read_json_if_any(tmp_path / "network_test.json")["status"] == "complete"
