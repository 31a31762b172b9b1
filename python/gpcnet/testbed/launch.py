"""Launching MPI jobs on the testbed hosts.

mpirun runs in the head namespace (on the management network) and starts
one daemon per host through an rsh-style agent that enters the host's
network and UTS namespaces, as ssh would log in to a real node. The
daemons talk over the management network; MPI traffic goes over the data
fabric only.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess

from gpcnet import safe_write
from gpcnet.errors import GpcnetError
from gpcnet.testbed import netns
from gpcnet.testbed.topology import DATA_CIDR, MGMT_CIDR, Topology

AGENT = """#!/bin/sh
# rsh-style agent of the gpcnet testbed: run a command on a testbed host by
# entering its network and UTS namespaces (what ssh would do on a cluster).
while [ $# -gt 0 ]; do
    case "$1" in -*) shift ;; *) break ;; esac   # ssh-style options: none apply
done
host="$1"; shift
case " {hosts} " in *" $host "*) ;; *) echo "testbed agent: no host '$host'" >&2; exit 255 ;; esac
exec nsenter --net=/run/netns/gtb-"$host" --uts={uts}/"$host" -- /bin/sh -c "$*"
"""


def current() -> Topology:
    """The running testbed; a clear error when there is none."""
    st = netns.load_state()
    if not st:
        raise GpcnetError("no testbed is up; start one with `gpcnet testbed up`")
    if st.get("status") != "up":
        raise GpcnetError("the testbed was not completely built (crashed or still building); "
                          "`gpcnet testbed down` removes it")
    return Topology.from_dict(st["topology"])


def hostfile_text(topo: Topology, slots: int) -> str:
    return "".join(f"{h.name} slots={slots}\n" for h in topo.hosts)


def write_launch_files(topo: Topology) -> None:
    agent = netns.STATE_DIR / "rsh-agent"
    safe_write.write_text(agent, AGENT.format(hosts=" ".join(h.name for h in topo.hosts),
                                              uts=netns.STATE_DIR / "uts"), force=True)
    agent.chmod(agent.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def enter_head(topo: Topology) -> list:
    """Command prefix that runs in the head namespace, as the head host."""
    return ["nsenter", f"--net=/run/netns/{topo.head_ns}",
            f"--uts={netns.STATE_DIR / 'uts' / topo.head_name}", "--"]


def enter_host(name: str) -> list:
    return ["nsenter", f"--net=/run/netns/gtb-{name}",
            f"--uts={netns.STATE_DIR / 'uts' / name}", "--"]


def mca_settings() -> list:
    """Open MPI settings for the testbed, as (name, value) pairs."""
    return [
        ("btl", "tcp,vader,self"),             # tcp between hosts, shared memory on a host
        ("osc", "sm,pt2pt"),                   # RMA over point-to-point: TCP has no RDMA
        ("btl_tcp_if_include", DATA_CIDR),     # MPI traffic on the data fabric only
        ("oob_tcp_if_include", MGMT_CIDR),     # daemons on the management network
        ("mpi_yield_when_idle", "1"),          # busy-polling ranks would starve the packets
        ("hwloc_base_binding_policy", "none"),  # every "host" sees the same cores
    ]


def mpirun_command(topo: Topology, ppn: int, command: list) -> list:
    mpirun = shutil.which("mpirun.openmpi") or shutil.which("mpirun")
    if not mpirun:
        raise GpcnetError("no mpirun (Open MPI) found; run scripts/setup.sh")
    hostfile = netns.STATE_DIR / f"hostfile-{ppn}"
    safe_write.write_text(hostfile, hostfile_text(topo, ppn), force=True)
    cmd = [mpirun, "--hostfile", str(hostfile), "-np", str(ppn * len(topo.hosts)),
           "--map-by", f"ppr:{ppn}:node",
           "--mca", "plm_rsh_agent", str(netns.STATE_DIR / "rsh-agent")]
    for k, v in mca_settings():
        cmd += ["--mca", k, v]
    return cmd + list(command)


def mpi_env() -> dict:
    """Environment of every testbed job. The Open MPI settings are also
    given as OMPI_MCA_* so that an mpirun inside a Slurm job (sbatch,
    salloc: they pass the environment on) uses the testbed's networks."""
    env = dict(os.environ)
    env.update({f"OMPI_MCA_{k}": v for k, v in mca_settings()})
    conf = netns.STATE_DIR / "slurm" / "slurm.conf"
    if conf.exists():
        env["SLURM_CONF"] = str(conf)
    if os.geteuid() == 0:
        # The testbed needs root; Open MPI refuses root unless told.
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return env


def run(topo: Topology, ppn: int, command: list, mpi: bool = True, timeout=None) -> int:
    if not command:
        raise GpcnetError("nothing to run: give the command after --, e.g. "
                          "gpcnet testbed run -- ./network_test")
    full = enter_head(topo) + (mpirun_command(topo, ppn, command) if mpi else list(command))
    try:
        return subprocess.run(full, env=mpi_env(), timeout=timeout).returncode
    except subprocess.TimeoutExpired:
        raise GpcnetError(f"the job did not finish within {timeout:g} s") from None
