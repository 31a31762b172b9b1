"""scripts/lane-lib.sh: the whole suite (scripts/test.sh) runs its
reliability stage beside the other stages, in a process group of its own.
Stopping the suite (a CI runner's cancel, Ctrl-C, a closed terminal) must
stop that lane too, ignored SIGTERMs included, and its exit status and
output must come back when it ends."""
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
import process_guard  # noqa: E402

LIB = REPO / "scripts" / "lane-lib.sh"
GUARD = 60  # s: a hang guard; a stop takes a second or two


def driver(tmp_path, lane_command, after="sleep 600"):
    """A bash script as scripts/test.sh uses the library: traps, the lane,
    then its own foreground work (`after`)."""
    script = tmp_path / "driver.sh"
    script.write_text(f""". {LIB}
lane_traps
lane_start {tmp_path}/lane.log {lane_command}
echo started >{tmp_path}/started
{after}
""")
    return script


def as_at_a_terminal():
    """preexec_fn: SIGINT and SIGHUP act as at a terminal. A test run
    started in the background (`cmd &`) or under nohup ignores them from
    the start, its children inherit that, and a shell cannot trap a signal
    ignored on entry."""
    process_guard.ctrl_c_as_at_a_terminal()
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def start(script, mark):
    env = dict(os.environ, LANE_TEST_MARK=mark, LANE_GRACE="2")
    return subprocess.Popen(["bash", str(script)], env=env, start_new_session=True,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True,
                            preexec_fn=as_at_a_terminal)


def marked(mark):
    return process_guard.marked_pids("LANE_TEST_MARK", mark)


def wait_for(what, timeout=GUARD):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if what():
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("sig,code", [(signal.SIGTERM, 143), (signal.SIGINT, 130),
                                      (signal.SIGHUP, 129)])
@pytest.mark.parametrize("lane", ["bash -c 'sleep 600 & sleep 600; wait'",
                                  "bash -c 'trap \"\" TERM INT HUP; sleep 600 & wait'"],
                         ids=["obeys", "ignores_sigterm"])
def test_stopping_the_suite_stops_the_lane(tmp_path, sig, code, lane):
    """The signal goes to the suite's process group (as a runner's cancel
    or Ctrl-C does), which the lane is not part of: the suite's trap stops
    the lane (SIGTERM, then SIGKILL after LANE_GRACE) and exits 128+N."""
    mark = uuid.uuid4().hex
    p = start(driver(tmp_path, lane), mark)
    try:
        # The driver, its foreground sleep, the lane's bash and its two sleeps
        # (one where the lane ignores SIGTERM).
        assert wait_for(lambda: (tmp_path / "started").exists() and len(marked(mark)) >= 4), \
            marked(mark)
        lane_group = os.getpgid(next(pid for pid in marked(mark) if os.getpgid(pid) != p.pid))
        assert lane_group != p.pid
        os.killpg(p.pid, sig)
        out, _ = p.communicate(timeout=GUARD)
        assert p.returncode == code, out
        assert marked(mark) == [], "left running after the suite stopped"
    finally:
        if p.poll() is None:
            p.kill()
        process_guard.reap("LANE_TEST_MARK", mark)


def test_the_lane_s_status_and_output_come_back(tmp_path):
    mark = uuid.uuid4().hex
    script = driver(tmp_path, "bash -c 'echo to-out; echo to-err >&2; read -r x || echo no-stdin; "
                              "exit 3'",
                    after='lane_wait; echo "lane exit $lane_rc"')
    p = start(script, mark)
    try:
        out, _ = p.communicate(timeout=GUARD)
    finally:
        process_guard.reap("LANE_TEST_MARK", mark)
    assert p.returncode == 0, out
    assert "lane exit 3" in out
    assert (tmp_path / "lane.log").read_text().split() == ["to-out", "to-err", "no-stdin"]
    assert marked(mark) == []
