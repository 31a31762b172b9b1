"""A counter sampler run as a job: one node-side reader per application
node (`python3 -m gpcnet.study.counters --interval`, started through the
launcher with one rank per node), stopped by a stop file, then by signal.
The counter sources that read on the nodes (gpcnet.study.sources) build
on it: they give the reader's options and say what their readings are
recorded as. Kept light (no metric, no fabric parsing) because the
node-side reader imports its sources' names."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from gpcnet.study import procs


class JobSampler:
    """One sampler per node, started through the launcher (ppn 1); each
    node's readings are timed by its own clock (wall-clock seconds) and
    make intervals of their own. `reader_args`: the node-side reader's
    options (which counters it reads)."""

    def __init__(self, launcher, nodes: list, interval: float, workdir: Path, tag: str, duration: float,
                 reader_args: list = ()):
        self.launcher, self.nodes, self.source, self.scope, self.ptile_scope = launcher, nodes, None, None, None
        self.notes, self.fabric = [], None
        self.stop_file = workdir / f"stop-{tag}"
        self.out, self.err = workdir / f"{tag}.out", workdir / f"{tag}.err"
        self.cmd = launcher.job(nodes, [sys.executable, "-m", "gpcnet.study.counters", "--interval",
                                        f"{interval:g}", "--stop-file", launcher.child_path(self.stop_file),
                                        "--duration", f"{duration:g}", *reader_args], tag, ppn=1)
        self.proc = None

    def recorded_source(self, seen: set) -> str:
        """The run's counters.source, given the sources its readings named."""
        raise NotImplementedError

    def start(self) -> None:
        self.stop_file.unlink(missing_ok=True)
        self.proc = procs.spawn(self.cmd, self.launcher.env, self.out, self.err)

    def stop(self) -> tuple:
        procs.signal_stop(self.stop_file)
        try:
            self.proc.wait(timeout=10)
        except Exception:
            pass
        procs.stop(self.proc, 5)
        by_host, errors, seen = {}, [], set()
        try:
            lines = self.out.read_text(errors="replace").splitlines()
        except OSError as e:
            lines, errors = [], [f"sampler output unreadable: {e.strerror}"]
        for line in lines:
            try:
                r = json.loads(line)
                host = str(r["host"]).split(".")[0]
                by_host.setdefault(host, []).append({"time": float(r["time"]), "ports": dict(r["ports"]),
                                                     "basic": dict(r.get("basic") or {})})
                seen.add(r.get("source"))
            except (ValueError, KeyError, TypeError):
                continue
        missing = [n for n in self.nodes if n.split(".")[0] not in by_host]
        if missing:
            errors.append(f"no readings from {', '.join(missing[:5])} (sampler exit {self.proc.returncode}: "
                          + procs.tail(self.err) + ")")
        self.source = self.recorded_source(seen)
        return by_host, self.notes + errors
