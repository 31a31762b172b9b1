"""A named pipe, a device or a directory at a name the programs write is
never opened, never waited on, and what it blocks is said (catalogue
section D, issue 39).

The programs run as root in directories other users may write to. A pipe
at the results name would hand our results to whoever reads it, or, with
no reader, keep the opener in open() for ever; in a signal handler (the
other signals blocked) that is a job that ends only by SIGKILL. A
directory at the watchdog's `<json>.abort` cannot be removed to make the
abort mark there.
"""
import json
import os
import signal
import stat

import pytest

from relsupport import END_BOUND, FAST_FAIL, SLOW, TINY, mpi_harness, no_temporary_files

QUICK_NET = ["--emulate-nodes", "1", "--tests", "rr_two_sided_lat", *TINY]
OPENMPI = mpi_harness.MPI == "openmpi"
# Only a backstop, should rank 0 hang in its handler: the broken version
# then ends by the deadline (exit 124 from the other ranks), not by the
# signal. Far longer than the run's first phase takes.
DEADLINE_S = 60


def plant(kind, path):
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "char-device":
        try:
            os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # what /dev/null is
        except PermissionError:
            pytest.skip("cannot make a device node here (not root, or not allowed)")
    elif kind == "link-to-fifo":
        target = path.parent.parent / "pipe"
        os.mkfifo(target)
        os.symlink(target, path)
    else:
        raise AssertionError(kind)


@pytest.mark.parametrize("force", [False, True], ids=["plain", "force"])
@pytest.mark.parametrize("kind,says", [("fifo", "a named pipe"), ("char-device", "a character device"),
                                       ("link-to-fifo", "a named pipe")])
def test_special_file_at_the_results_name_is_refused_before_measuring(harness, tmp_path, kind,
                                                                       says, force):
    out = tmp_path / "out"
    out.mkdir()
    results = out / "network_test.json"
    plant(kind, results)
    p = harness.run(2, "network_test", *QUICK_NET, "--output-dir", out,
                    *(["--force"] if force else []), timeout=30, env=FAST_FAIL)
    assert p.returncode == 1, p.stderr[-2000:]
    assert (f"results file '{results}' is not a regular file (it is {says}); refusing to write "
            "there") in p.stderr, p.stderr[-2000:]
    assert p.stdout == "", "something was measured"
    assert os.path.lexists(results) and not stat.S_ISREG(os.lstat(results).st_mode)
    no_temporary_files(out)


def start_and_stop_rank0_after_a_phase(jobs, tmp_path, *extra):
    """A job whose first phase is on disk, rank 0 stopped (so that no write
    of its own replaces what the test puts at a name)."""
    job = jobs(4, "network_test", "--emulate-nodes", "1", *SLOW, *extra, "--output-dir", tmp_path)
    job.wait_for_ranks()
    job.wait_for_phases(tmp_path / "network_test.json", 1)
    job.signal_rank(0, signal.SIGSTOP)
    return job


def terminate_rank0(job):
    job.signal_rank(0, signal.SIGTERM)
    job.signal_rank(0, signal.SIGCONT)


@pytest.mark.cap(DEADLINE_S + END_BOUND + 60)
def test_pipe_swapped_in_at_the_results_name_then_sigterm(jobs, tmp_path):
    """Rank 0's handler neither opens the pipe nor waits on it: the job ends
    by the SIGTERM, says the file was not marked, and leaves the pipe."""
    results = tmp_path / "network_test.json"
    job = start_and_stop_rank0_after_a_phase(jobs, tmp_path, "--deadline", DEADLINE_S)
    results.unlink()
    os.mkfifo(results)
    terminate_rank0(job)
    rc = job.wait(timeout=DEADLINE_S + END_BOUND + 30)  # a hang guard, not a measurement
    assert job.leftover() == []
    err = job.stderr()
    assert "--deadline" not in err, "the job ended by its deadline, not by the signal: " + err[-2000:]
    assert f"gpcnet: terminated (SIGTERM); {results} is not a regular file any more" in err, \
        err[-2000:]
    if OPENMPI:  # MPICH's status is unreliable (test_interrupts.ended_cleanly)
        assert rc == 128 + signal.SIGTERM, (rc, err[-2000:])
    assert stat.S_ISFIFO(os.lstat(results).st_mode), "the pipe was replaced"


@pytest.mark.cap(60)
def test_directory_at_the_abort_name_still_gets_the_reason(jobs, tmp_path):
    """The watchdog cannot remove a directory at <json>.abort: it writes the
    mark under another fresh name, and says so."""
    (tmp_path / "network_test.json.abort").mkdir()
    job = start_and_stop_rank0_after_a_phase(jobs, tmp_path)
    terminate_rank0(job)
    job.wait(timeout=END_BOUND + 30)
    assert job.leftover() == []
    doc = json.loads((tmp_path / "network_test.json").read_bytes())
    assert doc["status"] == "aborted" and doc["abort_reason"] == "signal SIGTERM", job.stderr()[-2000:]
    assert "(.abort) is held by something that is not ours (a directory?); another name was used" \
        in job.stderr()
    assert (tmp_path / "network_test.json.abort").is_dir()
    assert not [p.name for p in tmp_path.iterdir() if ".abort-" in p.name], "a temporary was left"


@pytest.mark.cap(60)
def test_every_abort_name_taken_is_said_on_stderr(jobs, tmp_path):
    """With every name the mark could use held by a directory, the file keeps
    the first aid's "aborted" and stderr says why the reason is missing."""
    (tmp_path / "network_test.json.abort").mkdir()
    job = start_and_stop_rank0_after_a_phase(jobs, tmp_path)
    pid = job.ranks[0]
    for n in range(1, 5):
        (tmp_path / f"network_test.json.abort-{pid}-{n}").mkdir()
    terminate_rank0(job)
    job.wait(timeout=END_BOUND + 30)
    assert job.leftover() == []
    doc = json.loads((tmp_path / "network_test.json").read_bytes())
    assert doc["status"] == "aborted" and doc["abort_reason"] is None
    assert (f"gpcnet: {tmp_path / 'network_test.json'}: cannot write the abort reason: its "
            "temporary name (.abort) is held by something that is not ours (a directory?) and "
            "no other name was free") in job.stderr(), job.stderr()[-2000:]
