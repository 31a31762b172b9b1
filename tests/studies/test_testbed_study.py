"""Short studies on the testbed (issue 9), an emulated fat-tree with a 2:1
taper: 2 settings x 2 rotations and a bully run, checking that every run is
recorded with its node lists and that the congestor ran on its nodes only
(the testbed's hosts have their own host names, so the congestor's own node
list is the proof); and a co-run study of settings I-IV plus a scale sweep
whose reports carry every figure of the co-run paper (issue 25). Skipped,
with the reason, when this gpcnet has no testbed, when not root, or when a
testbed someone else brought up stays up after a bounded wait (one per
machine: tests/testbed_share.py)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

PY = str(Path(__file__).resolve().parents[2] / "python")


def _gpcnet(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "gpcnet", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=dict(os.environ, PYTHONPATH=PY))


@pytest.fixture
def tmp_path():
    """A scratch directory every testbed host sees (/tmp is each host's
    own, as a cluster node's): the job files and JSON of a run go there."""
    d = Path(tempfile.mkdtemp(prefix="gpcnet-study-test-", dir="/var/tmp"))
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="module")
def testbed():
    try:
        from gpcnet.testbed import netns  # noqa: F401
    except ImportError:
        pytest.skip("`gpcnet testbed` is not available in this gpcnet")
    if os.geteuid() != 0:
        pytest.skip("the testbed needs root")
    import testbed_share
    testbed_share.claim()   # someone else's testbed: wait for it (bounded), then skip
    testbed_share.down()    # a leftover of this session's
    up = _gpcnet("testbed", "up", "--topology", "fat-tree", "--hosts", "6", "--hosts-per-leaf", "2",
                 "--spines", "1", "--taper", "2", "--host-rate", "100mbit", timeout=300)
    assert up.returncode == 0, up.stdout + up.stderr
    try:
        yield
    finally:
        down = testbed_share.down()
        assert down.returncode == 0, down.stderr


def test_short_corun_study_on_the_testbed(testbed, tmp_path, congestor_bin):
    out = tmp_path / "tb.json"
    p = _gpcnet("study", "corun", "--launcher", "testbed", "--testbed", "-n", "2", "--rotations", "2",
                "--settings", "I,IV", "--congestor-bin", congestor_bin, "--congestor-warmup", "1",
                "-o", out, "--", "sleep", "1")
    assert p.returncode == 0, p.stdout + p.stderr
    doc = json.loads(out.read_text())
    assert doc["nodes"] == [f"node{i:02d}" for i in range(1, 7)]
    runs = {r["id"]: r for r in doc["runs"]}
    assert sorted(runs) == ["I-r0", "I-r1", "IV-r0", "IV-r1"]
    assert runs["IV-r0"]["app_nodes"] == ["node01", "node03"]
    assert runs["IV-r0"]["congestor_nodes"] == ["node02", "node04"]
    for r in runs.values():
        assert r["status"] == "ok"
        c = r["counters"]
        assert c["source"] == "testbed-tc" and len(c["series"]) >= 1, "switch queues sampled during the run"
        # the metric's scope: the links into the application's leaves from the spine (their
        # queues' overlimits and packets), nothing of the congestor-only leaves
        leaves = {f"node{i:02d}": f"leaf{(i - 1) // 2}" for i in range(1, 7)}   # 2 hosts per leaf
        assert {p["router"] for p in c["ports"].values()} == {leaves[n] for n in r["app_nodes"]}
        assert all(k.startswith("spine0/") for k in c["ports"])
        # How faithful the emulation was over the application (the CPU part;
        # which verdict depends on the machine's load, so only its form).
        f = r["fidelity"]
        assert f["verdict"] in ("faithful", "host-bound") and f["links_checked"] is False
        assert 0 <= f["cpu"]["idle_share"] <= 1 and f["seconds"] > 0
        assert (f["verdict"] == "host-bound") == (f["cpu"]["idle_share"] < 0.1 or f["cpu"]["steal_share"] > 0.1)
        if r["setting"] == "IV":
            assert sorted(r["congestor"]["ran_on"]) == sorted(r["congestor_nodes"])
            assert r["congestor"]["ran_only_where_planned"]


def test_bully_on_the_testbed(testbed, tmp_path, congestor_bin):
    out = tmp_path / "bully.json"
    p = _gpcnet("study", "bully", "--launcher", "testbed", "--topology", "testbed", "--patterns", "pairs-light",
                "-n", "2", "--rotations", "1", "--congestor-bin", congestor_bin, "--congestor-warmup", "1",
                "-o", out, "--", "sleep", "1")
    assert p.returncode == 0, p.stdout + p.stderr
    runs = {r["id"]: r for r in json.loads(out.read_text())["runs"]}
    inc = runs["pairs-light-r0"]
    assert inc["status"] == "ok" and inc["congestor"]["ran_only_where_planned"]
    assert inc["congestor"]["kernels"][0]["kernel"] == "flows"


def _figures(html: str) -> list:
    return re.findall(r'<figure class="plot" id="fig-([a-z]+)"', html)


def test_corun_and_scale_studies_produce_every_figure(testbed, tmp_path, congestor_bin):
    """Settings I-IV x 2 rotations with counters sampled every 0.25 s (a
    threshold of 0 keeps every interval that moved a packet), then the load
    test alone on 4 and 6 hosts; `gpcnet report` draws the box plots, the
    per-setting means with the fit, the stall-rate series and the scale
    sweep's figures from them."""
    out = tmp_path / "tb.json"
    p = _gpcnet("study", "corun", "--launcher", "testbed", "--testbed", "-n", "2", "--rotations", "2",
                "--congestor-bin", congestor_bin, "--congestor-warmup", "1", "--counter-interval", "0.25",
                "--stall-threshold", "0", "-o", out, "--", "sleep", "1")
    assert p.returncode == 0, p.stdout + p.stderr
    runs = json.loads(out.read_text())["runs"]
    assert sorted(r["setting"] for r in runs) == ["I", "I", "II", "II", "III", "III", "IV", "IV"]
    for r in runs:
        c = r["counters"]
        assert c["source"] == "testbed-tc" and c["ports"] and len(c["series"]) >= 2, r["id"]
        # the leaf ports facing the application's hosts: processor tiles, apart from the metric's
        assert sorted(v["node"] for v in c["ptile_ports"].values()) == sorted(r["app_nodes"]), r["id"]
        assert not set(c["ptile_ports"]) & set(c["ports"])
    # the congestor's packets cross the application's switch ports in IV
    assert any(r["counters"]["metric"]["stall_ratio"] is not None for r in runs if r["setting"] == "IV")
    rep = _gpcnet("report", out, "-o", tmp_path / "tb.html")
    assert rep.returncode == 0, rep.stderr
    assert _figures((tmp_path / "tb.html").read_text()) == ["times", "metric", "tiles", "series"]

    sc = tmp_path / "scale.json"
    load_test = Path(congestor_bin).with_name("network_load_test")
    p = _gpcnet("study", "scale", "--launcher", "testbed", "--testbed", "--node-counts", "4,6",
                "--repetitions", "1", "--load-test-bin", load_test, "--counter-interval", "0.25",
                "--stall-threshold", "0", "--load-test-args",
                "--congestors a2a --canary-fraction 0.5 --tests rr_two_sided_bw_sync --measurements 3 "
                "--congestor-measurements 3 --rings 2 --iterations 2 --congestor-iterations 8 --time-limit 5", "-o", sc)
    assert p.returncode == 0, p.stdout + p.stderr
    doc = json.loads(sc.read_text())
    assert doc["config"]["study"] == "scale" and doc["config"]["settings"] == ["4", "6"]
    for r in doc["runs"]:
        assert r["status"] == "ok" and len(r["app_nodes"]) == int(r["setting"])
        assert r["load_test"]["bandwidth_test"] == "rr_two_sided_bw_sync" and r["load_test"]["bandwidth_ratio"] > 0
        assert r["counters"]["metric"]["stall_ratio"] is not None, r["counters"]["metric"]
    rep = _gpcnet("report", sc, "-o", tmp_path / "scale.html")
    assert rep.returncode == 0, rep.stderr
    assert _figures((tmp_path / "scale.html").read_text()) == ["counts", "ratio"]
