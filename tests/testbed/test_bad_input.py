"""Bad input to `gpcnet testbed`: a clear message, a non-zero exit and
nothing left behind (docs/reliability.md, section T)."""
import os
import subprocess
import sys
import tempfile

import pytest

from conftest import REPO, STATE_DIR, gpcnet, our_mounts, our_namespaces


def assert_nothing_left():
    assert our_namespaces() == []
    assert our_mounts() == []
    assert not STATE_DIR.exists()


@pytest.mark.parametrize("args, message", [
    (["--topology", "torus"], "unknown topology 'torus' (known: star, fat-tree, rail, fat-tree3)"),
    (["--topology", "fat-tree", "--hosts-per-leaf", "5", "--taper", "0"], "--taper 0: expected a number > 0"),
    (["--topology", "fat-tree", "--hosts", "10", "--hosts-per-leaf", "3"],
     "--hosts 10 is not divisible by --hosts-per-leaf 3"),
    (["--topology", "fat-tree"], "a fat-tree needs 1 to 9 hosts per leaf"),
    (["--hosts", "1"], "--hosts 1: expected 2 to 200"),
    (["--host-rate", "fast"], "rate 'fast': expected e.g. 100mbit"),
    (["--qdisc", "red"], "unknown queueing discipline 'red'"),
    (["--ecn"], "--ecn needs an AQM queue"),
], ids=["unknown-topology", "taper-0", "hosts-not-divisible", "no-hosts-per-leaf",
        "one-host", "bad-rate", "unknown-qdisc", "ecn-with-pfifo"])
def test_bad_shape_refused(clean, args, message):
    p = gpcnet("testbed", "up", *args, check=False)
    assert p.returncode == 2
    assert message in p.stderr
    assert p.stderr.count("\n") == 1, p.stderr       # one line, no traceback
    assert_nothing_left()


def test_missing_kernel_qdisc_cleans_up(clean):
    """A discipline this kernel lacks fails midway through `up`: all removed."""
    p = gpcnet("testbed", "up", "--hosts", "2", "--qdisc", "fq_codel", check=False)
    if p.returncode == 0:
        pytest.skip("this kernel has fq_codel; the midway failure cannot be provoked this way")
    assert p.returncode == 2
    assert "this kernel has no 'fq_codel' queueing discipline" in p.stderr
    assert_nothing_left()


@pytest.mark.no_root_needed
def test_not_root(monkeypatch, capsys):
    from gpcnet import cli
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    for action in (["up"], ["down"], ["status"], ["run", "--", "true"]):
        assert cli.main(["testbed", *action]) == 2
        err = capsys.readouterr().err
        assert "needs root" in err and "sudo" in err, err


def test_second_up_refused_and_force_replaces(clean):
    gpcnet("testbed", "up", "--hosts", "2")
    p = gpcnet("testbed", "up", "--hosts", "3", check=False)
    assert p.returncode == 2
    assert "a testbed is already up" in p.stderr
    assert sorted(our_namespaces()) == ["gtb-fabric", "gtb-head", "gtb-node01", "gtb-node02"]
    gpcnet("testbed", "up", "--hosts", "3", "--force")
    assert "gtb-node03" in our_namespaces()
    gpcnet("testbed", "down")
    assert_nothing_left()


@pytest.mark.parametrize("action", [["run", "--", "true"], ["status"], ["hostfile"]])
def test_no_testbed(clean, action):
    p = gpcnet("testbed", *action, check=False)
    assert p.returncode == 2
    assert "no testbed is up" in p.stderr
    assert_nothing_left()


def test_run_without_command(clean):
    gpcnet("testbed", "up", "--hosts", "2")
    p = gpcnet("testbed", "run", check=False)
    assert p.returncode == 2 and "nothing to run" in p.stderr


def test_run_from_a_private_directory_refused(clean):
    """/tmp is each host's own: a job started there could not find its
    directory on the hosts (and its results would stay on them)."""
    gpcnet("testbed", "up", "--hosts", "2")
    with tempfile.TemporaryDirectory(dir="/tmp") as d:
        p = subprocess.run([sys.executable, "-m", "gpcnet", "testbed", "run", "--", "true"],
                           cwd=d, capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, PYTHONPATH=str(REPO / "python")))
        assert p.returncode == 2, p.stderr
        assert f"the current directory {d} is under /tmp, which every testbed host" in p.stderr
        assert os.listdir(d) == []


def test_crash_midway_is_cleaned(clean):
    """A testbed half built (state 'creating', namespaces left) is refused by
    run, and removed by a second up or by down."""
    from gpcnet.testbed import netns, topology
    from pyroute2 import netns as pnetns
    topo = topology.build("star", 3)
    STATE_DIR.mkdir(parents=True, exist_ok=True)
    (STATE_DIR / "state.json").write_text(
        __import__("json").dumps({"status": "creating", "owner": os.environ["GPCNET_TESTBED_OWNER"],
                                  "topology": topo.to_dict()}))
    for ns in topo.namespaces()[:3]:
        pnetns.create(ns)
    p = gpcnet("testbed", "run", "--", "true", check=False)
    assert p.returncode == 2 and "not completely built" in p.stderr
    gpcnet("testbed", "up", "--hosts", "2", "--force")
    assert sorted(our_namespaces()) == ["gtb-fabric", "gtb-head", "gtb-node01", "gtb-node02"]
    out = gpcnet("testbed", "down").stdout
    assert "removed 4 namespaces" in out
    assert netns.leftovers() == []
    assert_nothing_left()
