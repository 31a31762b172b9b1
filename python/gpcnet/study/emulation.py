"""How faithful the testbed's emulation was over a study's run: the
machine's CPU idle and steal shares while the application ran
(gpcnet.testbed.fidelity, docs/testbed.md#emulation-fidelity). A study
samples only its metric's switch ports, so the link check of `gpcnet
testbed run` is not made here."""

from __future__ import annotations

import time


def watch(launcher):
    """Call at the application's start; returns a function that records,
    in a run's record, the fidelity since then (on the testbed only;
    elsewhere it does nothing)."""
    if launcher.name != "testbed":
        return lambda rec: None
    # deferred: a gpcnet may come without the testbed, and then no
    # launcher is named "testbed".
    from gpcnet.testbed import fidelity
    before, t0 = fidelity.read_cpu(), time.monotonic()

    def finish(rec: dict) -> None:
        rec["fidelity"] = fidelity.cpu_record(before, fidelity.read_cpu(), time.monotonic() - t0)
    return finish
