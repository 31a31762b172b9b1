"""The co-run study's counters sampled during the run, the figure of merit
as the normalised time, and network_load_test as the congestor job, on
--launcher local: the application bumps a fake InfiniBand port's counters
(GPCNET_SYS_ROOT) at a known stall/flit ratio of 1/10 while it runs."""
import json
from pathlib import Path

import mpi_harness
import pytest

from gpcnet.cli import main
from gpcnet.study import document

BUMP = """
import os, sys, time, pathlib
d = pathlib.Path(sys.argv[1])
steps = int(sys.argv[2]) if os.environ.get("OMPI_COMM_WORLD_RANK", "0") == "0" else 0   # one writer
for i in range(steps):
    for name, step in (("port_xmit_data", 100), ("port_xmit_wait", 10)):
        (d / name).write_text(str(int((d / name).read_text()) + step) + "\\n")
    time.sleep(0.1)
print("fom=3.5")
"""


def fake_port(tmp_path) -> Path:
    d = tmp_path / "sys" / "class" / "infiniband" / "mlx5_0" / "ports" / "1" / "counters"
    d.mkdir(parents=True)
    for name in ("port_xmit_data", "port_xmit_wait"):
        (d / name).write_text("0\n")
    return d


@pytest.mark.parametrize("interval", ["0", "-1", "nan"])
def test_counter_interval_must_be_positive(tmp_path, capsys, congestor_bin, interval):
    out = tmp_path / "s.json"
    code = main(["study", "corun", "--launcher", "local", "--nodes", "n[1-3]", "-n", "1", "--rotations", "1",
                 "--congestor-bin", congestor_bin, "--counter-interval", interval, "-o", str(out), "--", "true"])
    err = capsys.readouterr().err
    assert code == 2 and "--counter-interval" in err and len(err.strip().splitlines()) == 1
    assert not out.exists() and not (tmp_path / "s.d").exists()


def test_negative_stall_threshold_is_refused(tmp_path, capsys, congestor_bin):
    out = tmp_path / "s.json"
    code = main(["study", "corun", "--launcher", "local", "--nodes", "n[1-3]", "-n", "1", "--rotations", "1",
                 "--congestor-bin", congestor_bin, "--stall-threshold", "-5", "-o", str(out), "--", "true"])
    err = capsys.readouterr().err
    assert code == 2 and "--stall-threshold" in err and not out.exists()


def test_sampled_series_fom_and_the_load_test_as_congestor(tmp_path, capsys, monkeypatch):
    port = fake_port(tmp_path)
    monkeypatch.setenv("GPCNET_SYS_ROOT", str(tmp_path / "sys"))
    (tmp_path / "bump.py").write_text(BUMP)
    out = tmp_path / "s.json"
    code = main(["study", "corun", "--launcher", "local", "--nodes", "n[1-18]", "-n", "6", "--rotations", "1",
                 "--settings", "I,III", "--congestor-kind", "load-test",
                 "--congestor-bin", mpi_harness.built("network_load_test"),
                 "--congestor-args", "--congestors rma_bcast --time-limit 1 --measurements 3 "
                                     "--congestor-measurements 4",
                 "--congestor-warmup", "0.2", "--counter-interval", "0.25", "--stall-threshold", "1",
                 "--fom-regex", r"fom=([0-9.]+)", "-o", str(out),
                 "--", "python3", str(tmp_path / "bump.py"), str(port), "12"])
    o, e = capsys.readouterr()
    assert code == 0, o + e
    doc = document.load(out)                       # valid against the schema
    assert doc["config"]["counter_interval"] == 0.25 and doc["config"]["congestor_kind"] == "load-test"
    assert doc["config"]["time_measure"] == "fom"  # every run had its figure of merit
    runs = {r["id"]: r for r in doc["runs"]}
    for r in runs.values():
        assert r["fom"] == 3.5 and r["wall_s"] > 0
        c = r["counters"]
        assert c["source"] == "infiniband-hca" and c["interval_s"] == 0.25 and c["stall_threshold"] == 1
        assert len(c["series"]) >= 2, "sampled during the run, not only before and after"
        ts = [iv["t"] for iv in c["series"]]
        assert ts == sorted(ts) and all(iv["dt"] > 0 for iv in c["series"])
        # the adapter's own port faces the node: a processor tile, kept apart; no network tile
        assert c["ports"] == {}
        assert list(c["ptile_ports"].values()) == [{"router": list(c["ptile_ports"])[0].split("/")[0]}]
        m = c["metric"]
        assert m["intervals"] == len(c["series"]) and m["stall_ratio"] is None
        assert "no network tile read" in m["reason"]
        # 10 stalls per 0.1 s while it runs: a processor-tile stall rate above 0
        assert c["tiles"]["ptile"]["stall_per_s"] > 0 and c["tiles"]["ntile"]["stall_per_s"] is None
        assert any(iv["ptile_stall_per_s"] for iv in c["series"])
    assert "congestor" not in runs["I-r0"]
    cong = runs["III-r0"]["congestor"]
    assert cong["kind"] == "load-test" and cong["ran_only_where_planned"]
    assert sorted(cong["ran_on"]) == sorted(runs["III-r0"]["congestor_nodes"])
    tests = {i["test"] for i in cong["load_test"]["impact"]}
    assert "rr_two_sided_bw_sync" in tests and all(i["avg"] > 0 for i in cong["load_test"]["impact"])
    assert set(cong["load_test"]["canary_nodes"]) < set(runs["III-r0"]["congestor_nodes"])
    assert isinstance(cong["load_test"]["ended_before_app"], bool)


def test_the_figure_of_merit_is_the_time_only_when_every_run_has_one():
    from gpcnet.study import timing
    runs = [{"status": "ok", "wall_s": 2.0, "fom": 1.0}, {"status": "ok", "wall_s": 2.5, "fom": 1.2},
            {"status": "failed", "wall_s": 1.0}]
    study = {"config": {"fom_regex": "t=(.*)"}, "runs": runs}
    assert timing.measure(study) == "fom"                       # failed runs do not count
    runs[1]["fom"] = None                                       # one run's output did not match
    assert timing.measure(study) == "wall_s"                    # then wall time for all, never a mix
    assert timing.measure({"config": {"fom_regex": None}, "runs": runs[:1]}) == "wall_s"
