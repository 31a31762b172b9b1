"""Creating and removing the testbed: namespaces, veth links, bridges,
addresses and queues, through netlink (pyroute2).

Layout: one network namespace per host (its own host name through a UTS
namespace kept by a bind mount, and its own /tmp, /dev/shm and /run
through a mount namespace held by one sleeping process), one "head" host
for the launcher and the Slurm controller, and one "fabric" network
namespace holding every switch (a Linux bridge) and the switch side of
every link. Nothing is created outside these namespaces: no address,
route, link or mount in the machine's own namespaces (only the bind mounts
that keep the namespaces, under the state directory).
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import subprocess
import time
from pathlib import Path

from gpcnet.infra import safe_write
from gpcnet.infra.errors import GpcnetError
from gpcnet.testbed import class_marking, classes, rails, routing, shapes
from gpcnet.testbed.topology import (DATA_PREFIX, MGMT_PREFIX, Topology)

STATE_DIR = Path(os.environ.get("GPCNET_TESTBED_DIR", "/run/gpcnet-testbed"))
OUR_NS = re.compile(r"^gtb-(fabric|head|node\d+)$")
TBF_BURST = 96 * 1024   # above a 64 KiB GSO packet, or tbf drops it silently
NUD_NOARP, NTF_MASTER = 0x40, 0x04


def change_lock():
    """Held while the testbed is built, changed or removed: one change at a
    time on this machine. Opened without following a link (we run as root);
    the returned file keeps the lock until it is closed or we exit."""
    fd = os.open("/run/gpcnet-testbed.lock",
                 os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    f = os.fdopen(fd, "w")
    fcntl.flock(f, fcntl.LOCK_EX)
    return f


def require_root(action: str) -> None:
    if os.geteuid() != 0:
        raise GpcnetError(f"{action} needs root (network namespaces, links and queues); "
                          "run it with sudo")


def state_file() -> Path:
    return STATE_DIR / "state.json"


def load_state():
    """The running testbed's topology, or None when there is none."""
    try:
        d = json.loads(state_file().read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise GpcnetError(f"{state_file()}: unreadable testbed state ({e}); "
                          "`gpcnet testbed down` removes it")
    return d


def owner() -> str | None:
    """Whom the running testbed belongs to: the GPCNET_TESTBED_OWNER of
    the `up` that built it (scripts and test runs sharing a machine set it,
    so that each removes only its own testbed), or None."""
    label = "".join(c for c in os.environ.get("GPCNET_TESTBED_OWNER", "") if c.isprintable())
    return label.strip()[:200] or None


def leftovers() -> list:
    """Namespaces of a testbed (ours by name), whether or not a state file exists."""
    # deferred: pyroute2 only where a testbed is built or read (gpcnet imports without it)
    from pyroute2 import netns
    return sorted(n for n in netns.listnetns() if OUR_NS.match(n))


def uts_file(host: str) -> Path:
    return STATE_DIR / "uts" / host


def holder_file(host: str) -> Path:
    """'PID mnt:[INODE]' of the process holding the host's mount namespace."""
    return STATE_DIR / "hosts" / host


def mnt_path(host: str) -> str:
    """/proc/PID/ns/mnt of the host's holder, checked to be that namespace
    still (a PID can be reused once its process is gone)."""
    try:
        pid, ident = holder_file(host).read_text().split()
        alive = os.readlink(f"/proc/{pid}/ns/mnt") == ident
    except (OSError, ValueError):
        alive = False
    if not alive:
        raise GpcnetError(f"testbed host {host} is down (the process holding its /tmp, /dev/shm "
                          "and /run is gone); `gpcnet testbed down` removes what is left")
    return f"/proc/{pid}/ns/mnt"


# Directories every host has to itself, as on a real node: MPI libraries,
# PMIx and UCX keep per-job sockets, session directories and shared-memory
# segments there under names that would collide across "hosts".
PRIVATE_DIRS = ("/tmp", "/dev/shm", "/run")

# Run by a host's holder in its new mount namespace (private propagation):
# a fresh tmpfs on each private directory, and the host's own /sys. The new
# /run is assembled under the (already private) /tmp and moved into place,
# with /run/netns and the state directory bound back in: they are the
# cluster's "shared filesystem" (agent, Slurm configuration, munge socket,
# spool). Then the holder sleeps: the namespace lives as long as it does.
_HOST_HOLDER = r"""
set -e
exec 2>&1
state="$1"
mount -n -t tmpfs -o mode=1777 gtb-tmp /tmp
mount -n -t tmpfs -o mode=1777 gtb-shm /dev/shm
stage=/tmp/.gtb-run
mkdir "$stage"
mount -n -t tmpfs -o mode=755 gtb-run "$stage"
for keep in /run/netns "$state"; do
    case "$keep" in /run/*) ;; *) continue ;; esac
    mkdir -p "$stage${keep#/run}"
    mount -n --rbind "$keep" "$stage${keep#/run}"
done
mount -n --move "$stage" /run
rmdir "$stage"
# A sysfs of its own too: /sys/class/net then lists this host's NICs (UCX
# finds data0 there), not the machine's.
stage=/tmp/.gtb-sys
mkdir "$stage"
mount -n -t sysfs gtb-sys "$stage"
if mountpoint -q /sys/fs/cgroup; then mount -n --rbind /sys/fs/cgroup "$stage/fs/cgroup"; fi
mount -n --move "$stage" /sys
rmdir "$stage"
echo ready
exec sleep infinity
"""


def _iproute(ns: str):
    from pyroute2 import IPRoute  # deferred: as in leftovers
    return IPRoute(netns=ns)


def _set_hostname(name: str) -> None:
    # A UTS namespace kept alive by bind-mounting it on a file: commands
    # entered with `nsenter --uts=FILE` see this host name.
    f = uts_file(name)
    f.parent.mkdir(parents=True, exist_ok=True)
    f.touch()
    subprocess.run(["unshare", f"--uts={f}", "hostname", name], check=True,
                   stdin=subprocess.DEVNULL, capture_output=True)


def _private_mounts(topo: Topology) -> None:
    """A mount namespace per host (and the head) with private /tmp,
    /dev/shm and /run, held by one sleeping process in the host's network,
    UTS and mount namespaces: everything run "on" the host enters it by
    /proc/PID/ns/mnt, which (unlike a bind-mounted namespace file) every
    host sees. `down` kills the holders with everything else in the
    testbed's network namespaces, and the mounts go with the namespaces."""
    (STATE_DIR / "hosts").mkdir(parents=True, exist_ok=True)
    for name, ns in [(topo.head_name, topo.head_ns)] + [(h.name, h.ns) for h in topo.hosts]:
        start_holder(name, ns)


def start_holder(name: str, ns: str) -> None:
    """Give host name (network namespace ns) a fresh mount namespace with
    its own /tmp, /dev/shm and /run, held by a new sleeping process (also
    how a killed host comes back: gpcnet testbed fault clear)."""
    holder = subprocess.Popen(
        ["nsenter", f"--net=/run/netns/{ns}", f"--uts={uts_file(name)}", "--",
         "unshare", "--mount", "--propagation", "private", "--",
         "/bin/sh", "-c", _HOST_HOLDER, "gtb-host", str(STATE_DIR)],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        start_new_session=True, text=True)
    first = holder.stdout.readline()
    if first.strip() != "ready":
        rest = holder.stdout.read()
        holder.wait()
        raise GpcnetError(f"{name}: private /tmp, /dev/shm and /run failed: "
                          f"{(first + rest).strip()[-300:]}")
    holder.stdout.close()
    holder.returncode = 0   # left running on purpose: it holds the host's namespace
    ident = os.readlink(f"/proc/{holder.pid}/ns/mnt")
    safe_write.write_text(holder_file(name), f"{holder.pid} {ident}\n", force=True)


def _tc(ipr, port, kind, idx, **kw) -> None:
    from pyroute2.netlink.exceptions import NetlinkError  # deferred: as in leftovers
    try:
        ipr.tc("add", kind, idx, **kw)
    except NetlinkError as e:
        if e.code == 2:  # ENOENT: the kernel has no such queueing discipline
            raise GpcnetError(f"this kernel has no {kind!r} queueing discipline (sch_{kind}); "
                              "choose another --qdisc or no delay") from None
        raise GpcnetError(f"{port.ns}/{port.ifname}: cannot add {kind} queue: {e}") from None


def _add_qdiscs(ipr, port, topo: Topology, loss: float = 0.0) -> None:
    """Delay and loss (netem), then rate (tbf), then the queue: root 1: ->
    2: -> 3:. loss (percent of packets dropped) is an injected fault."""
    idx = ipr.link_lookup(ifname=port.ifname)[0]
    queue_bytes = max(topo.queue * 1514, TBF_BURST)
    parent = None
    handle = 1
    if port.delay or loss:
        _tc(ipr, port, "netem", idx, handle=f"{handle}:", delay=port.delay, loss=loss, limit=100000)
        parent, handle = f"{handle}:1", handle + 1
    if port.rate and not (topo.classes and port.tier != "host"):
        kw = dict(rate=port.rate // 8, burst=TBF_BURST, limit=queue_bytes)
        if parent:
            kw["parent"] = parent
        _tc(ipr, port, "tbf", idx, handle=f"{handle}:", **kw)
        parent, handle = f"{handle}:1", handle + 1
    if port.rate and port.tier != "host" and topo.classes:
        # The class scheduler takes the place of tbf and the queue: it must
        # hold the backlog to choose among the classes (classes.py).
        classes.add_scheduler(port, port.rate, parent, handle, topo, TBF_BURST)
        return
    # Host NICs get a plain FIFO; the chosen discipline is on switch ports.
    kind = "pfifo" if port.tier == "host" else topo.qdisc
    kw = {"handle": f"{handle}:"}
    if parent:
        kw["parent"] = parent
    if kind == "pfifo":
        kw["limit"] = topo.queue
    elif kind == "fq_codel":
        kw.update(fqc_limit=topo.queue, fqc_ecn=1 if topo.ecn else 0)
    elif kind == "codel":
        kw.update(cdl_limit=topo.queue, cdl_ecn=1 if topo.ecn else 0)
    _tc(ipr, port, kind, idx, **kw)


def create(topo: Topology) -> None:
    """Build the whole testbed. The state file is written first, so that a
    crash midway leaves something `down` knows how to remove."""
    # deferred: pyroute2 only where a testbed is built or read (gpcnet imports without it)
    from pyroute2 import netns
    STATE_DIR.mkdir(parents=True, exist_ok=True)
    safe_write.write_text(state_file(), json.dumps({"status": "creating", "owner": owner(), "topology": topo.to_dict()}), force=True)
    for ns in topo.namespaces():
        netns.create(ns)
    for ns in topo.namespaces():
        with _iproute(ns) as ipr:
            ipr.link("set", index=ipr.link_lookup(ifname="lo")[0], state="up")
    for h in topo.hosts:
        _set_hostname(h.name)
    _set_hostname(topo.head_name)
    _private_mounts(topo)

    fab = topo.fabric_ns
    with _iproute(fab) as ipr:
        # --routing static: every switch a bridge; ecmp: a router (its ports stand alone).
        bridges = ["mgmt"] + (topo.switches if topo.routing == "static" else [])
        for br in bridges:
            ipr.link("add", ifname=br, kind="bridge", br_stp_state=0, br_forward_delay=0)
        # Management: one flat, unlimited switch; every host and the head on it.
        ends = [(h.ns, f"m{h.number}", h.mgmt_ip) for h in topo.hosts]
        ends.append((topo.head_ns, "mhead", topo.head_ip))
        for ns, port, ip in ends:
            ipr.link("add", ifname=port, kind="veth", peer={"ifname": "mgmt0", "net_ns_fd": ns})
            ipr.link("set", index=ipr.link_lookup(ifname=port)[0],
                     master=ipr.link_lookup(ifname="mgmt")[0], state="up")
            with _iproute(ns) as hipr:
                i = hipr.link_lookup(ifname="mgmt0")[0]
                hipr.addr("add", index=i, address=ip, prefixlen=MGMT_PREFIX)
                hipr.link("set", index=i, state="up")
        # Data fabric: every NIC of every host to its leaf.
        for h in topo.hosts:
            for nic in h.nics:
                ipr.link("add", ifname=nic.port, kind="veth", peer={"ifname": nic.ifname, "net_ns_fd": h.ns})
                _switch_port(ipr, nic.port, nic.leaf, topo)
                with _iproute(h.ns) as hipr:
                    i = hipr.link_lookup(ifname=nic.ifname)[0]
                    hipr.link("set", index=i, address=nic.mac)
                    hipr.addr("add", index=i, address=nic.ip, prefixlen=DATA_PREFIX)
                    hipr.link("set", index=i, state="up")
            if len(h.nics) > 1:
                rails.host_routing(h)
        for link in topo.links:
            if link.a.tier != "uplink":
                continue
            ipr.link("add", ifname=link.a.ifname, kind="veth", peer={"ifname": link.b.ifname})
            for p in (link.a, link.b):
                _switch_port(ipr, p.ifname, p.switch, topo)
        if topo.routing == "ecmp":
            routing.apply(ipr, fab, routing.plan(topo))
        else:
            _apply_forwarding(ipr, shapes.get(topo.kind).forwarding(topo))
        for br in bridges:
            ipr.link("set", index=ipr.link_lookup(ifname=br)[0], state="up")
        for link in topo.links:
            for p in (link.a, link.b):
                if p.ns == fab:
                    _add_qdiscs(ipr, p, topo)
    for link in topo.links:
        if link.a.tier == "host" and (link.a.rate or link.a.delay):
            with _iproute(link.a.ns) as hipr:
                _add_qdiscs(hipr, link.a, topo)
    if topo.classes:
        topo.classes["cgroup"] = class_marking.create(topo.classes)
    safe_write.write_text(state_file(), json.dumps({"status": "up", "owner": owner(), "topology": topo.to_dict()}), force=True)


def _switch_port(ipr, port: str, switch: str, topo: Topology) -> None:
    """Up, and a port of its bridge under --routing static (under ecmp a
    router's port: routing.apply gives it its rule, address and routes)."""
    kw = {"master": ipr.link_lookup(ifname=switch)[0]} if topo.routing == "static" else {}
    ipr.link("set", index=ipr.link_lookup(ifname=port)[0], state="up", **kw)


def _apply_forwarding(ipr, fwd) -> None:
    """The shape's forwarding (gpcnet.testbed.shapes.base.Forwarding): its
    trunk ports set to neither learn nor flood (unless flood), then its
    static entries."""
    for name, flood in fwd.ports.items():
        ipr.brport("set", index=ipr.link_lookup(ifname=name)[0], learning=0,
                   unicast_flood=flood, mcast_flood=flood, bcast_flood=flood)
    for port, mac in fwd.entries:
        ipr.fdb("add", ifindex=ipr.link_lookup(ifname=port)[0], lladdr=mac,
                state=NUD_NOARP, flags=NTF_MASTER)
