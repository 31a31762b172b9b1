"""network_load_test --congestor-job-start/--congestor-job-stop: the canary
job beside a network_congestor job of its own (docs/traffic_classes.md
#separate-jobs). Two jobs at once on emulated nodes: the congestor job waits
for the start file, the canary job measures isolated, creates it, measures
loaded and creates the stop file; the congestor job then ends. Bad input is
refused before anything is made; a canary job that dies still creates the
stop file."""
import os
import signal
import subprocess
import time

import pytest

CANARY = ["--emulate-nodes", "1", "--tests", "rr_two_sided_lat,multiple_allreduce"]
# A far --deadline: a job that ends complete ended on its own trigger.
FAR = ["--deadline", "200"]
GUARD = 240  # hang guard of each job, never a bound the test relies on


def start_background(harness, np, program, args, out_dir):
    """One MPI job in a session of its own, its output in files."""
    out = open(out_dir / f"{program}.stdout", "wb")
    err = open(out_dir / f"{program}.stderr", "wb")
    cmd = harness.launcher(np) + [str(harness.binary(program))] + [str(a) for a in args]
    proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                            env=harness.mpi_env(), start_new_session=True)
    return proc, out, err


def end(proc, *files):
    """Clean-up: the job's process group (its launcher and the ranks it
    started) killed by id if still there, its files closed."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
    for f in files:
        f.close()


def test_canary_job_signals_the_congestor_job(harness, tmp_path):
    go, stop = tmp_path / "go", tmp_path / "stop"
    cj_dir, lt_dir = tmp_path / "congestors", tmp_path / "canaries"
    cj_dir.mkdir()
    lt_dir.mkdir()
    congestors, c_out, c_err = start_background(
        harness, 4, "network_congestor",
        ["--emulate-nodes", "1", "--congestors", "a2a", "--congestor-iterations", "16",
         "--report-interval", "0.5", "--start-file", go, "--stop-file", stop, *FAR,
         "--output-dir", cj_dir], cj_dir)
    try:
        # The congestor job is up and waiting before the canary job starts.
        t_end = time.monotonic() + GUARD
        while "waiting for the start file" not in (cj_dir / "network_congestor.stderr").read_text():
            assert congestors.poll() is None, (cj_dir / "network_congestor.stderr").read_text()
            assert time.monotonic() < t_end, "the congestor job never waited"
            time.sleep(0.05)
        assert not go.exists()
        p = harness.run(4, "network_load_test", *CANARY, *harness.QUICK,
                        "--congestor-job-start", go, "--congestor-job-stop", stop,
                        "--congestor-job-settle", "0.5", *FAR, "--output-dir", lt_dir,
                        timeout=GUARD)
        assert p.returncode == 0, p.stderr[-2000:]
        assert go.exists() and stop.exists()
        assert congestors.wait(timeout=GUARD) == 0, (cj_dir / "network_congestor.stderr").read_text()
    finally:
        end(congestors, c_out, c_err)

    # The congestor job waited for the start file, congested, and ended on the stop file.
    cdoc = harness.load_json(cj_dir / "network_congestor.json")
    run = cdoc["congestor_run"]
    assert cdoc["status"] == "complete" and run["stop_reason"] == "stop_file"
    assert run["waited_for_start_s"] > 0
    assert run["kernels"][0]["kernel"] == "a2a" and run["kernels"][0]["bytes"] > 0

    # The canary job: the published tables, the impact, and the separate job in roles.
    doc = harness.load_json(lt_dir / "network_load_test.json")
    assert doc["status"] == "complete"
    tables = {t["id"]: [r["test"] for r in t["rows"]] for t in doc["tables"]}
    assert tables == {"isolated": ["rr_two_sided_lat", "multiple_allreduce"],
                      "loaded": ["rr_two_sided_lat", "multiple_allreduce"]}
    assert [c["test"] for c in doc["impact"]] == ["rr_two_sided_lat", "multiple_allreduce"]
    roles = doc["roles"]
    assert roles["source"] == "separate_job"
    assert roles["start_file"] == str(go) and roles["stop_file"] == str(stop)
    assert roles["start_created"] and roles["stop_created"] and roles["settle_s"] == 0.5
    assert doc["placement"]["congestor_nodes"] == [] and len(doc["placement"]["canary_nodes"]) == 4
    # The loaded table's title, and again in the Key Results' (the impact).
    for title, n in (("Isolated Network Tests", 1), ("Network Tests running with Congestion Tests", 2),
                     ("Congestion Tests - Key Results", 1), ("Congestion Impact Factor", 1)):
        assert p.stdout.count(title) == n, p.stdout
    assert "congestors: a separate job" in p.stdout
    assert "congestors = " not in p.stdout and "canary fraction" not in p.stdout
    validate = harness.schema_validator()
    if validate:
        validate(doc)
        validate(cdoc)


def test_the_stop_file_is_created_when_the_canary_job_is_aborted(harness, tmp_path):
    """--deadline ends the canary job during its isolated tests: the
    congestor job was never started, and it is told to stop all the same."""
    go, stop = tmp_path / "go", tmp_path / "stop"
    out = tmp_path / "out"
    p = harness.run(4, "network_load_test", "--emulate-nodes", "1", "--tests", "rr_two_sided_lat",
                    "--time-limit", "60", "--measurements", "100000", "--deadline", "2",
                    "--congestor-job-start", go, "--congestor-job-stop", stop,
                    "--output-dir", out, timeout=GUARD)
    assert p.returncode != 0
    assert "--deadline of 2 s reached" in p.stderr, p.stderr[-2000:]
    assert stop.exists() and not go.exists()


def bad_cases(tmp):
    """(args, needle) of each refused command; what exists beforehand is made here."""
    d = tmp / "files"
    d.mkdir()
    (d / "there").write_text("")
    (d / "link").symlink_to(d / "nowhere")
    (tmp / "dirlink").symlink_to(d)
    ok_stop = ["--congestor-job-stop", d / "stop"]
    start = ["--congestor-job-start", d / "go"]
    return {
        "start-exists": ([*ok_stop, "--congestor-job-start", d / "there"],
                         f"--congestor-job-start {d / 'there'}: a file is there already"),
        "start-is-a-link": ([*ok_stop, "--congestor-job-start", d / "link"],
                            f"--congestor-job-start {d / 'link'}: a symbolic link is there already"),
        "stop-exists": ([*start, "--congestor-job-stop", d / "there"],
                        f"--congestor-job-stop {d / 'there'}: a file is there already"),
        "dir-is-a-link": ([*ok_stop, "--congestor-job-start", tmp / "dirlink" / "go"],
                          f"'{tmp / 'dirlink'}' is a symbolic link"),
        "dir-missing": ([*ok_stop, "--congestor-job-start", tmp / "none" / "go"],
                        f"directory '{tmp / 'none'}' does not exist"),
        "start-only": (start, "--congestor-job-start needs --congestor-job-stop PATH too"),
        "stop-only": (ok_stop, "--congestor-job-stop needs --congestor-job-start PATH"),
        "settle-alone": (["--congestor-job-settle", "5"],
                         "--congestor-job-settle applies with --congestor-job-start"),
        "same-file": ([*start, "--congestor-job-stop", d / "go"], "name the same file"),
        "canary-fraction": ([*start, *ok_stop, "--canary-fraction", "0.5"],
                            "--canary-fraction needs the congestors in this job"),
        "colocated": ([*start, *ok_stop, "--placement", "colocated"],
                      "--placement colocated needs the congestors in this job"),
        "sweep": ([*start, *ok_stop, "--congestor-sweep"],
                  "--congestor-sweep needs the congestors in this job"),
        "repeat": ([*start, *ok_stop, "--repeat", "2"], "--repeat needs the congestors in this job"),
        "congestor-loops": ([*start, *ok_stop, "--congestor-iterations", "8"],
                            "--congestor-iterations needs the congestors in this job"),
        "congestors": ([*start, *ok_stop, "--congestors", "a2a"],
                       "--congestors needs the congestors in this job"),
        "congestor-bytes": ([*start, *ok_stop, "--congestor-bytes", "8192"],
                            "--congestor-bytes needs the congestors in this job"),
        "verbose": ([*start, *ok_stop, "--verbose"], "--verbose needs the congestors in this job"),
    }


CASES = ["start-exists", "start-is-a-link", "stop-exists", "dir-is-a-link", "dir-missing",
         "start-only", "stop-only", "settle-alone", "same-file", "canary-fraction", "colocated", "sweep",
         "repeat", "congestor-loops", "congestors", "congestor-bytes", "verbose"]


@pytest.mark.parametrize("case", CASES)
def test_bad_input_one_line_exit_2_nothing_created(harness, tmp_path, case):
    args, needle = bad_cases(tmp_path)[case]
    before = sorted(p.name for p in (tmp_path / "files").iterdir())
    out = tmp_path / "out"
    p = harness.run(4, "network_load_test", "--emulate-nodes", "1", *args, "--output-dir", out)
    assert p.returncode == 2, p.stderr[-2000:]
    assert p.stderr.count(needle) == 1, p.stderr[-2000:]
    assert "Isolated" not in p.stdout
    assert sorted(p.name for p in (tmp_path / "files").iterdir()) == before
    assert not out.exists()


def test_one_node_is_refused(harness, tmp_path):
    out = tmp_path / "out"
    p = harness.run(1, "network_load_test", "--emulate-nodes", "1",
                    "--congestor-job-start", tmp_path / "go", "--congestor-job-stop",
                    tmp_path / "stop", "--output-dir", out)
    assert p.returncode == 2, p.stderr[-2000:]
    assert p.stderr.count("--congestor-job-start needs at least 2 nodes in this job") == 1
    assert not out.exists() and not (tmp_path / "go").exists() and not (tmp_path / "stop").exists()


def test_an_mpmd_launch_is_refused(harness, tmp_path):
    """The launch's application 1 would be congestors in this job."""
    out = tmp_path / "out"
    args = ["--emulate-nodes", "1", "--congestor-job-start", tmp_path / "go",
            "--congestor-job-stop", tmp_path / "stop", "--output-dir", out]
    program = [str(harness.binary("network_load_test"))] + [str(a) for a in args]
    ranks = "-np" if harness.MPI == "openmpi" else "-n"  # the launcher's own spelling
    cmd = harness.launcher(2) + program + [":", ranks, "8"] + program
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=GUARD, env=harness.mpi_env(),
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 2, p.stderr[-2000:]
    assert p.stderr.count("an MPMD launch gives this job congestors of its own") == 1, p.stderr
    assert not out.exists() and not (tmp_path / "go").exists()


def test_the_stop_file_is_created_when_the_canary_job_is_terminated(harness, tmp_path):
    """SIGTERM to the launcher (a cancelled job) during the isolated tests:
    the launcher passes it on, rank 0's handler creates the stop file."""
    go, stop = tmp_path / "go", tmp_path / "stop"
    job, out, err = start_background(
        harness, 4, "network_load_test",
        ["--emulate-nodes", "1", "--tests", "rr_two_sided_lat", "--time-limit", "60",
         "--measurements", "100000", *FAR, "--congestor-job-start", go,
         "--congestor-job-stop", stop, "--output-dir", tmp_path / "out"], tmp_path)
    try:
        t_end = time.monotonic() + GUARD
        while "step 1/2 isolated" not in (tmp_path / "network_load_test.stderr").read_text():
            assert job.poll() is None and time.monotonic() < t_end, \
                (tmp_path / "network_load_test.stderr").read_text()
            time.sleep(0.05)
        assert not stop.exists()
        job.send_signal(signal.SIGTERM)
        assert job.wait(timeout=GUARD) != 0
    finally:
        end(job, out, err)
    assert stop.exists() and not go.exists()
