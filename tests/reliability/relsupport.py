"""Helpers of the reliability tests: jobs in the background, rank processes,
results on disk, private mounts (see conftest.py for the fixtures)."""
import re
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
import mpi_harness  # noqa: E402

# Tests never race the clock (docs/reliability.md#tests-never-race-the-clock):
# what a test asserts is how a job ended (exit status, status, abort_reason,
# stop_reason, messages), never how long it took. The times below are hang
# guards only, far above what the test needs on a slow host (a sanitizer
# build, MPICH's polling ranks, other jobs on the 2 cores): reaching one
# means something is stuck.
DEFAULT_CAP = 300.0
# How long a test waits for something it expects within seconds: the ranks
# of a job, a phase on disk, a line of output.
WAIT_GUARD = 120.0
# A --deadline no job of these tests reaches by working: a job given it
# that ended by a signal (abort_reason "signal ...", no deadline message,
# Open MPI's exit not 124) ended by the signal and not by waiting for its
# deadline, which says it ended promptly without timing it.
FAR_DEADLINE = 300
# A job with --deadline D is waited for D + AFTER_DEADLINE s at most, so
# that one which runs to its deadline is seen ending by it (exit 124 and
# the message), not as a hang; a test's cap is above both.
AFTER_DEADLINE = 60
FAR_CAP = FAR_DEADLINE + AFTER_DEADLINE + 60


# A margin some hang guards still add (test_special_files.py): never an
# "ended within N s" bound a test asserts any more.
END_BOUND = 10.0


def job_guard(deadline=FAR_DEADLINE):
    """The hang guard of a wait for a job with --deadline `deadline`."""
    return float(deadline) + AFTER_DEADLINE


# Every test runs until its time limit, however quick the host (the
# measurements never run out), and no sooner: each of network_test's 8
# tests lasts at least 1 s, so a job interrupted after its first phase
# still has at least 7 s to go, whatever the machine's speed.
SLOW = ["--time-limit", "1", "--measurements", "10000000", "--rings", "2",
        "--iterations", "20", "--warmup", "2"]
# As short as a complete run gets.
TINY = ["--time-limit", "0.05", "--measurements", "2", "--rings", "2",
        "--iterations", "5", "--warmup", "1"]
TINY_CONGESTORS = ["--congestor-measurements", "2", "--congestor-iterations", "4"]

# For jobs whose ranks all end by themselves with a non-zero status (bad
# usage, too few nodes): Open MPI's mpirun otherwise spends a second in its
# clean-up. Never used where the launcher has to end ranks (signals).
FAST_FAIL = {"OMPI_MCA_odls_base_sigkill_timeout": "0"}


# ---------------------------------------------------------------- processes

def _proc_table():
    """pid -> (ppid, state) for every process we can see."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        rest = stat[stat.rfind(")") + 2:].split()
        table[int(entry)] = (int(rest[1]), rest[0])
    return table


def _descendants(root):
    table = _proc_table()
    children = {}
    for pid, (ppid, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    out, todo = [], [root]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def alive(pid):
    """True unless the process is gone or a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2:].split()[0] not in ("Z", "X")


def _rank_of(pid):
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            env = f.read().split(b"\0")
    except OSError:
        return None
    for item in env:
        for key in (b"OMPI_COMM_WORLD_RANK=", b"PMI_RANK="):
            if item.startswith(key):
                return int(item[len(key):])
    return None


class Job:
    """One MPI job started in the background, with its output in files."""

    def __init__(self, harness, tmp_path, np, program, args, env=None, name="job"):
        self.dir = tmp_path
        self.stdout_path = tmp_path / f"{name}.stdout"
        self.stderr_path = tmp_path / f"{name}.stderr"
        self.binary = str(harness.binary(program))
        self.np = np
        cmd = harness.launcher(np) + [self.binary] + [a if isinstance(a, bytes) else str(a)
                                                     for a in args]
        self.out = open(self.stdout_path, "wb")
        self.err = open(self.stderr_path, "wb")
        self.started = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdout=self.out, stderr=self.err,
                                     stdin=subprocess.DEVNULL, env=harness.mpi_env(env),
                                     start_new_session=True)
        self.known = set()
        self.ranks = {}
        self.returncode = None
        self.ended = None

    # -- what the job is doing
    def remember(self):
        """Note the rank processes (and everything else the job started)."""
        for pid in _descendants(self.proc.pid):
            self.known.add(pid)
            try:
                exe = os.readlink(f"/proc/{pid}/exe")
            except OSError:
                continue
            if exe == self.binary:
                rank = _rank_of(pid)
                if rank is not None:
                    self.ranks[rank] = pid
        return self.ranks

    def wait_for_ranks(self, timeout=WAIT_GUARD):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if len(self.remember()) == self.np:
                return self.ranks
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        raise AssertionError(f"only ranks {sorted(self.ranks)} of {self.np} appeared; "
                             f"stderr: {self.stderr()[-2000:]}")

    def wait_for(self, predicate, timeout=WAIT_GUARD, what="condition"):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if len(self.ranks) < self.np:
                self.remember()
            if predicate():
                return
            if self.proc.poll() is not None:
                raise AssertionError(f"job ended (exit {self.proc.returncode}) before {what}; "
                                     f"stderr: {self.stderr()[-2000:]}")
            time.sleep(0.01)
        raise AssertionError(f"no {what} within {timeout} s")

    def wait_for_phases(self, json_path, n, timeout=WAIT_GUARD):
        def enough():
            doc = read_json_if_any(json_path)
            return doc is not None and len(doc["phases"]) >= n
        self.wait_for(enough, timeout, f"{n} finished phase(s) in {json_path}")

    # -- ending it
    def signal_launcher(self, sig):
        self.remember()
        os.kill(self.proc.pid, sig)

    def signal_rank(self, rank, sig):
        self.remember()
        os.kill(self.ranks[rank], sig)

    def wait(self, timeout):
        try:
            self.returncode = self.proc.wait(timeout=timeout)
        finally:
            self.ended = time.monotonic()
            self.out.flush()
            self.err.flush()
        return self.returncode

    def leftover(self, grace=30.0):
        """Processes of the job still alive `grace` s after the launcher ended
        (a guard: it returns as soon as none is left; an orphaned rank stays)."""
        end = time.monotonic() + grace
        while True:
            left = [p for p in self.known if alive(p)]
            if not left or time.monotonic() > end:
                return left
            time.sleep(0.05)

    def kill_all(self):
        """Clean-up: SIGKILL every process this job started, by pid."""
        if self.proc.poll() is None:
            self.remember()
        for pid in list(self.known) + [self.proc.pid]:
            if alive(pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self.out.close()
        self.err.close()

    def stdout(self):
        return self.stdout_path.read_bytes().decode(errors="replace")

    def stderr(self):
        return self.stderr_path.read_bytes().decode(errors="replace")


# ---------------------------------------------------------------- results

def read_json_if_any(path):
    """The document if the file exists (it must then be complete JSON)."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return None
    return json.loads(data.decode("utf-8"))


def table_rows(stdout):
    """Data rows of the 80-column tables printed so far (name, cells)."""
    rows = []
    for line in stdout.splitlines():
        if line.startswith("|") and line.count("|") == 5:
            cells = [c.strip() for c in line.strip("|").split("|")]
            if cells[0] != "Name":
                rows.append(cells)
    return rows


def check_finished_phases_kept(doc, stdout, program):
    """A partial run's JSON holds its finished phases, and they match the
    rows already printed."""
    assert doc is not None, "no results file although a phase had finished"
    assert doc["schema"] == "gpcnet-results" and doc["program"] == program
    assert doc["status"] in ("running", "aborted")
    assert len(doc["phases"]) >= 1
    printed = [r[0] for r in table_rows(stdout)]
    recorded = [row["name"] for t in doc["tables"] if t["id"] in ("isolated", "loaded")
                for row in t["rows"]]
    # Every recorded row was printed before it was recorded.
    assert printed[:len(recorded)] == recorded, (printed, recorded)
    # One phase per finished test, in both programs.
    assert len(doc["phases"]) == len(recorded)


def no_temporary_files(directory):
    # Temporaries are "<name>.XXXXXX" (mkstemp), "<name>.abort" (the
    # watchdog's) and ".gpcnet-write-test-XXXXXX" (the write probe).
    temp = re.compile(r"(\.(json|dat)\.[A-Za-z0-9]{6}|\.tmp|\.abort)$")
    left = [p.name for p in Path(directory).iterdir()
            if temp.search(p.name) or p.name.startswith(".gpcnet-write-test")]
    assert not left, f"temporary files left behind: {left}"


def min_nodes(canary_fraction, kernels):
    """Mirror of placement_min_nodes (src/infra/placement.c), same doubles."""
    import math
    for n in range(2, 1000000):
        nc = math.floor((1.0 - canary_fraction) * n)
        if nc >= 2 * kernels and n - nc >= 2:
            return n
    raise ValueError


def private_mount_prefix():
    """argv prefix running a command in a private mount namespace, or None.

    Root gets one with `unshare --mount`; others try a user namespace.
    Nothing is mounted outside the namespace, and it vanishes with the
    command."""
    import shutil
    unshare = shutil.which("unshare")
    if not unshare:
        return None
    for prefix in ([unshare, "--mount"],
                   [unshare, "--user", "--map-root-user", "--mount"]):
        probe = subprocess.run(prefix + ["sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt "
                                         "2>/dev/null || mount -t tmpfs -o size=64k tmpfs /tmp"],
                               capture_output=True, timeout=20)
        if probe.returncode == 0:
            return prefix
    return None
