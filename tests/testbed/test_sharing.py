"""One testbed per machine, shared politely (tests/testbed_share.py): a
testbed is labelled with its owner, `down --if-owner` removes only one's
own, and a test run that finds someone else's waits for it, then skips."""
import json
import os

import pytest

import testbed_share
from conftest import gpcnet, our_namespaces


def test_down_if_owner_leaves_someone_elses_testbed(clean, monkeypatch):
    mine = os.environ["GPCNET_TESTBED_OWNER"]
    monkeypatch.setenv("GPCNET_TESTBED_OWNER", "someone-else")
    gpcnet("testbed", "up", "--hosts", "2")
    monkeypatch.setenv("GPCNET_TESTBED_OWNER", mine)
    assert "owner: someone-else" in gpcnet("testbed", "status").stdout
    assert testbed_share.foreign() == "a testbed brought up by someone-else"
    out = gpcnet("testbed", "down", "--if-owner", mine).stdout
    assert "left up (brought up by someone-else" in out
    assert "gtb-node02" in our_namespaces()
    assert "removed 4 namespaces" in gpcnet("testbed", "down", "--if-owner", "someone-else").stdout
    assert our_namespaces() == []


def test_own_testbed_is_removed_and_none_up_is_fine(clean):
    gpcnet("testbed", "up", "--hosts", "2")
    assert testbed_share.foreign() is None
    assert "removed 4 namespaces" in testbed_share.down().stdout
    assert "no testbed was up" in testbed_share.down().stdout


@pytest.mark.no_root_needed
@pytest.mark.parametrize("state, holder", [
    ({"status": "up", "owner": "ci-job-17", "topology": {}}, "a testbed brought up by ci-job-17"),
    ({"status": "up", "topology": {}}, "a testbed brought up by someone without an owner label"),
    ("{not json", "a testbed with an unreadable state file"),
])
def test_a_foreign_testbed_is_waited_for_then_skipped(tmp_path, monkeypatch, state, holder):
    """The session's wait is bounded (here 0 s left): the test skips with
    the holder named, and nothing is removed."""
    path = tmp_path / "state.json"
    path.write_text(state if isinstance(state, str) else json.dumps(state))
    monkeypatch.setattr(testbed_share, "STATE", path)
    monkeypatch.setattr(testbed_share, "WAIT", 0)
    assert testbed_share.foreign() == holder
    with pytest.raises(pytest.skip.Exception, match=f"{holder} is up on this machine"):
        testbed_share.claim()
    assert path.exists()


@pytest.mark.no_root_needed
def test_the_slot_is_taken_when_it_frees_up(tmp_path, monkeypatch):
    """A foreign testbed that goes during the wait: the test goes ahead."""
    path = tmp_path / "state.json"
    path.write_text(json.dumps({"status": "up", "owner": "other", "topology": {}}))
    monkeypatch.setattr(testbed_share, "STATE", path)
    monkeypatch.setattr(testbed_share, "_waited", [0.0])
    slept = []

    def fake_sleep(seconds):   # the other run takes its testbed down meanwhile
        slept.append(seconds)
        path.unlink()
    monkeypatch.setattr(testbed_share.time, "sleep", fake_sleep)
    testbed_share.claim()
    assert slept == [5]
