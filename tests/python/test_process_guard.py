"""The process guard (tests/process_guard.py) of every pytest run here: a
leftover child is killed when its test ends, a test that runs forever
fails under its own name and the run goes on, a relative GPCNET_BUILD_DIR
becomes absolute."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

CONFTEST = f"""
import sys
sys.path.insert(0, {str(TESTS)!r})
import process_guard

def pytest_configure(config):
    process_guard.register(config)
"""

CASES = """
import os, subprocess, sys, time
from pathlib import Path

def test_leaves_a_child(tmp_path):
    # In its own session, as the reliability jobs are: no process group ties it to us.
    p = subprocess.Popen(["sleep", "600"], start_new_session=True)
    Path(os.environ["PID_FILE"]).write_text(str(p.pid))

def test_runs_forever():
    while True:
        time.sleep(0.1)

def test_sees_absolute_build_dir():
    assert os.path.isabs(os.environ["GPCNET_BUILD_DIR"])
    assert os.environ["GPCNET_BUILD_DIR"].endswith("/some/build")

def test_after_the_timeout_still_runs():
    pass
"""


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_guard_reaps_children_and_times_out_by_name(tmp_path):
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_cases.py").write_text(textwrap.dedent(CASES))
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    pid_file = tmp_path / "child.pid"
    env = dict(os.environ, PID_FILE=str(pid_file), GPCNET_BUILD_DIR="some/build",
               GPCNET_TEST_TIMEOUT="3")
    env.pop("PYTEST_TIMEOUT", None)
    p = subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    out = p.stdout + p.stderr
    assert p.returncode == 1, out
    assert "test_leaves_a_child PASSED" in out
    assert "test_runs_forever FAILED" in out and "Timeout" in out
    assert "test_sees_absolute_build_dir PASSED" in out
    assert "test_after_the_timeout_still_runs PASSED" in out
    child = int(pid_file.read_text())
    assert not alive(child), f"the child {child} of test_leaves_a_child is still running"


SIGNALLED = """
import contextlib, os, time
from pathlib import Path

import pytest

@contextlib.contextmanager
def held():
    try:
        yield
    finally:
        Path(os.environ["UNWOUND"]).write_text("unwound")

@pytest.fixture
def resource():
    with held():
        yield

def test_waits_for_the_signal(resource):
    Path(os.environ["READY"]).write_text(str(os.getpid()))
    for _ in range(6000):
        time.sleep(0.05)
"""


def test_sigterm_unwinds_fixtures_as_ctrl_c_does(tmp_path):
    """A run ended by SIGTERM (a CI runner's cancel) still runs its
    fixtures' clean-up (a throw-away user removed, a testbed taken down)."""
    import signal
    import time
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_signalled.py").write_text(textwrap.dedent(SIGNALLED))
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    ready, unwound = tmp_path / "ready", tmp_path / "unwound"
    env = dict(os.environ, READY=str(ready), UNWOUND=str(unwound))
    env.pop("PYTEST_TIMEOUT", None)
    p = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                         cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    try:
        for _ in range(2400):          # a hang guard of 120 s for the start-up
            if ready.exists() or p.poll() is not None:
                break
            time.sleep(0.05)
        assert ready.exists(), p.communicate(timeout=60)[0]
        p.send_signal(signal.SIGTERM)
        out = p.communicate(timeout=120)[0]
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert unwound.read_text() == "unwound", out
    assert "Terminated: SIGTERM" in out, out   # gpcnet.infra.signals.Terminated, a KeyboardInterrupt
    assert p.returncode != 0


FORKED = """
import os, signal, time

def test_a_forked_child_dies_by_sigterm():
    pid = os.fork()
    if pid == 0:          # a fork without exec, as pyroute2's netns helpers are
        try:
            for _ in range(1200):
                time.sleep(0.05)
        finally:
            os._exit(3)   # reached only if SIGTERM unwound the child instead of ending it
    time.sleep(0.2)
    os.kill(pid, signal.SIGTERM)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM, status
"""


def test_sigterm_to_a_fork_of_pytest_still_ends_it(tmp_path):
    """The handler is pytest's alone: a child forked from it without exec
    (pyroute2's namespace helpers) dies by SIGTERM as before. When it
    unwound instead, it ran the session's clean-up a second time, and took
    a testbed down under the tests still using it."""
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_forked.py").write_text(textwrap.dedent(FORKED))
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    env = dict(os.environ)
    env.pop("PYTEST_TIMEOUT", None)
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    out = p.stdout + p.stderr
    assert p.returncode == 0 and "1 passed" in out, out
    assert "KeyboardInterrupt" not in out, out
