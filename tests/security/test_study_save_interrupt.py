"""A signal while `gpcnet study` saves its JSON (a slow fsync, as on NFS or
Lustre) waits for the save: the run that finished is kept, the JSON is
whole, and the exit is 128 + the signal with the "interrupted" line
(issue 39, finding 5 of the low ones; docs/security.md X17).

The save is made slow by the test, not by the clock: a driver runs the
gpcnet command line with os.fsync wrapped so that the study JSON's N-th
save blocks opening a FIFO until the test opens its other end; the test
sends the signal once the save has begun, then releases it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

import process_guard
from conftest import REPO
from gpcnet.infra.signals import Terminated, deferring_termination, terminate_as_interrupt
from gpcnet.study import document

DRIVER = '''
import os, sys
from pathlib import Path

gate, nth, argv = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
real_fsync, saves = os.fsync, [0]


def gated_fsync(fd):
    try:
        where = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        where = ""
    name = os.path.basename(where)
    # The study JSON's temporary: named, or (Linux) unnamed, shown as
    # "DIR/#INODE (deleted)", in the study's directory.
    unnamed = os.path.dirname(where) == str(gate) and name.startswith("#")
    if unnamed or (name.startswith(".s.json.") and name.endswith(".tmp")):
        saves[0] += 1
        if saves[0] == nth:
            (gate / "saving").touch()
            with open(gate / "fifo", "rb"):  # blocks until the test opens the other end
                pass
    real_fsync(fd)


os.fsync = gated_fsync
from gpcnet.cli import main
sys.exit(main(argv))
'''


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_signal_during_the_save_keeps_the_finished_run(tmp_path, congestor_bin, sig):
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    os.mkfifo(tmp_path / "fifo")
    out = tmp_path / "s.json"
    argv = ["study", "corun", "--launcher", "local", "--nodes", "n[1-3]", "-n", "1", "--rotations", "3",
            "--settings", "I", "--counters", "none", "--congestor-bin", str(congestor_bin), "-o", str(out),
            "--", "true"]
    p = subprocess.Popen([sys.executable, str(driver), str(tmp_path), "2", *argv],
                         env=dict(os.environ, PYTHONPATH=str(REPO / "python")),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=process_guard.ctrl_c_as_at_a_terminal)
    release = None
    try:
        deadline = time.monotonic() + 300  # a hang guard only: the wait is for the file
        while not (tmp_path / "saving").exists():   # the second run is done and being saved
            assert p.poll() is None, p.communicate()
            assert time.monotonic() < deadline, "the second save never began"
            time.sleep(0.02)
        p.send_signal(sig)
        release = os.open(tmp_path / "fifo", os.O_RDWR)  # never blocks; lets the save go on
        stdout, stderr = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
        if release is not None:
            os.close(release)
    assert p.returncode == 128 + sig, stdout + stderr
    # Progress lines, this one included, go to stdout.
    assert "interrupted after I-r1: 2 finished runs kept" in stdout, stdout + stderr
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    doc = document.load(out)   # whole and valid
    assert [(r["id"], r["status"]) for r in doc["runs"]] == [("I-r0", "ok"), ("I-r1", "ok")]
    assert sorted(x.name for x in tmp_path.iterdir() if x.name.startswith(".s.json")) == []  # no temporary left


def test_deferred_signal_is_delivered_after_the_work():
    """In-process: SIGTERM inside deferring_termination() lets the work
    finish, then interrupts as terminate_as_interrupt says."""
    done = []
    with pytest.raises(Terminated) as e:
        with terminate_as_interrupt():
            with deferring_termination():
                os.kill(os.getpid(), signal.SIGTERM)
                os.kill(os.getpid(), signal.SIGHUP)   # a second one is not delivered twice
                done.append("after the signals")
            done.append("never")
    assert done == ["after the signals"] and e.value.signum == signal.SIGTERM
