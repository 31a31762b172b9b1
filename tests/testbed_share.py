"""The testbed is one per machine: how a test run shares it politely.

Every test session labels the testbeds it brings up with its own owner
(GPCNET_TESTBED_OWNER, recorded by `gpcnet testbed up`), removes only
those (`gpcnet testbed down --if-owner`), and, when it finds a testbed it
did not bring up (another user's, another test run's), waits for it to go
for a bounded time, then skips the tests that need it, with the reason.
The wait is spent once per session: after it ran out, later tests skip at
once. It is never failed for, and never torn down.

Tests of one session that may run at once (pytest-xdist workers) also take
the machine's testbed slot, an exclusive lock (`slot()`), for as long as
their testbed is up: the owner label is the session's, shared by its
workers, so it cannot keep them apart, and grouping the testbed's tests
onto one worker (`--dist loadgroup`) is not something to rely on: under
pytest 9.2 with pytest-xdist 3.8 it silently stopped grouping
(pytest-xdist issue 1386), and two docs examples brought a testbed up at
once.
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
OWNER = os.environ.setdefault("GPCNET_TESTBED_OWNER", f"pytest-{os.getpid()}")
STATE = Path(os.environ.get("GPCNET_TESTBED_DIR", "/run/gpcnet-testbed")) / "state.json"
# How long a session waits in all for someone else's testbed to go.
WAIT = float(os.environ.get("GPCNET_TESTBED_WAIT", "600"))
_waited = [0.0]
# One test with a testbed at a time on this machine, whatever the worker.
SLOT_LOCK = Path(os.environ.get("GPCNET_TESTBED_SLOT_LOCK", "/run/gpcnet-testbed-tests.lock"))
# How long a test waits for the slot: the longest testbed test holds it a
# few minutes; a slot held longer than this is a hang, and we skip.
SLOT_WAIT = float(os.environ.get("GPCNET_TESTBED_SLOT_WAIT", "1800"))


def namespaces() -> list:
    """The testbed namespaces on this machine (gtb-...), whoever made them."""
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith("gtb-")]


def foreign() -> str | None:
    """Who holds the machine's testbed, when it is not this session; None
    when no testbed is up or it is ours."""
    try:
        state = json.loads(STATE.read_text())
    except FileNotFoundError:
        return "a testbed without a state file (its namespaces)" if namespaces() else None
    except (OSError, ValueError):
        return "a testbed with an unreadable state file"
    label = state.get("owner") if isinstance(state, dict) else None
    if label == OWNER:
        return None
    return f"a testbed brought up by {label or 'someone without an owner label'}"


def claim() -> None:
    """Return when the testbed slot is free or ours; skip the test after the
    session's bounded wait for someone else's testbed to go."""
    holder = foreign()
    while holder is not None and _waited[0] < WAIT:
        time.sleep(5)
        _waited[0] += 5
        holder = foreign()
    if holder is not None:
        pytest.skip(f"{holder} is up on this machine (one testbed per machine); waited "
                    f"{_waited[0]:.0f} s for it, not touching it")


def down() -> subprocess.CompletedProcess:
    """Remove the testbed if this session brought it up; anyone else's
    (leftovers without a state file included) is left as it is."""
    return subprocess.run([sys.executable, "-m", "gpcnet", "testbed", "down", "--if-owner", OWNER],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(REPO / "python")))


@contextlib.contextmanager
def slot():
    """Hold the machine's testbed slot (an exclusive lock, opened without
    following a link: we run as root in shared directories) while the body
    brings a testbed up, uses it and takes it down; waits, bounded, for a
    test of another worker or session to give it back, then skips."""
    fd = os.open(SLOT_LOCK, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        waited = 0.0
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if waited >= SLOT_WAIT:
                    pytest.skip(f"the testbed slot ({SLOT_LOCK}) stayed taken for {waited:.0f} s")
                time.sleep(1)
                waited += 1
        yield
    finally:
        os.close(fd)   # closing gives the lock back
