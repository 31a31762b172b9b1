"""`gpcnet testbed run --counters FILE --counters-interval SEC`: the switch
ports sampled every SEC seconds during the job into a time series
(docs/testbed.md#port-counters-over-time)."""
import pytest

from conftest import binary, gpcnet, load, make_testbed

star2 = make_testbed("--topology", "star", "--hosts", "2", "--host-rate", "100mbit")


def test_counter_series_is_sampled_during_the_job(star2, tmp_path):
    counters = tmp_path / "counters.json"
    # A job of a few seconds (an MPI job that moves data between the two
    # hosts) sampled every 0.2 s. Short measurements (1 ring of 2
    # iterations, 4 MiB per rank; 1 warm-up iteration, not the default 200
    # that moved 400 MiB at 100 Mbit/s) so the time limit bounds the job.
    gpcnet("testbed", "run", "--timeout", 120, "--counters", counters, "--counters-interval", "0.2", "--",
           binary("network_test"), "--tests", "rr_two_sided_bw", "--time-limit", "1.5",
           "--rings", "1", "--iterations", "2", "--warmup", "1",
           "--output-dir", tmp_path, "--quiet", timeout=180)
    doc = load(counters)
    series = doc["series"]
    assert series["interval_s"] == 0.2 and series["errors"] == []
    samples = series["samples"]
    assert len(samples) >= 4, samples              # several intervals, not just before and after
    times = [s["t"] for s in samples]
    assert times == sorted(times) and all(s["dt"] > 0 for s in samples)
    # Timed from the job's start: the intervals tile the job.
    for a, b in zip(samples, samples[1:]):
        assert b["t"] - b["dt"] == pytest.approx(a["t"], abs=1e-5)
    assert series["start_epoch_s"] <= doc["after"]["time"]
    edge = [k for k, p in doc["after"]["ports"].items() if p["tier"] == "edge"]
    assert len(edge) == 2
    switch_ports = {k for k, p in doc["after"]["ports"].items() if p["switch"]}
    for s in samples:
        assert set(s["ports"]) == switch_ports     # the switches' ports, not the hosts' NICs
        for c in s["ports"].values():
            assert set(c) == {"bytes", "packets", "drops", "backlog", "overlimits"}
            assert min(c.values()) >= 0
    # The traffic is in the series, and the series adds up to no more than
    # the before/after difference (it starts after `before`, ends before `after`).
    for k in edge:
        sent = sum(s["ports"][k]["bytes"] for s in samples)
        assert 0 < sent <= doc["delta"]["ports"][k]["bytes"]
    assert sum(1 for s in samples if s["ports"][edge[0]]["bytes"] > 0) >= 2


def test_without_interval_no_series(star2, tmp_path):
    counters = tmp_path / "counters.json"
    gpcnet("testbed", "run", "--counters", counters, "--no-mpi", "--", "true")
    assert set(load(counters)) == {"routing", "before", "after", "delta", "fidelity"}


@pytest.mark.no_root_needed
@pytest.mark.parametrize("args, message", [
    (["--counters", "c.json", "--counters-interval", "0"], "--counters-interval 0: expected seconds between"),
    (["--counters", "c.json", "--counters-interval", "-1"], "--counters-interval -1: expected seconds"),
    (["--counters", "c.json", "--counters-interval", "inf"], "--counters-interval inf: expected seconds"),
    (["--counters", "c.json", "--counters-interval", "soon"], "--counters-interval soon: expected seconds"),
    (["--counters-interval", "0.1"], "--counters-interval needs --counters FILE"),
])
def test_bad_interval(tmp_path, monkeypatch, capsys, args, message):
    """Refused before anything else (root, a testbed): exit 2, one line."""
    from gpcnet import cli
    monkeypatch.chdir(tmp_path)
    assert cli.main(["testbed", "run", *args, "--", "true"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
    assert not (tmp_path / "c.json").exists()
