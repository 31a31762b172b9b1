"""SIGTERM and SIGHUP during `gpcnet testbed up` remove everything built so
far, as SIGINT does (docs/reliability.md X5). The signal is sent by the
test at a fixed point of the build (the second host's name being set), so
the result does not depend on how fast this machine is."""
import os
import signal

import pytest

from conftest import STATE_DIR, our_namespaces


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_signal_midway_through_up_leaves_nothing(clean, monkeypatch, capsys, sig):
    from gpcnet import cli
    from gpcnet.testbed import netns
    real = netns._set_hostname
    calls = []

    def set_hostname_then_signal(name):
        real(name)
        calls.append(name)
        if len(calls) == 2:
            os.kill(os.getpid(), sig)

    monkeypatch.setattr(netns, "_set_hostname", set_hostname_then_signal)
    # Ctrl-C as at a terminal: Python ignores SIGINT from the start when it
    # was started ignored (a background job of a shell without job control).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    term_before = signal.getsignal(signal.SIGTERM)   # the test run's own (tests/process_guard.py)
    try:
        code = cli.main(["testbed", "up", "--hosts", "6"])
    finally:
        signal.signal(signal.SIGINT, previous)
    assert code == 128 + sig, capsys.readouterr()
    assert len(calls) == 2, "the signal stopped the build where it was sent"
    assert our_namespaces() == []
    assert not STATE_DIR.exists()
    assert signal.getsignal(signal.SIGTERM) is term_before  # handlers restored
