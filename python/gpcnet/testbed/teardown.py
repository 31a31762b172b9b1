"""Taking the testbed down: every process living in its namespaces, the
mounts keeping its hosts' names, the namespaces (with their links and
bridges) and its state files, on a whole, half-built or crashed testbed
alike. Apart from netns.py, which builds it."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from gpcnet.infra.errors import GpcnetError
from gpcnet.testbed import class_marking
from gpcnet.testbed.netns import STATE_DIR, leftovers, load_state
from gpcnet.testbed.topology import Topology


def _netns_inodes(names) -> set:
    inodes = set()
    for n in names:
        try:
            inodes.add(os.stat(f"/run/netns/{n}").st_ino)
        except OSError:
            pass
    return inodes


def processes_inside(names) -> list:
    """PIDs of every process living in one of these network namespaces
    (the hosts' holders, daemons and jobs)."""
    inodes = _netns_inodes(names)
    pids = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            if os.stat(d / "ns" / "net").st_ino in inodes:
                pids.append(int(d.name))
        except OSError:
            pass
    return pids


def our_mounts() -> list:
    """Mount points of this machine's namespace under the state directory
    (the bind mounts keeping the hosts' UTS namespaces), deepest first."""
    found = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            target = line.split()[4].replace("\\040", " ")
            if target == str(STATE_DIR) or target.startswith(f"{STATE_DIR}/"):
                found.append(target)
    return sorted(set(found), key=lambda t: (-t.count("/"), t))


def _kill_all(pids: list, grace: float = 5.0) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        end = time.monotonic() + grace
        while time.monotonic() < end and any(Path(f"/proc/{p}").exists() for p in pids):
            time.sleep(0.1)


def destroy() -> list:
    """Remove every process, namespace (with its links and bridges), mount
    and file of the testbed; works on a half-built or crashed one too.
    Returns the namespaces removed."""
    # deferred: pyroute2 only where a testbed is removed (gpcnet imports without it)
    from pyroute2 import netns
    names = set(leftovers())
    st = None
    try:
        st = load_state()
    except GpcnetError:
        pass
    if st:
        names |= set(Topology.from_dict(st["topology"]).namespaces())
    _kill_all(processes_inside(names))
    # The traffic classes' cgroups (ours by name, recorded or not): their
    # processes ended, the cgroups and their marking programs removed.
    class_marking.remove(((st or {}).get("topology") or {}).get("classes", {}).get("cgroup"))
    class_marking.remove()
    for target in our_mounts():
        subprocess.run(["umount", "-n", "-l", target], capture_output=True, stdin=subprocess.DEVNULL)
    removed = []
    for n in sorted(names):
        if n in netns.listnetns():
            netns.remove(n)
            removed.append(n)
    shutil.rmtree(STATE_DIR, ignore_errors=True)
    return removed
