"""network_congestor, the standalone congestor (catalogue section I): it
stops on each trigger (--duration, the stop file, SIGINT/SIGTERM) with a
summary and a complete JSON, waits for a start file, runs beside another
MPI job, and refuses bad input on every rank with exit 2.

Each run has a far --deadline (relsupport.FAR_DEADLINE): a run that ends
complete with the trigger's stop_reason stopped on that trigger, not by
running on until its deadline, which says it stopped promptly without the
test timing it."""
import os
import signal
import time

import pytest

from relsupport import FAR_CAP, FAR_DEADLINE, FAST_FAIL, job_guard, mpi_harness, \
    read_json_if_any

OPENMPI = mpi_harness.MPI == "openmpi"
# Small rounds so a stop is agreed quickly on 2 oversubscribed cores.
QUICK = ["--emulate-nodes", "1", "--congestor-iterations", "16", "--report-interval", "0.5"]


def start(jobs, tmp_path, *args, np=8, name=None):
    job = jobs(np, "network_congestor", *QUICK, "--deadline", FAR_DEADLINE,
               "--output-dir", tmp_path, *args, name=name)
    job.wait_for_ranks()
    return job


def wait_for_first_report(job, tmp_path):
    job.wait_for(lambda: "MiB/s/rank" in job.stdout(), what="a first bandwidth report")


def check_result(job, tmp_path, reason):
    doc = read_json_if_any(tmp_path / "network_congestor.json")
    assert doc is not None and doc["status"] == "complete", job.stderr()[-2000:]
    run = doc["congestor_run"]
    assert run["stop_reason"] == reason or (reason == "signal" and run["stop_reason"].startswith("signal "))
    assert [k["kernel"] for k in run["kernels"]] == ["a2a", "p2p_incast", "rma_incast", "rma_bcast"]
    for k in run["kernels"]:
        assert k["nodes"] == 2 and k["bytes"] > 0 and k["mib_s_per_rank"] > 0, k
    out = job.stdout()
    assert out.count(f"Stopped after") == 1 and "Congestor Summary" in out
    assert "--deadline of" not in job.stderr()
    return doc


@pytest.mark.cap(FAR_CAP)
def test_stops_after_duration(jobs, tmp_path):
    job = start(jobs, tmp_path, "--duration", "2")
    assert job.wait(timeout=job_guard()) == 0, job.stderr()[-2000:]
    doc = check_result(job, tmp_path, "duration")
    # Not before its duration (a slow host only adds to it).
    assert doc["congestor_run"]["congested_s"] >= 2.0
    reports = doc["congestor_run"]["reports"]
    assert reports and all(r["mib_s_per_rank"] is None or r["mib_s_per_rank"] >= 0 for r in reports)


@pytest.mark.cap(FAR_CAP)
def test_stops_when_the_stop_file_appears(jobs, tmp_path):
    stop = tmp_path / "stop-now"
    job = start(jobs, tmp_path, "--stop-file", stop)
    wait_for_first_report(job, tmp_path)
    stop.touch()
    assert job.wait(timeout=job_guard()) == 0, job.stderr()[-2000:]
    check_result(job, tmp_path, "stop_file")


@pytest.mark.cap(FAR_CAP)
def test_sigterm_to_every_rank_stops_cleanly(jobs, tmp_path):
    """As a batch system (scancel, srun) does: SIGTERM to the tasks."""
    job = start(jobs, tmp_path)
    wait_for_first_report(job, tmp_path)
    # All at once, as scancel does. The first signal stops every rank (the
    # stop is agreed): on a busy host a rank may be gone before its turn,
    # which is no failure (it used to be: ProcessLookupError).
    for pid in job.remember().values():
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    job.wait(timeout=job_guard())
    check_result(job, tmp_path, "signal SIGTERM")
    assert job.leftover() == []


@pytest.mark.skipif(not OPENMPI, reason="Open MPI's mpirun forwards SIGINT to the ranks")
@pytest.mark.cap(FAR_CAP)
def test_sigint_to_the_launcher_stops_cleanly(jobs, tmp_path):
    job = start(jobs, tmp_path)
    wait_for_first_report(job, tmp_path)
    job.signal_launcher(signal.SIGINT)
    job.wait(timeout=job_guard())
    # mpirun passes it on to the ranks (as SIGTERM) and gives them about a
    # second before SIGKILL: the summary and the JSON must be out by then.
    check_result(job, tmp_path, "signal")


@pytest.mark.cap(FAR_CAP)
def test_waits_for_the_start_file(jobs, tmp_path):
    go = tmp_path / "go"
    job = start(jobs, tmp_path, "--start-file", go, "--duration", "1")
    job.wait_for(lambda: "waiting for the start file" in job.stderr(), what="the wait")
    time.sleep(1.0)
    assert "MiB/s/rank" not in job.stdout() and job.proc.poll() is None
    go.touch()
    assert job.wait(timeout=job_guard()) == 0, job.stderr()[-2000:]
    doc = check_result(job, tmp_path, "duration")
    assert doc["congestor_run"]["waited_for_start_s"] >= 0.9


@pytest.mark.cap(FAR_CAP)
def test_beside_another_mpi_job(jobs, harness, tmp_path):
    """The use it is for: an application (here network_test) runs while the
    congestor runs in its own job; stop it when the application is done."""
    stop = tmp_path / "app-done"
    job = start(jobs, tmp_path, "--stop-file", stop, np=8)
    wait_for_first_report(job, tmp_path)
    app_dir = tmp_path / "app"
    app_dir.mkdir()
    app = harness.run(4, "network_test", "--emulate-nodes", "1", "--tests",
                      "rr_two_sided_lat,multiple_allreduce", *harness.QUICK,
                      "--output-dir", app_dir)
    assert app.returncode == 0, app.stderr[-2000:]
    assert job.proc.poll() is None  # still congesting
    stop.touch()
    assert job.wait(timeout=job_guard()) == 0
    check_result(job, tmp_path, "stop_file")


@pytest.mark.cap(FAR_CAP)
def test_stop_file_ends_a_long_pause(jobs, tmp_path):
    """The stop file is looked at during a round's pauses, not only between
    rounds: an OFF period of 1000 s (no --duration) used to hold the round,
    and the stop, for all of it. Rank 0 may be held in an iteration by a
    peer in that pause (one rank starts it at the very end of ON, the other
    finds OFF): the peer looks at the file itself after a second."""
    stop = tmp_path / "stop"
    job = start(jobs, tmp_path, "--congestors", "a2a,p2p_incast", "--burst", "100ms,1000s",
                "--stop-file", stop)
    # the settings are printed just before the congestion starts; a second
    # later its rounds are in the OFF period (the stop works at any time)
    job.wait_for(lambda: "burst = 0.1 s on, 1000 s off" in job.stdout(), what="the settings")
    time.sleep(1.0)
    stop.touch()
    assert job.wait(timeout=job_guard()) == 0, job.stderr()[-2000:]
    run = read_json_if_any(tmp_path / "network_congestor.json")["congestor_run"]
    assert run["stop_reason"] == "stop_file"


@pytest.mark.parametrize("args,needle", [
    (["--duration", "0"], "--duration: expected a number > 0"),
    (["--stop-file", "/nonexistent-gpcnet-dir/stop"],
     "--stop-file /nonexistent-gpcnet-dir/stop: directory '/nonexistent-gpcnet-dir' does not exist"),
    (["--start-file", "/nonexistent-gpcnet-dir/go"], "directory '/nonexistent-gpcnet-dir' does not exist"),
    (["--congestors", "a2a,nope"], "unknown name 'nope'"),
    (["--congestor-bytes", "0"], "--congestor-bytes: expected a multiple of 8"),
    (["--report-interval", "-1"], "--report-interval: expected a number > 0"),
    (["--tests", "rr_two_sided_lat"], "--tests applies to network_test and network_load_test only"),
], ids=["duration-0", "stop-file-missing-dir", "start-file-missing-dir", "unknown-kernel",
        "bytes-0", "report-interval", "load-test-option"])
def test_bad_input_exit_2_on_every_rank(harness, tmp_path, args, needle):
    p = harness.run(8, "network_congestor", "--emulate-nodes", "1", *args,
                    "--output-dir", tmp_path, env=FAST_FAIL)
    assert p.returncode == 2, p.stderr[-1000:]
    assert p.stderr.count(needle) == 1, p.stderr[-1000:]
    assert not (tmp_path / "network_congestor.json").exists()


def test_too_few_nodes(harness, tmp_path):
    p = harness.run(7, "network_congestor", "--emulate-nodes", "1", "--output-dir", tmp_path,
                    env=FAST_FAIL)
    assert p.returncode == 1
    assert p.stderr.count("network_congestor: needs at least 8 nodes (2 per congestor") == 1
    assert "ERROR: this application must be run on at least 8 nodes" in p.stdout


def write_flows(path, lines):
    path.write_text("# made by the test\n" + "".join(f"{a} {b}\n" for a, b in lines))
    return path


@pytest.mark.cap(FAR_CAP)
def test_flows_incast_and_pair(jobs, harness, tmp_path):
    """--flows: traffic along a computed list (the bullies of a topology):
    three nodes into one, and a pair both ways; the others idle."""
    import socket
    host = socket.gethostname()
    n = lambda i: f"{host}#{i}"
    flows = write_flows(tmp_path / "flows.txt", [(n(1), n(0)), (n(2), n(0)), (n(3), n(0)),
                                                 (n(4), n(5)), (n(5), n(4))])
    job = start(jobs, tmp_path, "--flows", flows, "--duration", "1.5",
                "--congestor-bytes", "65536")
    assert job.wait(timeout=job_guard()) == 0, job.stderr()[-2000:]
    doc = read_json_if_any(tmp_path / "network_congestor.json")
    run = doc["congestor_run"]
    assert run["stop_reason"] == "duration" and run["flows"] == 5
    # node 0 receives 3 flows; --congestor-iterations 16 (QUICK) is kept
    assert run["busiest_node_flows"] == 3 and run["round_iterations"] == 16
    (k,) = run["kernels"]
    assert k["kernel"] == "flows" and k["name"] == "Flows (65536 B)"
    assert k["nodes"] == 6 and k["ranks"] == 6 and k["reporting_ranks"] == 5
    assert k["bytes"] > 0 and k["bytes"] % 65536 == 0
    assert "5 flows from" in job.stdout()


@pytest.mark.parametrize("content,needle", [
    ("{h}#1 nosuch\n", "line 1: unknown destination node"),
    ("# nothing\n", "no flow in it"),
    ("{h}#1\n", "line 1: expected two node names, SRC DST"),
    ("{h}#1 {h}#1\n", "line 1: a node cannot send to itself"),
    # A repeated flow: the line that repeats and the line it repeats (the
    # reverse direction, line 2, is another flow).
    ("{h}#1 {h}#0\n{h}#0 {h}#1\n# again\n{h}#2 {h}#0\n  {h}#1   {h}#0\n{h}#2 {h}#0\n",
     "line 5: the flow {h}#1 {h}#0 repeats line 1; list each flow once"),
], ids=["unknown-node", "empty", "one-name", "self", "repeated-flow"])
def test_bad_flows_exit_2(harness, tmp_path, content, needle):
    import socket
    flows = tmp_path / "flows.txt"
    flows.write_text(content.format(h=socket.gethostname()))
    p = harness.run(8, "network_congestor", "--emulate-nodes", "1", "--flows", flows,
                    "--output-dir", tmp_path, env=FAST_FAIL)
    assert p.returncode == 2, p.stderr[-1000:]
    assert p.stderr.count(needle.format(h=socket.gethostname())) == 1, p.stderr[-1000:]


def test_flows_named_pipe_is_refused_at_once(harness, tmp_path):
    """A named pipe nobody writes would block the reader for ever (the
    congestor once ran past --duration on one): refused by what it is,
    without waiting for a writer."""
    fifo = tmp_path / "flows.fifo"
    os.mkfifo(fifo)
    p = harness.run(8, "network_congestor", "--emulate-nodes", "1", "--flows", fifo,
                    "--duration", "1", "--output-dir", tmp_path, env=FAST_FAIL, timeout=120)
    assert p.returncode == 2, p.stderr[-1000:]
    assert p.stderr.count(f"--flows {fifo}: is a named pipe, not a regular file") == 1, p.stderr[-1000:]
    assert not (tmp_path / "network_congestor.json").exists()


def test_flows_and_congestors_exclude_each_other(harness, tmp_path):
    p = harness.run(8, "network_congestor", "--emulate-nodes", "1", "--flows", tmp_path / "f",
                    "--congestors", "a2a", "--output-dir", tmp_path, env=FAST_FAIL)
    assert p.returncode == 2 and p.stderr.count("--flows and --congestors exclude each other") == 1
