"""Keeps every pytest run of this repository from hanging on a process a
test left behind, and from running forever.

Registered by each conftest.py (`process_guard.register(config)`; doing it
twice is harmless), because a directory with its own pytest.ini is a rootdir
of its own and does not load tests/conftest.py.

- Reaper: while a test runs (setup, call and teardown of its function-scoped
  fixtures; module and session fixtures are set up without it), os.environ carries GPCNET_PYTEST_TEST=<pytest pid>:<n>, which
  every process it starts inherits (mpirun passes it to the ranks, a job in
  its own session keeps it). After the test, every process still carrying it
  is killed by process id: SIGTERM, then SIGKILL after a grace period. At the
  end of the session the same happens to everything the session started
  (GPCNET_PYTEST_SESSION), module fixtures included. Only processes whose
  /proc/PID/environ carries the marker are touched, so other pytest runs and
  other users' jobs are never killed.
- Timeout: every test without its own `timeout` mark gets
  `pytest.mark.timeout(GPCNET_TEST_TIMEOUT or 1200)` from pytest-timeout
  (part of `pip install -e 'python[test]'`): a test that runs over fails as
  "Timeout (>N s)" under its own name and the run goes on. `--timeout N` or
  PYTEST_TIMEOUT replace the default.
- SIGTERM and SIGHUP (a CI runner's cancel, a killed terminal, `kill`) end
  the run as Ctrl-C does: fixtures and context managers unwind (a
  throw-away user is removed, a testbed the run brought up is taken down)
  and the session's processes are reaped, where the default action would
  end Python at once and leave them.
- GPCNET_BUILD_DIR is made absolute once, so a relative build directory
  means the same thing in every test, whatever directory it runs in, and
  matches /proc/PID/exe.
"""
from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

import pytest

PLUGIN_NAME = "gpcnet-process-guard"
TEST_MARK = "GPCNET_PYTEST_TEST"
SESSION_MARK = "GPCNET_PYTEST_SESSION"
DEFAULT_TIMEOUT = float(os.environ.get("GPCNET_TEST_TIMEOUT", "1200"))
GRACE = 3.0


def marked_pids(key: str, value: str) -> list:
    """Processes (not this one) whose initial environment has key=value."""
    needle = f"{key}={value}".encode()
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry.name}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except OSError:  # gone, or not ours to read
            continue
        if needle in env:
            found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def reap(key: str, value: str) -> list:
    """SIGTERM every marked process, SIGKILL what is left after GRACE
    seconds, collect our own zombie children. Returns the pids found."""
    pids = marked_pids(key, value)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except OSError:
                pass
        deadline = time.monotonic() + (GRACE if sig == signal.SIGTERM else 1.0)
        while time.monotonic() < deadline and any(alive(p) for p in pids):
            time.sleep(0.05)
        pids_left = [p for p in pids if alive(p)]
        if not pids_left:
            break
    for pid in pids:
        try:
            os.waitpid(pid, os.WNOHANG)
        except OSError:  # not our child, or already collected by its Popen
            pass
    return pids


def end_as_by_ctrl_c():
    """SIGTERM and SIGHUP raise KeyboardInterrupt (gpcnet's Terminated) in
    pytest's main thread, where nobody set a handler of their own: pytest
    then unwinds as at Ctrl-C. gpcnet.infra.signals.terminate_as_interrupt keeps
    the default action for children forked without exec (pyroute2's).
    Returns an ExitStack holding it (closed at the session's end), or None."""
    import threading
    if threading.current_thread() is not threading.main_thread():
        return None
    # Each signal only where nobody set it: under nohup SIGHUP stays ignored
    # and SIGTERM is still caught.
    signums = tuple(s for s in (signal.SIGTERM, signal.SIGHUP) if signal.getsignal(s) == signal.SIG_DFL)
    if not signums:
        return None
    try:
        from gpcnet.infra.signals import terminate_as_interrupt
    except ImportError:   # the tool not installed: Python's default action stays
        return None
    stack = contextlib.ExitStack()
    stack.enter_context(terminate_as_interrupt(signums))
    return stack


class ProcessGuard:
    def __init__(self):
        self.signals = end_as_by_ctrl_c()
        self.session = str(os.getpid())
        self.count = 0
        os.environ[SESSION_MARK] = self.session
        build = os.environ.get("GPCNET_BUILD_DIR")
        if build:
            os.environ["GPCNET_BUILD_DIR"] = str(Path(build).resolve())

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config, items):
        if (config.pluginmanager.hasplugin("timeout")
                and config.getoption("timeout", None) is None
                and not config.getini("timeout")
                and not os.environ.get("PYTEST_TIMEOUT")):
            for item in items:
                if item.get_closest_marker("timeout") is None:
                    item.add_marker(pytest.mark.timeout(DEFAULT_TIMEOUT))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self.count += 1
        value = f"{self.session}:{self.count}"
        os.environ[TEST_MARK] = value
        try:
            yield
        finally:
            os.environ.pop(TEST_MARK, None)
            left = reap(TEST_MARK, value)
            if left:
                item.add_report_section("teardown", "process guard",
                                        f"killed {len(left)} process(es) left by the test: {left}")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef, request):
        # What a module or session fixture starts (a testbed, its daemons)
        # outlives the test that happens to set it up: leave it unmarked.
        value = os.environ.pop(TEST_MARK, None) if fixturedef.scope != "function" else None
        try:
            yield
        finally:
            if value is not None:
                os.environ[TEST_MARK] = value

    def pytest_unconfigure(self, config):
        reap(SESSION_MARK, self.session)
        if self.signals is not None:
            self.signals.close()


def ctrl_c_as_at_a_terminal() -> None:
    """preexec_fn for a child that a test sends SIGINT: its Ctrl-C acts as
    at a terminal. A pytest started in the background by a script (`cmd &`
    without job control) ignores SIGINT from the start, every child inherits
    that, and a Python started so never installs its KeyboardInterrupt
    handler: the signal would be lost."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def register(config) -> None:
    import tiers   # the tier marks (tests/tiers.py): every conftest registers through here
    tiers.register(config)
    if not config.pluginmanager.has_plugin(PLUGIN_NAME):
        config.pluginmanager.register(ProcessGuard(), PLUGIN_NAME)
