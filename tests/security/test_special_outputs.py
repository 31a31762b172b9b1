"""A named pipe, a device or a directory at an output name is refused, never
opened or written into, and never waited on (issue 39).

Another user can plant a pipe at a name gpcnet writes (`report.html` in a
shared directory): written into, it would feed their reader our output;
with no reader, opening it would block for ever. Every output name goes
through safe_write, which refuses anything but a regular file (even with
--force); only a device or pipe the user names under /dev (`-o /dev/null`,
`-o /dev/stdout`) is written into.

The commands run as subprocesses with a timeout: the timeout is a hang
guard (each refusal takes well under a second), not a measurement.
"""

from __future__ import annotations

import os
import select
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import gpcnet
from conftest import FIXTURES
from gpcnet.infra import safe_write
from gpcnet.infra.errors import GpcnetError
import output_commands

HANG_GUARD_S = 60
PACKAGE_ROOT = str(Path(gpcnet.__file__).resolve().parents[1])  # the gpcnet under test
RUN = FIXTURES / "load_run.json"
TEXT = FIXTURES / "ours_load_default.txt"

COMMANDS = output_commands.commands(RUN, TEXT)
SUFFIX = output_commands.SUFFIX


def gpcnet(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=PACKAGE_ROOT)
    return subprocess.run([sys.executable, "-m", "gpcnet", *map(str, args)], cwd=cwd, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=HANG_GUARD_S)


class PipeReader:
    """Holds the read end of a named pipe open and counts what arrives, so
    that a writer would neither block nor go unnoticed."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        self.received = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._drain, daemon=True)
        self.thread.start()

    def _drain(self):
        while True:
            stopping = self.stop.is_set()
            ready, _, _ = select.select([self.fd], [], [], 0.05)
            if ready:
                try:
                    self.received += len(os.read(self.fd, 1 << 16))
                except BlockingIOError:
                    pass
            elif stopping:
                return

    def close(self):
        self.stop.set()
        self.thread.join(HANG_GUARD_S)
        os.close(self.fd)
        return self.received


def plant(kind, path):
    """Put a `kind` at path; (what the refusal says, a reader or None)."""
    if kind == "fifo":
        os.mkfifo(path)
        return "is a named pipe, not a regular file", None
    if kind == "fifo-with-reader":
        os.mkfifo(path)
        return "is a named pipe, not a regular file", PipeReader(path)
    if kind == "directory":
        os.mkdir(path)
        return "is a directory, not a regular file", None
    if kind == "char-device":
        try:
            os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # what /dev/null is
        except PermissionError:
            pytest.skip("cannot make a device node here (not root, or not allowed)")
        return "is a character device, not a regular file", None
    if kind == "link-to-dev-null":
        os.symlink("/dev/null", path)
        return "is a symbolic link; refusing to write through it", None
    raise AssertionError(kind)


def still_there(kind, path):
    test = {"fifo": stat.S_ISFIFO, "fifo-with-reader": stat.S_ISFIFO, "directory": stat.S_ISDIR,
            "char-device": stat.S_ISCHR, "link-to-dev-null": stat.S_ISLNK}[kind]
    assert test(os.lstat(path).st_mode), f"{path} was replaced"


KINDS = ["fifo", "fifo-with-reader", "directory", "char-device", "link-to-dev-null"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", list(COMMANDS))
def test_special_file_at_an_output_name_is_refused(tmp_path, command, kind):
    out = tmp_path / SUFFIX[command]
    expected, reader = plant(kind, out)
    try:
        p = gpcnet(*COMMANDS[command](out), "--force")
    finally:
        received = reader.close() if reader else 0
    assert p.returncode == 2, p.stdout[-500:] + p.stderr[-2000:]
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and str(out) in lines[0] and expected in lines[0], p.stderr
    assert received == 0, f"{received} bytes were written into the pipe"
    still_there(kind, out)


def test_default_report_name_is_a_pipe(tmp_path):
    """`gpcnet report RUN` in a directory where someone made report.html a
    pipe: refused at once, without --force as with it."""
    reader = PipeReader(_mkfifo(tmp_path / "report.html"))
    try:
        p = gpcnet("report", RUN, cwd=tmp_path)
    finally:
        received = reader.close()
    assert p.returncode == 2 and "report.html: is a named pipe" in p.stderr, p.stderr
    assert received == 0


def _mkfifo(path):
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("command", ["report", "table"])
def test_dev_null_is_still_written_into(tmp_path, command):
    p = gpcnet(*COMMANDS[command]("/dev/null"))
    assert p.returncode == 0, p.stderr
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_dev_stdout_writes_to_standard_output(tmp_path):
    p = gpcnet("table", RUN, "--format", "csv", "-o", "/dev/stdout")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("run,nodes,pport"), p.stdout[:200]


def test_dev_stdout_redirected_to_a_file_appends(tmp_path):
    """Written to descriptor 1 itself: what the file held before stays."""
    out = tmp_path / "stdout.txt"
    out.write_text("before\n")
    env = dict(os.environ, PYTHONPATH=PACKAGE_ROOT)
    with open(out, "a") as f:
        p = subprocess.run([sys.executable, "-m", "gpcnet", "table", str(RUN), "--format", "csv",
                            "-o", "/dev/stdout"], stdout=f, stderr=subprocess.PIPE, text=True,
                           env=env, stdin=subprocess.DEVNULL, timeout=HANG_GUARD_S)
    assert p.returncode == 0, p.stderr
    text = out.read_text()
    assert text.startswith("before\nrun,nodes,pport"), text[:200]


def test_pipe_under_a_shared_dir_of_dev_is_refused(tmp_path):
    """/dev/shm is writable by everyone: a pipe there is refused like one
    in /tmp, not written into."""
    if not os.path.isdir("/dev/shm") or not os.stat("/dev/shm").st_mode & stat.S_IWOTH:
        pytest.skip("no world-writable /dev/shm here")
    fifo = f"/dev/shm/gpcnet-test-{os.getpid()}-{tmp_path.name}"
    os.mkfifo(fifo)
    try:
        reader = PipeReader(fifo)
        try:
            p = gpcnet("table", RUN, "-o", fifo, "--force")
        finally:
            received = reader.close()
    finally:
        os.unlink(fifo)
    assert p.returncode == 2 and "is a named pipe" in p.stderr, p.stderr
    assert received == 0


# ------------------------------------------------------------- safe_write itself

@pytest.mark.timeout(HANG_GUARD_S)
@pytest.mark.parametrize("force", [False, True], ids=["plain", "force"])
@pytest.mark.parametrize("kind", KINDS)
def test_safe_write_refuses_special_files(tmp_path, kind, force):
    out = tmp_path / "st.json"
    expected, reader = plant(kind, out)
    try:
        with pytest.raises(GpcnetError) as e:
            safe_write.write_text(out, "{}\n", force=force)
    finally:
        received = reader.close() if reader else 0
    assert str(e.value).startswith(f"{out}: {expected.split(';')[0]}"), str(e.value)
    assert "\n" not in str(e.value)
    assert received == 0
    still_there(kind, out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["st.json"], "a temporary was left"


@pytest.mark.timeout(HANG_GUARD_S)
@pytest.mark.parametrize("kind", ["fifo", "fifo-with-reader", "directory"])
def test_safe_write_open_new_refuses_special_files(tmp_path, kind):
    out = tmp_path / "app.out"
    expected, reader = plant(kind, out)
    try:
        with pytest.raises(GpcnetError, match=expected.split(";")[0]):
            with safe_write.open_new(out, "wb", force=True):
                pass
    finally:
        received = reader.close() if reader else 0
    assert received == 0
    still_there(kind, out)
