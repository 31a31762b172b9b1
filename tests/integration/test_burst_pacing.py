"""--burst-intensity on collective congestors (docs/experiments.md
#pacing): the pacing windows are on the congestors' common clock, so the
ranks of a collective are active and idle together and no rank's gaps are
lengthened by waiting for peers in theirs. The old pacing (each rank's own
busy time, peer waiting included) crawled here: a load test with
--burst-intensity 0.25 alone was still running after minutes. --deadline
turns a relapse into exit 124 and the harness timeout into a failure,
never a hang. No timing is asserted: only that the run ends complete,
which a run that reached its deadline is not (exit 124, "aborted").

The work is bounded, not the time: 2 congestor measurements of 8 paced
iterations per pass, every one of them paced. One DL Allreduce (6.25 MiB)
of 8 ranks on 2 busy cores takes about 0.1 s, a pacing window at 0.25
four times that: with 4 x 64 iterations the dl_allreduce case took 55 s
here under Open MPI with other work beside it, and the ASan build reached
its 60 s deadline. Now it takes 5-10 s (a2a 1-5 s) here with other work
beside it; the deadline, a hang guard, is 30 times that, and the harness
timeout is above it.
"""
import pytest

import mpi_harness

SHORT_PASSES = ["--congestor-measurements", "2", "--congestor-iterations", "8"]
DEADLINE = 300


@pytest.mark.parametrize("congestor", ["a2a", "dl_allreduce"])
def test_paced_collective_without_pauses_finishes(harness, tmp_path, congestor):
    p = harness.run(10, "network_load_test", "--emulate-nodes", "1", "--seed", "7",
                    "--output-dir", tmp_path, "--quiet", "--tests", "rr_two_sided_lat",
                    "--time-limit", "0.5", *SHORT_PASSES, "--measurements", "3",
                    *mpi_harness.QUICK_LOOPS, "--congestors", congestor,
                    "--burst-intensity", "0.25", "--deadline", DEADLINE, timeout=DEADLINE + 60)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    doc = harness.load_json(tmp_path / "network_load_test.json")
    assert doc["status"] == "complete", doc.get("abort_reason")
    assert doc["config"]["burst"]["intensity"] == 0.25
    assert "   burst = none, intensity 0.25 (paced, no pauses)" in p.stdout


def test_paced_collective_congestor_moves_bytes(harness, tmp_path):
    """network_congestor, Allreduce and Allgather at 0.25 with bursts: both
    kernels move bytes and the run stops on its --duration."""
    p = harness.run(8, "network_congestor", "--emulate-nodes", "1", "--seed", "5",
                    "--duration", "1", "--congestors", "dl_allreduce,allgather",
                    "--congestor-iterations", "8", "--burst", "100ms,50ms",
                    "--burst-intensity", "0.25", "--deadline", DEADLINE, "--output-dir", tmp_path,
                    "--quiet", timeout=DEADLINE + 60)
    assert p.returncode == 0, p.stderr[-2000:]
    run = harness.load_json(tmp_path / "network_congestor.json")["congestor_run"]
    assert run["stop_reason"] == "duration"
    assert all(k["bytes"] > 0 for k in run["kernels"])
