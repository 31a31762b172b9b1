"""Launching MPI jobs on the testbed hosts.

mpirun runs on the head node (on the management network) and starts one
daemon per host through an rsh-style agent that enters the host's network,
UTS and mount namespaces, as ssh would log in to a real node. The daemons talk over the management network; MPI traffic goes
over the data fabric only.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys

from gpcnet.infra import safe_write
from gpcnet.infra.errors import GpcnetError
from gpcnet.testbed import mpich, netns
from gpcnet.testbed.topology import DATA_CIDR, MGMT_CIDR, Topology

AGENT = """#!/bin/sh
# rsh-style agent of the gpcnet testbed: run a command on a testbed host by
# entering its network, UTS and mount namespaces (what ssh would do on a
# cluster). The mount namespace is entered through the process holding it,
# checked to be that namespace still.
while [ $# -gt 0 ]; do
    case "$1" in -*) shift ;; *) break ;; esac   # ssh-style options: none apply
done
host="$1"; shift
case " {hosts} " in *" $host "*) ;; *) echo "testbed agent: no host '$host'" >&2; exit 255 ;; esac
read -r pid ident < {state}/hosts/"$host" &&
    [ "$(readlink /proc/"$pid"/ns/mnt)" = "$ident" ] ||
    {{ echo "testbed agent: host '$host' is down" >&2; exit 255; }}
# Entering a mount namespace starts at its root: go back to the caller's
# directory when the host has it (a shared one), as ssh would not but
# mpirun's daemons expect.
exec nsenter --net=/run/netns/gtb-"$host" --uts={state}/uts/"$host" --mount=/proc/"$pid"/ns/mnt -- \
    /bin/sh -c 'cd "$1" 2>/dev/null || cd /; exec /bin/sh -c "$2"' testbed-agent "$PWD" "$*"
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
                                              state=netns.STATE_DIR), force=True)
    agent.chmod(agent.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def enter_head(topo: Topology, wd: str | None = None) -> list:
    """Command prefix that runs on the head node, in directory wd (default:
    the current one when the hosts share it, else /)."""
    return _enter(topo.head_ns, topo.head_name, wd)


def enter_host(name: str, wd: str | None = None) -> list:
    return _enter(f"gtb-{name}", name, wd)


def _enter(ns: str, name: str, wd: str | None) -> list:
    if wd is None:
        wd = os.getcwd() if _private_dir(os.getcwd()) is None else "/"
    return ["nsenter", f"--net=/run/netns/{ns}", f"--uts={netns.uts_file(name)}",
            f"--mount={netns.mnt_path(name)}", f"--wd={wd}", "--"]


def _private_dir(path: str):
    """Which of the hosts' own directories path is under, or None."""
    return next((d for d in netns.PRIVATE_DIRS if path == d or path.startswith(d + "/")), None)


def shared_cwd() -> str:
    """The current directory, which must exist on every host: /tmp, /dev/shm
    and /run are each host's own, as on a cluster's nodes."""
    cwd = os.getcwd()
    d = _private_dir(cwd)
    if d:
        raise GpcnetError(f"the current directory {cwd} is under {d}, which every testbed host "
                          "has to itself; run from a directory shared by the hosts (e.g. the "
                          "repository or /var/tmp)")
    return cwd


def mca_settings() -> list:
    """Open MPI settings for the testbed, as (name, value) pairs."""
    return [
        ("btl", "tcp,vader,self"),             # tcp between hosts, shared memory on a host
        ("osc", "sm,pt2pt"),                   # RMA over point-to-point: TCP has no RDMA
        ("btl_tcp_if_include", DATA_CIDR),     # MPI traffic on the data fabric only
        ("oob_tcp_if_include", MGMT_CIDR),     # daemons on the management network
        ("mpi_yield_when_idle", "1"),          # busy-polling ranks would starve the packets
        ("hwloc_base_binding_policy", "none"),  # every "host" sees the same cores
        # Shared-memory segments in the host's own /dev/shm, not in the job's
        # session directory: under srun direct launch (PMIx) a rank now and
        # then failed to open a peer's segment there ("No such file").
        ("btl_vader_backing_directory", "/dev/shm"),
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
    salloc: they pass the environment on) and the ranks srun starts use
    the testbed's networks."""
    env = dict(os.environ)
    env.update({f"OMPI_MCA_{k}": v for k, v in mca_settings()})
    conf = netns.STATE_DIR / "slurm" / "slurm.conf"
    if conf.exists():
        env["SLURM_CONF"] = str(conf)
    if os.geteuid() == 0:
        # The testbed needs root; Open MPI refuses root unless told.
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return env


def _given(args: list, option: str) -> bool:
    return any(a == option or a.startswith(option + "=") for a in args)


def with_link_rate(topo: Topology, command: list) -> list:
    """network_test --ebb on the testbed is told the host link rate
    (--link-rate, in Gbit/s), so that it prints the eBB as a fraction of
    it, unless the command gives its own or the hosts' links are not
    limited. Other commands pass unchanged."""
    rate = topo.params.get("host_rate") or 0
    if (not command or os.path.basename(str(command[0])) != "network_test"
            or not _given(command[1:], "--ebb") or _given(command[1:], "--link-rate") or not rate):
        return list(command)
    value = f"{rate / 1e9:.12g}"
    print(f"gpcnet testbed: network_test --ebb is given the host link rate: --link-rate {value}",
          file=sys.stderr)
    return [command[0], "--link-rate", value, *command[1:]]


def run(topo: Topology, ppn: int, command: list, mpi: str = "openmpi", once: bool = False,
        timeout=None) -> int:
    """Run command on the head node, started on every host by mpi's
    launcher ("openmpi": mpirun; "mpich": Hydra), or once (e.g. srun) in
    mpi's testbed environment."""
    if not command:
        raise GpcnetError("nothing to run: give the command after --, e.g. "
                          "gpcnet testbed run -- ./network_test")
    env = mpi_env()
    if mpi == "mpich":
        env.update(mpich.settings())
    if not once:
        command = with_link_rate(topo, command)
    if once:
        started = list(command)
    elif mpi == "mpich":
        started = mpich.mpiexec_command(topo, ppn, command)
    else:
        started = mpirun_command(topo, ppn, command)
    full = enter_head(topo, shared_cwd()) + started
    try:
        return subprocess.run(full, env=env, timeout=timeout).returncode
    except subprocess.TimeoutExpired:
        raise GpcnetError(f"the job did not finish within {timeout:g} s") from None
