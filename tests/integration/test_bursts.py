"""Bursty congestors and --timeline on emulated nodes
(docs/experiments.md#bursty-congestion, docs/results-json.md#timeline).

Every check here is an invariant (counts, bounds, agreement), never a
timing: whether the canaries' latency is higher during bursts than
between them depends on how the host's cores are shared (a CPU hog beside
the suite once made it lower, 558 us during against 589 us between), so
that contrast is measured by bench/burst_bench.py, not asserted here."""
import datetime
import socket

import pytest

import mpi_harness

TIMELINE_BINS = 2048  # src/canary/timeline.h
# Under MPICH one Alltoall of 8 polling ranks on 2 cores can take 100 ms, and
# a congestor pass (checked against the time limit between measurements)
# of 64 iterations per measurement lasted seconds: a sweep took 120 s.
SHORT_PASSES = ["--congestor-measurements", "4", "--congestor-iterations",
                "64" if mpi_harness.MPI == "openmpi" else "8"]


def load(harness, out, *extra, np=10, timeout=180):
    p = harness.run(np, "network_load_test", "--emulate-nodes", "1", "--seed", "7",
                    "--output-dir", out, "--quiet", *extra, timeout=timeout)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    return p, harness.load_json(out / "network_load_test.json")


@pytest.fixture(scope="module")
def bursty(harness, tmp_path_factory):
    out = tmp_path_factory.mktemp("bursty")
    return load(harness, out, "--tests", "rr_two_sided_lat", "--time-limit", "2.5",
                *SHORT_PASSES, *mpi_harness.QUICK_LOOPS, "--burst", "200ms,300ms", "--burst-intensity", "1",
                "--timeline")


def test_values_are_split_between_the_burst_phases(bursty):
    _, doc = bursty
    (rec,) = doc["timeline"]
    assert rec["table"] == "loaded" and rec["test"] == "rr_two_sided_lat"
    during, between = rec["during_bursts"], rec["between_bursts"]
    # 2.5 s of 200 ms ON and 300 ms OFF: both phases hold measurements,
    # and every value is in one phase.
    assert during["values"] > 0 and between["values"] > 0
    assert all(phase["avg"] > 0.0 and phase["p99"] > 0.0 for phase in (during, between))
    bins = rec["bins"]
    assert sum(bins["count"]) == during["values"] + between["values"]


def test_every_rank_follows_one_schedule(bursty):
    p, doc = bursty
    (rec,) = doc["timeline"]
    # Every rank derived the same ON/OFF schedule from the run's seed.
    assert rec["schedule_agreed"] is True
    assert rec["start_spread_s"] >= 0.0
    assert doc["config"]["burst"] == {"on_s": 0.2, "off_s": 0.3, "intensity": 1, "jitter": 0}
    assert "burst" in doc["config"]["non_default"] and doc["config"]["timeline"] is True
    assert "   burst = 0.2 s on, 0.3 s off, intensity 1, jitter 0" in p.stdout


def test_timeline_is_bounded_and_adds_up(bursty, harness):
    _, doc = bursty
    validate = harness.schema_validator()
    if validate:
        validate(doc)  # python/gpcnet/data/results.schema.json: at most 2048 bins
    (rec,) = doc["timeline"]
    bins = rec["bins"]
    n = len(bins["count"])
    assert 0 < n <= TIMELINE_BINS and len(bins["mean"]) == n and len(bins["on"]) == n
    # Every value is in one bin, and in one of the two phases.
    assert sum(bins["count"]) == rec["during_bursts"]["values"] + rec["between_bursts"]["values"]
    assert all(0.0 <= s <= 1.0 for s in bins["on"])
    assert 0.0 in bins["on"] and 1.0 in bins["on"]  # both phases are seen
    # The bins start after the common start; width x bins covers the test.
    assert bins["start_s"] >= 0.0 and bins["width_s"] > 0.0
    rc = rec["recovery"]
    assert rc["tolerance"] == 0.1 and rc["bursts"] >= 1 and 0 <= rc["recovered"] <= rc["bursts"]
    if rc["recovered"]:
        assert 0.0 <= rc["min_s"] <= rc["p25_s"] <= rc["median_s"] <= rc["p75_s"] <= rc["max_s"]
        assert rc["max_s"] <= 0.3 + 1e-9  # within an OFF period
    assert rec["isolated_avg"] > 0.0
    # The wall clock of the common start (to line up the testbed's counters):
    # seconds since 1970, after the run's start, which has second resolution.
    started = datetime.datetime.strptime(doc["started_at"], "%Y-%m-%dT%H:%M:%SZ")
    finished = datetime.datetime.strptime(doc["finished_at"], "%Y-%m-%dT%H:%M:%SZ")
    utc = datetime.timezone.utc
    assert started.replace(tzinfo=utc).timestamp() <= rec["start_epoch_s"] \
        <= finished.replace(tzinfo=utc).timestamp() + 1


def test_sweep_cells_each_get_a_timeline(harness, tmp_path):
    _, doc = load(harness, tmp_path, "--tests", "rr_two_sided_lat", "--time-limit", "0.6",
                  *SHORT_PASSES, *mpi_harness.QUICK_LOOPS, "--congestors", "a2a,p2p_incast", "--congestor-sweep",
                  "--burst", "50ms,100ms", "--burst-intensity", "0.5", "--burst-jitter", "0.3",
                  "--timeline")
    tables = [r["table"] for r in doc["timeline"]]
    assert tables == ["loaded_by:a2a", "loaded_by:p2p_incast", "loaded"]
    assert all(r["schedule_agreed"] for r in doc["timeline"])
    assert doc["config"]["burst"]["jitter"] == 0.3


def test_steady_run_has_no_timeline_member(harness, tmp_path):
    """Without --burst and --timeline nothing of either is recorded."""
    _, doc = load(harness, tmp_path, *harness.QUICK, *harness.QUICK_CONGESTORS,
                  "--tests", "rr_two_sided_lat")
    assert "timeline" not in doc and "burst" not in doc["config"]
    assert "timeline" not in doc["config"]


def test_network_congestor_bursts(harness, tmp_path):
    p = harness.run(8, "network_congestor", "--emulate-nodes", "1", "--seed", "5",
                    "--duration", "1", "--report-interval", "0.5", "--congestors",
                    "a2a,p2p_incast", "--congestor-iterations", "8", "--burst", "100ms,100ms",
                    "--burst-intensity", "0.5", "--output-dir", tmp_path, "--quiet", timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    doc = harness.load_json(tmp_path / "network_congestor.json")
    assert doc["congestor_run"]["stop_reason"] == "duration"
    assert doc["config"]["burst"]["intensity"] == 0.5
    assert all(k["bytes"] > 0 for k in doc["congestor_run"]["kernels"])


@pytest.mark.parametrize("pacing", [
    ["--burst-intensity", "1e-300"],        # an active part of 1e-302 s per sub-period
    ["--burst", "100ms,1000s"],             # an OFF period far past --duration
], ids=["tiny-intensity", "long-off"])
def test_network_congestor_pauses_end_at_the_duration(harness, tmp_path, pacing):
    """A round is a fixed number of paced iterations (512 here); its pauses
    used to outlast --duration (no iteration could start in a window of
    1e-302 s; an OFF period of 1000 s was waited out). Now every sub-period
    starts an iteration, no pause runs past the duration, and the run ends
    by it. The timeout is only a hang guard."""
    p = harness.run(8, "network_congestor", "--emulate-nodes", "1", "--seed", "5",
                    "--duration", "1", "--congestors", "a2a,p2p_incast", *pacing,
                    "--output-dir", tmp_path, "--quiet", timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    run = harness.load_json(tmp_path / "network_congestor.json")["congestor_run"]
    assert run["stop_reason"] == "duration"
    # whole rounds of 4 KiB messages moved: iterations ran, none was cut
    assert all(k["bytes"] > 0 and k["bytes"] % 4096 == 0 for k in run["kernels"])


def test_flows_burst(harness, tmp_path):
    host = socket.gethostname()
    flows = tmp_path / "flows.txt"
    flows.write_text(f"{host}#1 {host}#0\n{host}#2 {host}#0\n")
    p = harness.run(8, "network_congestor", "--emulate-nodes", "1", "--flows", flows,
                    "--duration", "0.8", "--burst", "100ms,100ms", "--output-dir", tmp_path,
                    "--quiet", timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    doc = harness.load_json(tmp_path / "network_congestor.json")
    (k,) = doc["congestor_run"]["kernels"]
    assert k["kernel"] == "flows" and k["bytes"] > 0


BURST = "--burst: expected ON,OFF durations such as 50ms,200ms"


@pytest.mark.parametrize("program,args,needle", [
    ("network_load_test", ["--burst", "0,0"], BURST),
    ("network_load_test", ["--burst", "50ms"], BURST),
    ("network_load_test", ["--burst", "-1s,1s"], BURST),
    ("network_load_test", ["--burst-intensity", "0"], "--burst-intensity: expected a share"),
    ("network_load_test", ["--burst-intensity", "-0.5"], "--burst-intensity: expected a share"),
    ("network_load_test", ["--burst-intensity", "1.01"], "--burst-intensity: expected a share"),
    ("network_load_test", ["--burst", "2s,1s", "--time-limit", "1"],
     "--burst: the ON period (2 s) must be shorter than the time limit (1 s per test)"),
    ("network_load_test", ["--burst-jitter", "0.5"], "--burst-jitter needs --burst"),
    ("network_load_test", ["--burst", "1s,1s", "--burst-jitter", "1"],
     "--burst-jitter: expected a relative variation >= 0 and < 1"),
    ("network_congestor", ["--burst", "3s,1s", "--duration", "2"],
     "--burst: the ON period (3 s) must be shorter than --duration (2 s)"),
    ("network_congestor", ["--timeline"], "--timeline applies to network_load_test only"),
], ids=["zero", "no-off", "negative", "intensity-0", "intensity-negative", "intensity-above-1",
        "on-longer-than-time-limit", "jitter-without-burst", "jitter-1", "nc-on-longer-than-duration",
        "nc-timeline"])
def test_bad_burst_input_exits_2_on_every_rank(harness, tmp_path, program, args, needle):
    np = 10 if program == "network_load_test" else 8
    p = harness.run(np, program, "--emulate-nodes", "1", *args, "--output-dir", tmp_path,
                    timeout=60)
    assert p.returncode == 2, p.stderr[-1000:]
    assert p.stderr.count(needle) == 1, p.stderr[-1000:]
    assert not list(tmp_path.iterdir())


def test_timeline_with_an_output_dir_that_cannot_be_made(harness, tmp_path):
    """--timeline writes into the results JSON only: its output place is the
    run's, checked before anything is measured (docs/reliability.md D1)."""
    blocker = tmp_path / "file"
    blocker.write_text("")
    p = harness.run(10, "network_load_test", "--emulate-nodes", "1", "--timeline",
                    "--burst", "50ms,50ms", "--output-dir", blocker / "sub", timeout=60)
    assert p.returncode == 1, p.stderr[-1000:]
    assert p.stderr.count("cannot create output directory") == 1, p.stderr[-1000:]
    assert sorted(x.name for x in tmp_path.iterdir()) == ["file"]
