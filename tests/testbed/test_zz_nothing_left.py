"""Runs last: after every testbed test, nothing of the testbed is left."""
import os
from pathlib import Path

from conftest import STATE_DIR, gpcnet, our_mounts, our_namespaces


def test_nothing_left():
    assert our_namespaces() == []
    assert our_mounts() == []
    assert not STATE_DIR.exists()
    # No traffic-class cgroup (nor, with it, its marking programs).
    from gpcnet.testbed import class_marking
    assert class_marking.group_dir() is None or not class_marking.group_dir().exists()
    # No link of ours leaked into the machine's own namespace.
    ours = {"mgmt", "star", "mhead"} | {f"{p}{i}" for p in ("leaf", "spine", "agg", "core", "d", "m") for i in range(200)}
    assert not (set(os.listdir("/sys/class/net")) & ours)
    # No daemon of ours is still running.
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        assert str(STATE_DIR) not in cmd, f"left running: {pid} {cmd}"
        # No process lives in a host's mount namespace (its private /tmp).
        try:
            mounts = Path(f"/proc/{pid}/mountinfo").read_text()
        except OSError:
            continue
        assert " - tmpfs gtb-" not in mounts, f"in a testbed host's mount namespace: {pid} {cmd}"
    assert "no testbed was up" in gpcnet("testbed", "down").stdout
