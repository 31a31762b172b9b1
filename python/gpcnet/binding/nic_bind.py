"""Which NIC a rank uses on a multi-NIC node, and the variables that make
its MPI use it (docs/running.md#multi-nic-nodes).

`gpcnet-bind` (gpcnet.bind_cli) runs this in every rank's process, between
the launcher and the benchmark: it reads the rank's local rank from the
launcher, picks one of the node's NICs, sets the per-process variables of
Open MPI, MPICH and UCX that restrict the rank to that NIC, records the
choice in GPCNET_NIC / GPCNET_NIC_INDEX for the benchmark's JSON, and
execs the benchmark. Nothing here imports more than the standard library
(and gpcnet's number_text and text_safe, which import only it): it runs
once per rank at start-up.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field

from gpcnet.text.number_text import WHOLE_MAX_DIGITS, whole_number
from gpcnet.text.text_safe import quote

# Where each launcher puts the rank's index among the ranks of its node,
# in the order they are tried: a launcher's own variable before Slurm's
# (mpirun inside an allocation inherits SLURM_LOCALID of its daemon).
LOCAL_RANK_VARS = (
    "OMPI_COMM_WORLD_LOCAL_RANK",   # Open MPI's mpirun and srun with its PMIx
    "MPI_LOCALRANKID",              # MPICH's Hydra (mpiexec)
    "PMI_LOCAL_RANK",               # PMI-2 launchers (Intel MPI, some Hydra versions)
    "PALS_LOCAL_RANKID",            # HPE Cray PALS (aprun/mpiexec on Cray EX)
    "SLURM_LOCALID",                # srun direct launch, whatever the MPI
)
LOCAL_SIZE_VARS = ("OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "PMI_LOCAL_SIZE")
SPLITTERS = ("rr", "nic", "socket", "numa")
MPIS = ("all", "openmpi", "mpich")
SYS = "/sys"


class BindError(Exception):
    """Refused: the message is one line; the caller exits 2."""


@dataclass
class Choice:
    nic: str                 # the name given to MPI (netdev, or HCA:port)
    index: int               # its place in the node's NIC list: the rail
    nics: list               # the node's NIC list
    how: str                 # what decided (for the record and the notes)
    notes: list = field(default_factory=list)


def _env_number(env, var: str):
    """The launcher's variable `var` as a whole number; None when unset or
    blank; BindError when set to anything but ASCII digits (at most 20):
    "²" passes str.isdigit() and int() refuses it."""
    value = env.get(var)
    if value is None or not value.strip():
        return None
    number = whole_number(value)
    if number is None:
        raise BindError(f"{var}={quote(value, 40)}: not a whole number (ASCII digits, at most "
                        f"{WHOLE_MAX_DIGITS}): is gpcnet-bind started by the launcher?")
    return number


def local_rank(env) -> int:
    for var in LOCAL_RANK_VARS:
        value = _env_number(env, var)
        if value is not None:
            return value
    raise BindError("no local rank from the launcher (none of " + ", ".join(LOCAL_RANK_VARS)
                    + " is set): start gpcnet-bind with mpirun, mpiexec or srun")


def local_size(env):
    for var in LOCAL_SIZE_VARS:
        value = _env_number(env, var)
        if value:
            return value
    # e.g. "4(x3),2": this node's is unknown
    return whole_number(env.get("SLURM_TASKS_PER_NODE")) or None


def host_netdevs(sys_root: str = SYS) -> list:
    """The host's network interfaces (lo left out), by name."""
    try:
        names = os.listdir(os.path.join(sys_root, "class", "net"))
    except OSError:
        return []
    return sorted(n for n in names if n != "lo")


def nic_exists(nic: str, sys_root: str = SYS) -> bool:
    """A netdev (eth1), or an RDMA device port as UCX names it (mlx5_0:1)."""
    if ":" in nic:
        dev, port = nic.split(":", 1)
        return bool(dev) and whole_number(port) is not None and os.path.isdir(
            os.path.join(sys_root, "class", "infiniband", dev, "ports", port))
    return bool(nic) and "/" not in nic and os.path.exists(os.path.join(sys_root, "class", "net", nic))


def node_nics(nics, nics_per_node, rank_label: str, sys_root: str = SYS) -> list:
    """The node's NIC list: the names given (each must exist here), or the
    first K of the host's interfaces."""
    if nics:
        missing = [n for n in nics if not nic_exists(n, sys_root)]
        if missing:
            have = ", ".join(host_netdevs(sys_root)) or "none"
            raise BindError(f"{rank_label}: NIC {missing[0]} is not on this host "
                            f"(its network interfaces: {have})")
        return list(nics)
    have = host_netdevs(sys_root)
    if nics_per_node > len(have):
        raise BindError(f"{rank_label}: --nics-per-node {nics_per_node} but this host has "
                        f"{len(have)} NIC(s) ({', '.join(have) or 'none'}): NIC index "
                        f"{len(have)} does not exist")
    return have[:nics_per_node]


def _cpu_list(text: str) -> set:
    cpus = set()
    for part in text.strip().split(","):
        if "-" in part:
            lo, hi = part.split("-", 1)
            cpus.update(range(int(lo), int(hi) + 1))
        elif part:
            cpus.add(int(part))
    return cpus


def _read(path: str):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def _sys_domain_of_cpu(cpu: int, kind: str, sys_root: str):
    base = os.path.join(sys_root, "devices", "system", "cpu", f"cpu{cpu}")
    if kind == "socket":
        v = _read(os.path.join(base, "topology", "physical_package_id"))
        if v is not None and v.strip().startswith("-"):   # -1: not known
            n = whole_number(v.strip()[1:])
            return -n if n is not None else None
        return whole_number(v)
    try:
        nodes = [e for e in os.listdir(base) if e.startswith("node") and whole_number(e[4:]) is not None]
    except OSError:
        return None
    return int(nodes[0][4:]) if nodes else None


def _sys_domain_of_nic(nic: str, kind: str, sys_root: str):
    dev = nic.split(":", 1)[0]
    cls = "infiniband" if ":" in nic else "net"
    base = os.path.join(sys_root, "class", cls, dev, "device")
    if kind == "numa":
        v = _read(os.path.join(base, "numa_node"))
        return whole_number(v)
    cpus = _read(os.path.join(base, "local_cpulist"))
    if not cpus:
        return None
    doms = {_sys_domain_of_cpu(c, "socket", sys_root) for c in _cpu_list(cpus)}
    return doms.pop() if len(doms) == 1 else None


def _hwloc_domains(args: list):
    """hwloc-calc's answer as a set of indices (None: no answer)."""
    try:
        out = subprocess.run(["hwloc-calc", *args], capture_output=True, text=True, timeout=20,
                             stdin=subprocess.DEVNULL).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return None
    try:
        return {int(x) for x in out.split(",") if x != ""} or None
    except ValueError:
        return None


def locality(nics: list, cpus: set, kind: str, sys_root: str = SYS, use_hwloc=None):
    """(the rank's domain or None, {nic: domain or None}, source) where a
    domain is a NUMA node (kind numa) or a package (kind socket). hwloc's
    view when hwloc-calc is installed, else /sys."""
    if use_hwloc is None:
        use_hwloc = sys_root == SYS and shutil.which("hwloc-calc") is not None
    obj = "numa" if kind == "numa" else "package"
    if use_hwloc:
        mine = _hwloc_domains(["--physical-input", "-I", obj] + [f"pu:{c}" for c in sorted(cpus)])
        of_nic = {}
        for nic in nics:
            d = _hwloc_domains(["-I", obj, f"os={nic.split(':', 1)[0]}"])
            of_nic[nic] = d.pop() if d and len(d) == 1 else None
        return (mine.pop() if mine and len(mine) == 1 else None), of_nic, "hwloc"
    doms = {_sys_domain_of_cpu(c, kind, sys_root) for c in cpus}
    mine = doms.pop() if len(doms) == 1 else None
    return mine, {n: _sys_domain_of_nic(n, kind, sys_root) for n in nics}, "/sys"


def choose(nics: list, lrank: int, splitter: str = "rr", lsize=None, cpus=None,
           sys_root: str = SYS, use_hwloc=None) -> Choice:
    """The NIC of local rank lrank. rr: round robin by local rank; nic:
    contiguous blocks of local ranks per NIC; socket/numa: a NIC of the
    rank's own socket or NUMA node (round robin among them). When the
    node's layout does not decide, round robin, said in notes."""
    k = len(nics)
    rr = Choice(nics[lrank % k], lrank % k, nics, "round robin by local rank")
    if splitter == "rr":
        return rr
    if splitter == "nic":
        if not lsize:
            rr.notes.append("--splitter nic: the launcher gives no ranks-per-node count; "
                            "round robin by local rank instead")
            return rr
        i = min(lrank * k // lsize, k - 1)
        return Choice(nics[i], i, nics, f"block {i} of {k} of the node's {lsize} ranks")
    cpus = cpus if cpus is not None else os.sched_getaffinity(0)
    mine, of_nic, source = locality(nics, cpus, splitter, sys_root, use_hwloc)
    if mine is None:
        rr.notes.append(f"--splitter {splitter}: the rank is not bound within one {splitter} "
                        f"({source}); round robin by local rank instead")
        return rr
    near = [i for i, n in enumerate(nics) if of_nic.get(n) == mine]
    if not near:
        rr.notes.append(f"--splitter {splitter}: no NIC of the list is on the rank's "
                        f"{splitter} {mine} ({source}); round robin by local rank instead")
        return rr
    i = near[lrank % len(near)]
    return Choice(nics[i], i, nics, f"{splitter} {mine} ({source})")


def mpi_variables(nic: str, mpi: str = "all") -> dict:
    """The per-process variables that restrict a rank's MPI to nic. A
    netdev (eth1) goes to the TCP paths and UCX; an RDMA port (mlx5_0:1)
    to UCX and libfabric's verbs provider."""
    netdev = ":" not in nic
    out = {}
    if mpi in ("all", "openmpi"):
        if netdev:
            out["OMPI_MCA_btl_tcp_if_include"] = nic   # btl tcp (ob1)
    if mpi in ("all", "mpich"):
        if netdev:
            out["FI_TCP_IFACE"] = nic                   # libfabric tcp provider
            out["FI_SOCKETS_IFACE"] = nic               # libfabric sockets provider
            out["FI_VERBS_IFACE"] = nic                 # verbs provider, by its IPoIB netdev
        else:
            out["FI_VERBS_DEVICE_NAME"] = nic.split(":", 1)[0]
    out["UCX_NET_DEVICES"] = nic                        # Open MPI's pml ucx, MPICH's ch4:ucx
    return out


def bound_environment(env, choice: Choice, mpi: str = "all") -> dict:
    """env with the rank's NIC set, for exec."""
    new = dict(env)
    new.update(mpi_variables(choice.nic, mpi))
    if "OMPI_MCA_btl_tcp_if_include" in new:
        # Open MPI refuses both include and exclude lists.
        new.pop("OMPI_MCA_btl_tcp_if_exclude", None)
    new["GPCNET_NIC"] = choice.nic
    new["GPCNET_NIC_INDEX"] = str(choice.index)
    new["GPCNET_NICS"] = ",".join(choice.nics)
    return new
