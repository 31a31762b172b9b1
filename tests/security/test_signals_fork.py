"""SIGTERM/SIGHUP act as SIGINT only in the process that asked for it
(gpcnet/infra/signals.py): a forked child that inherits the handler dies by the
signal. pyroute2 forks such a helper for every namespace it opens; when the
helper was told to stop, it raised the parent's exception and ran the
parent's cleanup, which removed the testbed `up --force` was building (the
command then waited forever on its netlink socket)."""
import os
import signal
import time

import pytest

from gpcnet.infra.signals import Terminated, terminate_as_interrupt


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_forked_child_dies_by_the_signal(signum):
    with terminate_as_interrupt():
        pid = os.fork()
        if pid == 0:  # the child: must not survive its own signal
            try:
                os.kill(os.getpid(), signum)
                signal.pause()
            except BaseException:
                os._exit(3)  # ran the parent's handling: the bug
            os._exit(4)
        _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signum, status


def test_the_owner_still_gets_terminated():
    with pytest.raises(Terminated) as e:
        with terminate_as_interrupt():
            os.kill(os.getpid(), signal.SIGTERM)
            signal.pause()
    assert e.value.signum == signal.SIGTERM


class _SlowFinalizer:
    def __init__(self, started):
        self.started = started

    def __del__(self):
        os.write(self.started, b"x")
        time.sleep(2.0)   # the signal lands here, where an exception is dropped


def test_a_signal_dropped_in_a_finalizer_is_delivered_again():
    """A Terminated raised inside a __del__ is printed and dropped by
    Python; the command must still stop (before, it went on and ignored
    every later SIGTERM: a test run could then only be killed, and the jobs
    it started outlived it)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:   # the child sends the SIGTERM once the finalizer runs
        os.close(w)
        os.read(r, 1)
        os.kill(os.getppid(), signal.SIGTERM)
        os._exit(0)
    os.close(r)
    try:
        with pytest.raises(Terminated):
            with terminate_as_interrupt():
                obj = _SlowFinalizer(w)
                del obj   # the finalizer runs now; the signal arrives during it
                end = time.monotonic() + 60   # a hang guard
                while time.monotonic() < end:
                    time.sleep(0.05)
    finally:
        os.close(w)
        os.waitpid(pid, 0)
