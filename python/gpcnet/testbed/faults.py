"""`gpcnet testbed fault ...`: failures injected into the running testbed,
each one reversible and recorded, so that a test (or a user) can break
the emulated cluster mid-run and see what the benchmark does about it.

- link-down HOST|PORT: the link is down until cleared (a cable pulled):
  the switch side of it is set down, so the host's NIC loses its carrier
  and every packet on the link is lost, silently, in both directions.
- flap HOST|PORT SECONDS: the same for SECONDS, then up again; the command
  waits that long (a signal cuts it short and still brings the link up).
- kill-host HOST: every process in the host's namespaces gets SIGKILL (MPI
  ranks, daemons, slurmd and the holder of its /tmp, /dev/shm and /run,
  which go with it), as when a node dies. The host's kernel is this
  machine's and lives on: sockets of the dead processes are closed, so
  peers see the connections reset, as after a crash of every process
  rather than a power cut (add link-down for silence).
- degrade HOST|PORT [--percent P]: the link's rate cut to P % (default 1)
  in both directions (both ends' rate limiters).
- loss HOST|PORT PERCENT: that share of the packets dropped in both
  directions by netem; refused when the kernel has no netem.
- clear [TARGET]: undo the faults of TARGET (all without one); a killed
  host gets a new /tmp, /dev/shm and /run, and its slurmd when Slurm is up.

The faults are recorded in the state directory (faults.json), shown by
`gpcnet testbed status`; `down` removes them with everything else.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import signal
import sys
import time
from datetime import datetime, timezone

from gpcnet.infra import safe_write
from gpcnet.infra.errors import GpcnetError
from gpcnet.infra.signals import exit_code, ignoring_termination, terminate_as_interrupt
from gpcnet.testbed import launch, netns, routing, slurm, teardown
from gpcnet.testbed.launch import enter_host
from gpcnet.testbed.topology import Topology, format_rate

KINDS = ("link-down", "flap", "kill-host", "degrade", "loss")
MAX_FLAP_S = 3600.0


def faults_file():
    return netns.STATE_DIR / "faults.json"


def load() -> list:
    """The faults in force, oldest first ([] when none)."""
    try:
        return json.loads(faults_file().read_text())["faults"]
    except FileNotFoundError:
        return []
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise GpcnetError(f"{faults_file()}: unreadable fault record ({e}); "
                          "`gpcnet testbed down` removes it")


def _save(faults: list) -> None:
    safe_write.write_text(faults_file(), json.dumps({"faults": faults}, indent=1) + "\n", force=True)


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _shown(text) -> str:
    t = str(text)
    return repr(t if len(t) <= 40 else t[:40] + "...")


def _number(text, what: str, low: float, high: float, low_open: bool = True) -> float:
    """A finite number in (low, high] (or [low, high]), else one clear line."""
    try:
        v = float(str(text).strip())
    except ValueError:
        v = math.nan
    ok = math.isfinite(v) and (v > low if low_open else v >= low) and v <= high
    if not ok:
        raise GpcnetError(f"{what} {_shown(text)}: expected a number "
                          f"{'>' if low_open else '>='} {low:g} and at most {high:g}")
    return v


def _host(topo: Topology, name: str):
    for h in topo.hosts:
        if h.name == name:
            return h
    raise GpcnetError(f"unknown host {_shown(name)} (hosts: {topo.hosts[0].name} to "
                      f"{topo.hosts[-1].name})")


def _link(topo: Topology, target: str):
    """(canonical name, link) of a host's data link or of a switch port's
    link. The canonical name is the host name, or the leaf side of an uplink."""
    for h in topo.hosts:
        if target == h.name:
            return h.name, next(l for l in topo.links if l.a.ns == h.ns)
    for link in topo.links:
        for p in (link.a, link.b):
            if p.ns == topo.fabric_ns and p.ifname == target:
                if link.a.tier == "host" and link.a.ifname == "data0":
                    return next(h.name for h in topo.hosts if h.ns == link.a.ns), link
                if link.a.tier == "host":
                    return link.b.ifname, link   # another NIC of a multi-NIC host: its port
                return link.a.ifname, link
    edges = [l.b.ifname for l in topo.links if l.b.tier == "edge"]
    ports = [edges[0], edges[-1]]
    ups = [l.a.ifname for l in topo.links if l.a.tier == "uplink"]
    raise GpcnetError(f"unknown host or switch port {_shown(target)} (hosts {topo.hosts[0].name} "
                      f"to {topo.hosts[-1].name}, host ports {ports[0]} to {ports[1]}"
                      + (f", uplink ports such as {ups[0]}" if ups else "") + ")")


def _label(port) -> str:
    return f"{port.switch}/{port.ifname}" if port.switch else f"{port.ns[4:]}/{port.ifname}"


def _set_state(topo: Topology, link, state: str) -> None:
    """Switch side(s) of the link down or up (a host NIC follows by carrier)."""
    ports = [p.ifname for p in (link.a, link.b) if p.ns == topo.fabric_ns]
    with netns._iproute(topo.fabric_ns) as ipr:
        for port in ports:
            ipr.link("set", index=ipr.link_lookup(ifname=port)[0], state=state)
        if topo.routing == "ecmp":
            # Routers: withdraw the paths through the cut link, or put them back.
            routing.reroute(ipr, topo)


def _requeue(topo: Topology, link, faults: list) -> None:
    """Rebuild both ends' queues of the link from the testbed's settings
    and the degrade/loss faults in force on it."""
    name = _canonical_of(topo, link)
    rate_pct = next((f["percent"] for f in faults if f["kind"] == "degrade" and f["target"] == name), None)
    loss = next((f["percent"] for f in faults if f["kind"] == "loss" and f["target"] == name), 0.0)
    for p in (link.a, link.b):
        port = p
        if rate_pct is not None and p.rate:
            port = dataclasses.replace(p, rate=max(8000, int(p.rate * rate_pct / 100)))
        with netns._iproute(p.ns) as ipr:
            idx = ipr.link_lookup(ifname=p.ifname)[0]
            if any(m.get("parent") == 0xFFFFFFFF for m in ipr.get_qdiscs(index=idx)):
                ipr.tc("del", index=idx, root=True)
            if p.tier == "host" and not (port.rate or port.delay or loss):
                continue    # a host NIC without rate or delay has the kernel's default queue
            netns._add_qdiscs(ipr, port, topo, loss=loss)


def _canonical_of(topo: Topology, link) -> str:
    if link.a.tier == "host":
        return next(h.name for h in topo.hosts if h.ns == link.a.ns)
    return link.a.ifname


def _netem_works(topo: Topology) -> bool:
    """Whether this kernel has netem: try it on the fabric's own loopback
    (nothing uses it) and take it away again."""
    # deferred: pyroute2 only where a testbed is changed (gpcnet imports without it)
    from pyroute2.netlink.exceptions import NetlinkError
    with netns._iproute(topo.fabric_ns) as ipr:
        idx = ipr.link_lookup(ifname="lo")[0]
        try:
            ipr.tc("add", "netem", idx, handle="1:", loss=1)
        except NetlinkError:
            return False
        ipr.tc("del", index=idx, root=True)
    return True


def _refuse_twice(faults: list, kind: str, target: str) -> None:
    if any(f["kind"] == kind and f["target"] == target for f in faults):
        raise GpcnetError(f"{target} already has a {kind} fault; "
                          f"`gpcnet testbed fault clear {target}` first")


def _kill_host(topo: Topology, host) -> int:
    pids = teardown.processes_inside([host.ns])
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    end = time.monotonic() + 10
    while time.monotonic() < end and teardown.processes_inside([host.ns]):
        time.sleep(0.05)
    return len(pids)


def _revive_host(topo: Topology, host) -> None:
    netns.start_holder(host.name, host.ns)
    if slurm.paths()["conf"].exists():
        slurm._start(enter_host(host.name) + [slurm._need("slurmd"), "-f", str(slurm.paths()["conf"])],
                     f"slurmd on {host.name}")


def _undo(topo: Topology, fault: dict, remaining: list) -> None:
    kind, target = fault["kind"], fault["target"]
    if kind in ("link-down", "flap"):
        _set_state(topo, _link(topo, target)[1], "up")
    elif kind == "kill-host":
        _revive_host(topo, _host(topo, target))
    else:
        _requeue(topo, _link(topo, target)[1], remaining)


def describe(fault: dict) -> str:
    """One line for `status`."""
    return f"{fault['kind']} {fault['target']}: {fault['detail']} (since {fault['since']})"


def cmd_fault(args) -> int:
    netns.require_root("gpcnet testbed fault")
    topo = launch.current()
    lock = netns.change_lock()  # noqa: F841 (one change of the testbed at a time)
    faults = load()
    kind = args.fault_kind
    if kind == "clear":
        return _clear(topo, faults, args.target)
    if kind == "list":
        sys.stdout.write("".join(describe(f) + "\n" for f in faults) or "no faults\n")
        return 0
    if kind == "kill-host":
        host = _host(topo, args.target)
        target, link = host.name, None
    else:
        target, link = _link(topo, args.target)
    record = {"kind": kind, "target": target, "since": _now()}
    if kind == "flap":
        seconds = _number(args.seconds, "flap duration", 0, MAX_FLAP_S)
        _refuse_twice(faults, "link-down", target)
        _refuse_twice(faults, "flap", target)
        record.update(seconds=seconds, detail=f"link down for {seconds:g} s, then up")
    elif kind == "link-down":
        _refuse_twice(faults, "link-down", target)
        _refuse_twice(faults, "flap", target)
        record["detail"] = "link down (" + ", ".join(_label(p) for p in (link.a, link.b)) + ")"
    elif kind == "kill-host":
        _refuse_twice(faults, kind, target)
    elif kind == "degrade":
        pct = _number(args.percent, "--percent", 0, 100)
        _refuse_twice(faults, kind, target)
        rates = [p.rate for p in (link.a, link.b) if p.rate]
        if not rates:
            raise GpcnetError(f"the link of {target} has no rate limit (testbed up with --host-rate "
                              "none, or an untapered uplink without one): nothing to cut")
        record.update(percent=pct, detail=f"rate {format_rate(max(8000, int(rates[0] * pct / 100)))} "
                                           f"({pct:g}% of {format_rate(rates[0])}) both ways")
    elif kind == "loss":
        pct = _number(args.percent, "loss", 0, 100)
        _refuse_twice(faults, kind, target)
        if not _netem_works(topo):
            raise GpcnetError("this kernel has no netem (sch_netem): packet loss cannot be "
                              "emulated on this machine")
        record.update(percent=pct, detail=f"{pct:g}% of packets dropped both ways (netem)")

    # Recorded before it is done: a crash midway leaves a record that
    # `clear` can undo (and `down` removes everything anyway).
    _save(faults + [record])
    if kind in ("link-down", "flap"):
        _set_state(topo, link, "down")
    elif kind == "kill-host":
        n = _kill_host(topo, host)
        record["detail"] = f"{n} processes killed (SIGKILL); its /tmp, /dev/shm and /run are gone"
        _save(faults + [record])
    else:
        _requeue(topo, link, faults + [record])
    if kind != "flap":
        print(f"fault: {describe(record)}")
        return 0
    del lock
    return _flap(topo, target, link, seconds)


def _flap(topo: Topology, target: str, link, seconds: float) -> int:
    print(f"fault: flap {target}: link down for {seconds:g} s", flush=True)
    code = 0
    try:
        with terminate_as_interrupt():
            time.sleep(seconds)
    except KeyboardInterrupt as e:
        code = exit_code(e)
    with ignoring_termination():
        lock = netns.change_lock()  # noqa: F841
        if netns.load_state() is None:
            print(f"fault: flap {target}: the testbed went down meanwhile")
            return code
        _set_state(topo, link, "up")
        _save([f for f in load() if not (f["kind"] == "flap" and f["target"] == target)])
    print(f"fault: flap {target}: link up again")
    return code


def _clear(topo: Topology, faults: list, target) -> int:
    if target is None:
        chosen = faults
    else:
        if any(h.name == target for h in topo.hosts):
            name = target
        else:
            name = _link(topo, target)[0]
        chosen = [f for f in faults if f["target"] == name]
        if not chosen:
            raise GpcnetError(f"no fault on {name} "
                              f"(faults on: {', '.join(sorted({f['target'] for f in faults})) or 'nothing'})")
    if not chosen:
        print("no faults")
        return 0
    remaining = list(faults)
    for f in chosen:
        remaining.remove(f)
        _undo(topo, f, remaining)
        _save(remaining)
        print(f"cleared: {f['kind']} {f['target']}")
    return 0


def add_parser(tsub) -> None:
    p = tsub.add_parser(
        "fault", help="inject a fault (link down or flapping, host killed, degraded or lossy link)",
        description="Break the running testbed on purpose, e.g. mid-run, and undo it with "
                    "`fault clear`. Faults are shown by `gpcnet testbed status` and removed by "
                    "`down`. A HOST|PORT is a host (its data link) or a switch port (d3, l0s1, ...: "
                    "its link). See docs/testbed.md#faults.")
    fsub = p.add_subparsers(dest="fault_kind", metavar="FAULT", required=True)
    q = fsub.add_parser("link-down", help="a link down until cleared (both directions lost)")
    q.add_argument("target", metavar="HOST|PORT")
    q = fsub.add_parser("flap", help="a link down for SECONDS, then up (waits that long)")
    q.add_argument("target", metavar="HOST|PORT")
    q.add_argument("seconds", metavar="SECONDS")
    q = fsub.add_parser("kill-host", help="SIGKILL every process of a host (node dies)")
    q.add_argument("target", metavar="HOST")
    q = fsub.add_parser("degrade", help="a link's rate cut to --percent (default 1) both ways")
    q.add_argument("target", metavar="HOST|PORT")
    q.add_argument("--percent", default="1", metavar="P", help="new rate in %% of the old (default: 1)")
    q = fsub.add_parser("loss", help="PERCENT of a link's packets dropped both ways (needs netem)")
    q.add_argument("target", metavar="HOST|PORT")
    q.add_argument("percent", metavar="PERCENT")
    q = fsub.add_parser("clear", help="undo the faults of HOST|PORT (all without one)")
    q.add_argument("target", nargs="?", metavar="HOST|PORT")
    q = fsub.add_parser("list", help="the faults in force")
    p.set_defaults(func=cmd_fault)
