"""SIGTERM/SIGHUP act as SIGINT only in the process that asked for it
(gpcnet/signals.py): a forked child that inherits the handler dies by the
signal. pyroute2 forks such a helper for every namespace it opens; when the
helper was told to stop, it raised the parent's exception and ran the
parent's cleanup, which removed the testbed `up --force` was building (the
command then waited forever on its netlink socket)."""
import os
import signal

import pytest

from gpcnet.signals import Terminated, terminate_as_interrupt


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
