"""SIGTERM and SIGHUP end a long gpcnet command the way SIGINT does, and
the jobs it starts end with it even when it is killed outright.

- ``terminate_as_interrupt()``: while it is active, SIGTERM and SIGHUP raise
  ``Terminated`` (a KeyboardInterrupt), so the code that already stops
  cleanly on Ctrl-C (keep what finished, stop the jobs, remove what was half
  built) runs for them too; ``exit_code(e)`` is 128 + the signal's number.
  Only the first signal interrupts: later ones do not cut the cleanup short.
  A ``Terminated`` that Python could not propagate (raised inside a
  ``__del__`` or another finalizer, where exceptions are printed and
  dropped) is delivered again 0.1 s later: otherwise the command would go on
  and ignore every later SIGTERM.
- ``deferring_termination()``: work that must finish once begun (a study's
  save) holds SIGINT, SIGTERM and SIGHUP and delivers the first afterwards.
- ``die_with_parent()``: a ``preexec_fn`` for subprocesses: the kernel sends
  the child SIGTERM when gpcnet dies, even by SIGKILL (Linux prctl
  PR_SET_PDEATHSIG; a no-op elsewhere). mpirun and srun pass that on to
  their ranks.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading

PR_SET_PDEATHSIG = 1


class Terminated(KeyboardInterrupt):
    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def exit_code(e: BaseException) -> int:
    return 128 + getattr(e, "signum", signal.SIGINT)


@contextlib.contextmanager
def terminate_as_interrupt(signums=(signal.SIGTERM, signal.SIGHUP)):
    fired = []
    owner = os.getpid()

    def handler(signum, frame):
        if os.getpid() != owner:
            # A forked child that inherited the handler (pyroute2's netns
            # helper is one): it must die as the signal says, never run
            # the parent's cleanup (that once removed a testbed being built).
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        if fired or any(isinstance(x, KeyboardInterrupt) for x in _active_exceptions()):
            return  # already stopping
        fired.append(signum)
        raise Terminated(signum)

    def unraisable(u):
        if isinstance(u.exc_value, Terminated) and os.getpid() == owner and fired:
            # Dropped where it was raised (a finalizer): stop again from outside it.
            _deliver_later(owner, fired.pop())
            return
        previous_hook(u)

    previous_hook = sys.unraisablehook
    sys.unraisablehook = unraisable
    old = {}
    for s in signums:
        old[s] = signal.signal(s, handler)
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        sys.unraisablehook = previous_hook


def _deliver_later(pid: int, signum: int, delay: float = 0.1) -> None:
    timer = threading.Timer(delay, os.kill, (pid, signum))
    timer.daemon = True
    timer.start()


@contextlib.contextmanager
def ignoring_termination(signums=(signal.SIGINT, signal.SIGTERM, signal.SIGHUP)):
    """Cleanup that must finish: these signals are ignored while it runs."""
    old = {s: signal.signal(s, signal.SIG_IGN) for s in signums}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


@contextlib.contextmanager
def deferring_termination(signums=(signal.SIGINT, signal.SIGTERM, signal.SIGHUP)):
    """Work that must not be cut in half (a study's save, whose fsync can
    take seconds on NFS or Lustre): these signals are held while it runs,
    and the first one is delivered once it is done, to whatever handled it
    before (``terminate_as_interrupt``'s handler, Python's Ctrl-C, or the
    default action). A system call the signal interrupts is retried."""
    held = []
    owner = os.getpid()

    def hold(signum, frame):
        if os.getpid() != owner:  # a forked child: it dies as the signal says
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        held.append(signum)

    old = {s: signal.signal(s, hold) for s in signums}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, signal.SIG_DFL if h is None else h)
        if held:
            signal.raise_signal(held[0])  # its handler runs here, after the work


def _active_exceptions():
    e = sys.exc_info()[1]
    return [e] if e is not None else []


try:  # loaded here, in the parent: a forked child should not load libraries
    _prctl = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):
    _prctl = None


def die_with_parent() -> None:
    """preexec_fn: SIGTERM to this child when the process that started it dies."""
    parent = os.getppid()
    if _prctl is None or _prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) != 0:
        return
    if os.getppid() != parent:  # it died before prctl took effect: do not outlive it
        os.kill(os.getpid(), signal.SIGTERM)
