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



def lane_cgroup_of(pid):
    """The lane's cgroup named in /proc/PID/cgroup, or None."""
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        path = line.split(":", 2)[2]
        if "/gpcnet-lane." in path:
            return path
    return None


def cgroup_dirs(name):
    return [p for p in Path("/sys/fs/cgroup").glob(f"**/{name}") if p.is_dir()]


def v1_cpu_parent():
    """Our cgroup in the cgroup v1 cpu hierarchy (where lane-lib.sh makes
    the lane's first), or None."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, rel = line.split(":", 2)
        if "cpu" not in controllers.split(","):
            continue
        for root in ("/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"):
            base = Path(root + rel.rstrip("/"))
            if (base / "cpu.shares").is_file():
                return base
    return None


def v1_cpu_cgroup_possible():
    """Whether this process could make a child cgroup there."""
    base = v1_cpu_parent()
    if base is None:
        return False
    probe = base / f"gpcnet-probe.{os.getpid()}"
    try:
        probe.mkdir()
    except OSError:
        return False
    probe.rmdir()
    return True


# The lane's main process, and a job of it in a session (and process group)
# of its own, as MPICH's launcher starts each rank: a signal to the lane's
# group misses that job. "waited_for": the main process ends, the job does not.
LANES = {"stopped": "bash -c 'setsid sleep 600 & echo $! >{d}/escaped; wait'",
         "waited_for": "bash -c 'setsid sleep 600 & echo $! >{d}/escaped'"}
AFTER = {"stopped": 'echo "cpu: $lane_cpu"; sleep 600',
         "waited_for": 'echo "cpu: $lane_cpu"; while [ ! -s {d}/escaped ]; do sleep 0.1; done; '
                       'lane_wait; echo "lane exit $lane_rc"'}


@pytest.mark.parametrize("ending", ["stopped", "waited_for"])
def test_the_lane_is_one_cgroup_and_nothing_of_it_outlives_the_suite(tmp_path, ending):
    """Where a cpu cgroup can be made, every process of the lane is in the
    lane's, a session of its own included; what is left in it when the lane
    ends (a job its pytest did not reap) or is stopped is stopped, and the
    cgroup removed."""
    mark = uuid.uuid4().hex
    escaped_file = tmp_path / "escaped"
    p = start(driver(tmp_path, LANES[ending].format(d=tmp_path),
                     after=AFTER[ending].format(d=tmp_path)), mark)
    try:
        assert wait_for(lambda: escaped_file.exists() and escaped_file.read_text().strip())
        escaped = int(escaped_file.read_text())
        assert os.getsid(escaped) == escaped
        cgroup = lane_cgroup_of(escaped)
        if cgroup is None:
            assert not v1_cpu_cgroup_possible(), "a cgroup could be made, the lane has none"
            pytest.skip("no cpu cgroup can be made here: the lane runs without one")
        assert cgroup.endswith(f"/gpcnet-lane.{p.pid}")
        if ending == "stopped":
            os.killpg(p.pid, signal.SIGTERM)
        out, _ = p.communicate(timeout=GUARD)
        assert p.returncode == (143 if ending == "stopped" else 0), out
        assert "cpu: cpu cgroup /sys/fs/cgroup/" in out
        assert "lane: 1 processes left in" in out
        assert marked(mark) == [], "left running after the lane ended"
        assert cgroup_dirs(f"gpcnet-lane.{p.pid}") == []
    finally:
        if p.poll() is None:
            p.kill()
        process_guard.reap("LANE_TEST_MARK", mark)


def test_an_empty_cgroup_of_a_killed_suite_is_removed(tmp_path):
    """A suite killed by SIGKILL cannot remove its lane's cgroup: the next
    suite removes it when it is empty and its suite is gone, and leaves a
    running suite's alone."""
    if not v1_cpu_cgroup_possible():
        pytest.skip("no cgroup v1 cpu controller to make a cgroup in here")
    parent = v1_cpu_parent()
    gone = subprocess.Popen(["true"])
    gone.wait()
    stale, running = parent / f"gpcnet-lane.{gone.pid}", parent / f"gpcnet-lane.{os.getpid()}"
    stale.mkdir()
    running.mkdir()
    mark = uuid.uuid4().hex
    try:
        p = start(driver(tmp_path, "true", after="lane_wait"), mark)
        out, _ = p.communicate(timeout=GUARD)
        assert p.returncode == 0, out
        assert not stale.exists() and running.exists()
    finally:
        for d in (stale, running):
            if d.exists():
                d.rmdir()
        process_guard.reap("LANE_TEST_MARK", mark)
