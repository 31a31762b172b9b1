"""A short study on the testbed (issue 9): 2 settings x 2 rotations and a
bully run on an emulated fat-tree, checking that every run is recorded with
its node lists and that the congestor ran on its nodes only (the testbed's
hosts have their own host names, so the congestor's own node list is the
proof). Skipped, with the reason, when this gpcnet has no testbed, when not
root, or when a testbed is already up (there is one per machine)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PY = str(Path(__file__).resolve().parents[2] / "python")


def _gpcnet(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "gpcnet", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=dict(os.environ, PYTHONPATH=PY))


@pytest.fixture(scope="module")
def testbed():
    try:
        from gpcnet.testbed import netns  # noqa: F401
    except ImportError:
        pytest.skip("`gpcnet testbed` is not available in this gpcnet")
    if os.geteuid() != 0:
        pytest.skip("the testbed needs root")
    if netns.load_state() is not None or netns.leftovers():
        pytest.skip("a testbed is already up (one per machine); not touching it")
    up = _gpcnet("testbed", "up", "--topology", "fat-tree", "--hosts", "6", "--hosts-per-leaf", "2",
                 "--spines", "1", "--host-rate", "100mbit", timeout=300)
    assert up.returncode == 0, up.stdout + up.stderr
    try:
        yield
    finally:
        down = _gpcnet("testbed", "down", timeout=300)
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
        leaves = {"node01": "leaf0", "node02": "leaf0", "node03": "leaf1", "node04": "leaf1"}
        assert {p["router"] for p in c["ports"].values()} == {leaves[n] for n in r["app_nodes"]}
        assert all(k.startswith("spine0/") for k in c["ports"])
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
