"""A reader called every few seconds in a forked child, its readings in a
file, one JSON line each: the periodic sampler that `gpcnet study`
(gpcnet.study.sampling, for the testbed's and the local launcher's
counters) and `gpcnet testbed run --counters-interval`
(gpcnet.testbed.counters) both use. At the top of the package so that neither of the
two imports the other's side for it."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

from gpcnet.infra import safe_write
from gpcnet.infra.signals import die_with_parent


class ForkSampler:
    """Calls read() now, every `interval` seconds, and once more when
    stopped, in a child process (forked, so that gpcnet stays one thread:
    a second thread would make the kernel's parent-death signal reach the
    jobs twice when gpcnet is killed, and mpirun takes a second SIGTERM as
    "abort now, leave the ranks"). The readings go to a file of the job
    directory, one JSON line each, timed by this host's clock as the run is."""

    def __init__(self, read, interval: float, source: str, scope: dict | None, path: Path,
                 ptile_scope: dict | None = None):
        self.read, self.interval, self.source, self.scope, self.path = read, interval, source, scope, path
        self.ptile_scope, self.notes = ptile_scope, []
        self.pid = None

    def start(self) -> None:
        with safe_write.open_new(self.path, "w", force=True) as f:
            fd = os.dup(f.fileno())
        pid = os.fork()
        if pid == 0:   # the child: never returns into gpcnet
            try:
                die_with_parent()
                self._child(fd)
            finally:
                os._exit(0)
        os.close(fd)
        self.pid = pid

    def _child(self, fd: int) -> None:
        halt = []
        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, lambda *_: halt.append(1))
        signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the parent's: it stops us
        with os.fdopen(fd, "w") as out:
            wake = time.monotonic()
            while True:
                try:
                    line = {"reading": self.read()}
                except Exception as e:   # a failed reading is a gap in the series, said in the record
                    line = {"error": f"reading failed: {type(e).__name__}: {e}"}
                out.write(json.dumps(line) + "\n")
                out.flush()
                if halt:
                    return
                wake += self.interval
                while time.monotonic() < wake and not halt:
                    time.sleep(min(0.05, max(0.0, wake - time.monotonic())))

    def stop(self) -> tuple:
        errors = []
        try:
            os.kill(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        deadline = time.monotonic() + 30
        while os.waitpid(self.pid, os.WNOHANG) == (0, 0):
            if time.monotonic() > deadline:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                errors.append("sampler did not stop in 30 s (a reading hung?); killed")
                break
            time.sleep(0.02)
        readings = []
        try:
            lines = self.path.read_text(errors="replace").splitlines()
        except OSError as e:
            lines, errors = [], errors + [f"sampler output unreadable: {e.strerror}"]
        for line in lines:
            try:
                item = json.loads(line)
            except ValueError:
                continue
            if "reading" in item:
                readings.append(item["reading"])
            elif len(errors) < 5:
                errors.append(str(item.get("error")))
        return {"": readings}, errors
