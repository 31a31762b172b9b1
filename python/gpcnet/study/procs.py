"""The study's jobs as processes: started in their own process group with
their output in the study's job files, stopped with everything they
started, and what they said when they failed. Shared by the runner, the
interleaved runs and the counter sampler's job."""

from __future__ import annotations

import math
import os
import signal
import subprocess
from pathlib import Path

from gpcnet.infra import safe_write
from gpcnet.infra.errors import GpcnetError
from gpcnet.infra.signals import die_with_parent


def tail(path: Path, n: int = 300) -> str:
    """What a job said: its first and last words (the program's own message
    usually comes first, mpirun's summary last) and where the rest is."""
    try:
        text = path.read_text(errors="replace").strip()
    except OSError:
        return ""
    if len(text) > 2 * n:
        text = text[:n] + " [...] " + text[-n:]
    return " ".join(text.split()) + f" (full output: {path.name})"


LIVE: set = set()  # jobs started and not yet stopped: ended on an interrupt whatever it cut short


def stop(proc: subprocess.Popen, grace: float) -> None:
    """End a job and everything it started (its own process group)."""
    LIVE.discard(proc)
    if proc.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def spawn(cmd: list, env: dict, out: Path, err: Path) -> subprocess.Popen:
    # The job files are the study's own (FILE.d/): replaced, never through a link.
    with safe_write.open_new(out, "wb", force=True) as o, safe_write.open_new(err, "wb", force=True) as e:
        proc = subprocess.Popen(cmd, env=env, stdout=o, stderr=e, stdin=subprocess.DEVNULL,
                                start_new_session=True, preexec_fn=die_with_parent)
    LIVE.add(proc)
    return proc


def signal_stop(stop: Path) -> None:
    """Create the congestor's stop file; if that fails it is stopped by signal."""
    try:
        with safe_write.open_new(stop, force=True):
            pass
    except GpcnetError:
        pass


class RunFailed(Exception):
    """A run that did not finish: recorded as failed, and the study goes on."""


def fom(text) -> float | None:
    """A figure of merit as a finite number, or None."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None
