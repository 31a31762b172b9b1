"""Counters sampled while the application runs, every --counter-interval
seconds, and the run's record of them (series and stall metric).

Two ways to sample: in this process (the testbed's switch queues, which
live on this host; the local launcher's one host) or as a job of one
sampler per application node (`python3 -m gpcnet.study.counters
--interval`, mpirun/srun), stopped by a stop file, then by signal.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

from gpcnet.study import stall

COUNTER_NAMES = {"testbed-tc": ("overlimits", "packets"),
                 "infiniband-switch": ("PortXmitWait", "PortXmitData"),
                 "infiniband-hca": ("port_xmit_wait", "port_xmit_data"),
                 "none": (None, None)}


class ThreadSampler:
    """Calls read() now, every `interval` seconds, and once more at stop();
    its readings are timed by this host's clock, as the run is."""
    same_clock = True

    def __init__(self, read, interval: float, source: str, scope: dict | None):
        self.read, self.interval, self.source, self.scope = read, interval, source, scope
        self.readings, self.errors = [], []
        self._halt = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _take(self) -> None:
        try:
            self.readings.append(self.read())
        except Exception as e:   # a reading that failed is a gap in the series, said in the record
            if len(self.errors) < 5:
                self.errors.append(f"reading failed: {type(e).__name__}: {e}")

    def _loop(self) -> None:
        while not self._halt.wait(self.interval):
            self._take()

    def start(self) -> None:
        self._take()
        self._thread.start()

    def stop(self) -> tuple:
        self._halt.set()
        self._thread.join()
        self._take()
        return {"": self.readings}, self.errors


class JobSampler:
    """One sampler per node, started through the launcher (ppn 1); each
    node's readings are timed by its own clock."""
    same_clock = False

    def __init__(self, launcher, nodes: list, interval: float, workdir: Path, tag: str, duration: float):
        self.launcher, self.nodes, self.source, self.scope = launcher, nodes, None, None
        self.stop_file = workdir / f"stop-{tag}"
        self.out, self.err = workdir / f"{tag}.out", workdir / f"{tag}.err"
        self.cmd = launcher.job(nodes, [sys.executable, "-m", "gpcnet.study.counters", "--interval",
                                        f"{interval:g}", "--stop-file", str(self.stop_file),
                                        "--duration", f"{duration:g}"], tag, ppn=1)
        self.proc = None

    def start(self) -> None:
        from gpcnet.study import runner
        self.stop_file.unlink(missing_ok=True)
        self.proc = runner._spawn(self.cmd, self.launcher.env, self.out, self.err)

    def stop(self) -> tuple:
        from gpcnet.study import runner
        runner._signal_stop(self.stop_file)
        try:
            self.proc.wait(timeout=10)
        except Exception:
            pass
        runner._stop(self.proc, 5)
        by_host, errors, sources = {}, [], set()
        try:
            lines = self.out.read_text(errors="replace").splitlines()
        except OSError as e:
            lines, errors = [], [f"sampler output unreadable: {e.strerror}"]
        for line in lines:
            try:
                r = json.loads(line)
                host = str(r["host"]).split(".")[0]
                by_host.setdefault(host, []).append({"time": float(r["time"]), "ports": dict(r["ports"])})
                sources.add(r.get("source", "none"))
            except (ValueError, KeyError, TypeError):
                continue
        missing = [n for n in self.nodes if n.split(".")[0] not in by_host]
        if missing:
            errors.append(f"no readings from {', '.join(missing[:5])} (sampler exit {self.proc.returncode}: "
                          + runner._tail(self.err) + ")")
        real = sources - {"none"}
        self.source = ("infiniband-switch" if "infiniband-switch" in real else
                       "infiniband-hca" if real else "none")
        return by_host, errors


def node_scope(by_host: dict) -> dict:
    """Every port the application's nodes reported (HOST/DEV/PORT, or
    HOST/DEV/PORT@switchLID/PORT): a switch port's router is its switch,
    an adapter port's its node (its switch is not known)."""
    scope = {}
    for readings in by_host.values():
        for r in readings:
            for port in r["ports"]:
                router = port.split("@", 1)[1].split("/", 1)[0] if "@" in port else port.split("/", 1)[0]
                scope.setdefault(port, {"router": router})
    return scope


def merge(per_host: list) -> list:
    """Intervals of several nodes (each timed by its own clock) side by side:
    the k-th interval of every node together."""
    out = []
    for k in range(max((len(s) for s in per_host), default=0)):
        ivs = [s[k] for s in per_host if k < len(s)]
        rates = {}
        for iv in ivs:
            rates.update(iv["rates"])
        out.append({"t": max(iv["t"] for iv in ivs), "dt": max(iv["dt"] for iv in ivs), "rates": rates})
    return out


def record(sampler, app_start: float, interval: float, threshold: float) -> dict:
    """Stop `sampler` and turn its readings into the run's counter record."""
    by_host, errors = sampler.stop()
    scope = sampler.scope if sampler.scope is not None else node_scope(by_host)
    series = merge([stall.intervals(rs, app_start if sampler.same_clock else rs[0]["time"])
                    for rs in by_host.values() if rs])
    stall.add_means(series, scope)
    stall_name, flit_name = COUNTER_NAMES[sampler.source]
    return {"source": sampler.source, "stall_counter": stall_name, "flit_counter": flit_name,
            "interval_s": interval, "stall_threshold": threshold, "ports": scope, "series": series,
            "metric": stall.stall_ratio(series, scope, threshold), "errors": errors}


def local_reader():
    """The local launcher's one host: its adapters (or their switch ports)."""
    from gpcnet.study import counters
    root = os.environ.get("GPCNET_SYS_ROOT", "/sys")
    switch_ports = counters.find_switch_ports(counters.sample(root))
    first = counters.reading(root, switch_ports)
    return (lambda: counters.reading(root, switch_ports)), first["source"]
