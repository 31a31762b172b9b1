"""Slurm on the testbed: munged and slurmctld on the head node, one slurmd
per host, each in its host's namespaces (so each sees its own host name and
has its own /tmp, /dev/shm and /run, where the PMIx plugin keeps its
per-step directories), all talking over the management network. Debian's
slurmctld, slurmd and munge packages; scripts/setup-testbed.sh installs
them."""

from __future__ import annotations

import os
import shutil
import subprocess
import time

from gpcnet.infra import safe_write
from gpcnet.infra.errors import GpcnetError
from gpcnet.testbed import netns
from gpcnet.testbed.launch import enter_head, enter_host
from gpcnet.testbed.topology import Topology

CLAIMED_CPUS = 64


def paths() -> dict:
    base = netns.STATE_DIR
    return {"conf": base / "slurm" / "slurm.conf", "mpi_conf": base / "slurm" / "mpi.conf",
            "slurm": base / "slurm",
            "munge": base / "munge", "socket": base / "munge" / "munge.socket"}


def env() -> dict:
    """What Slurm's commands need to find this cluster's configuration."""
    return {"SLURM_CONF": str(paths()["conf"])}


def config_text(topo: Topology) -> str:
    p = paths()
    s = p["slurm"]
    lines = [
        "# Written by gpcnet testbed up --slurm; removed by gpcnet testbed down.",
        "ClusterName=gpcnet-testbed",
        f"SlurmctldHost={topo.head_name}({topo.head_ip})",
        "SlurmUser=root", "SlurmdUser=root",
        "AuthType=auth/munge", "CredType=cred/munge",
        f"AuthInfo=socket={p['socket']}",
        f"StateSaveLocation={s}/state",
        f"SlurmdSpoolDir={s}/spool/%n",
        f"SlurmctldPidFile={s}/slurmctld.pid",
        f"SlurmdPidFile={s}/slurmd-%n.pid",
        f"SlurmctldLogFile={s}/log/slurmctld.log",
        f"SlurmdLogFile={s}/log/slurmd-%n.log",
        # No cgroups inside the namespaces: track processes by parentage.
        "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none",
        "JobAcctGatherType=jobacct_gather/none", "AccountingStorageType=accounting_storage/none",
        "SelectType=select/cons_tres", "SelectTypeParameters=CR_Core",
        # Direct launch (`srun ./network_test`) as on most clusters: PMIx.
        "MpiDefault=pmix", "ReturnToService=2", "SlurmdTimeout=60", "InactiveLimit=0",
        "KillWait=5", "MinJobAge=30",
        # The nodes' CPUs below are claimed, not detected: slurmd takes them
        # from here instead of marking its node invalid.
        "SlurmdParameters=config_overrides",
    ]
    # Every host shares this machine's cores. Each claims CLAIMED_CPUS so
    # that the per-node task counts of real clusters' command lines
    # (--ntasks-per-node=64) are accepted: a testbed-only setting.
    cpus = max(os.cpu_count() or 1, CLAIMED_CPUS)
    for h in topo.hosts:
        lines.append(f"NodeName={h.name} NodeAddr={h.mgmt_ip} CPUs={cpus} State=UNKNOWN")
    lines.append("PartitionName=testbed Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4")
    return "\n".join(lines) + "\n"


# Slurm reads mpi.conf beside slurm.conf. By default (PMIxCollFence=mixed)
# its PMIx plugin runs a fence that collects data (Open MPI's modex in
# MPI_Init) as a ring and one without data (MPI_Init's closing barrier) as a
# tree. With that mix, network_load_test under srun lost a rank now and then
# (3 of 20 runs, 10 hosts x 2 ranks): a rank still waiting for the modex fence
# received rank 0's first MPI_Bcast before its PML had registered a receive
# handler, so Open MPI 4.1's TCP BTL called a NULL handler. One algorithm for
# every fence: 0 of 30 runs failed (docs/testbed.md#slurm).
MPI_CONF_TEXT = ("# Written by gpcnet testbed up --slurm; removed by gpcnet testbed down.\n"
                 "PMIxCollFence=tree\n")


def _need(cmd: str) -> str:
    path = shutil.which(cmd) or (f"/usr/sbin/{cmd}" if os.path.exists(f"/usr/sbin/{cmd}") else None)
    if not path:
        raise GpcnetError(f"--slurm needs {cmd} (Debian packages slurmctld, slurmd, slurm-client, "
                          "munge); run scripts/setup-testbed.sh")
    return path


def _start(cmd: list, what: str) -> None:
    p = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    if p.returncode != 0:
        raise GpcnetError(f"{what} did not start: {(p.stderr or p.stdout).strip()[-400:]}")


def start(topo: Topology) -> None:
    munged, mungekey = _need("munged"), _need("mungekey")
    slurmctld, slurmd, sinfo = _need("slurmctld"), _need("slurmd"), _need("sinfo")
    p = paths()
    for d in (p["munge"], p["slurm"] / "state", p["slurm"] / "log"):
        d.mkdir(parents=True, exist_ok=True)
        d.chmod(0o700)
    for h in topo.hosts:
        (p["slurm"] / "spool" / h.name).mkdir(parents=True, exist_ok=True)
    key = p["munge"] / "munge.key"
    _start([mungekey, "--create", f"--keyfile={key}"], "mungekey")
    # This cluster's own munged, with its own key and socket: the machine's
    # munged (if any) is never used or touched.
    _start(enter_head(topo) + [munged, f"--socket={p['socket']}", f"--key-file={key}",
                               f"--pid-file={p['munge']}/munged.pid",
                               f"--log-file={p['munge']}/munged.log",
                               f"--seed-file={p['munge']}/munged.seed", "--force"], "munged")
    safe_write.write_text(p["conf"], config_text(topo), force=True)
    safe_write.write_text(p["mpi_conf"], MPI_CONF_TEXT, force=True)
    _start(enter_head(topo) + [slurmctld, "-f", str(p["conf"])], "slurmctld")
    for h in topo.hosts:
        _start(enter_host(h.name) + [slurmd, "-f", str(p["conf"])], f"slurmd on {h.name}")
    wait_idle(topo, sinfo)


def wait_idle(topo: Topology, sinfo: str, timeout: float = 60) -> None:
    """Wait until every node has registered with the controller."""
    end = time.monotonic() + timeout
    out = ""
    while time.monotonic() < end:
        q = subprocess.run(enter_head(topo) + [sinfo, "-h", "-N", "-o", "%N %t"],
                           capture_output=True, text=True, env={**os.environ, **env()},
                           stdin=subprocess.DEVNULL, timeout=30)
        out = q.stdout + q.stderr
        states = [line.split()[1] for line in q.stdout.splitlines() if len(line.split()) == 2]
        if len(states) == len(topo.hosts) and all(s.startswith("idle") for s in states):
            return
        time.sleep(1)
    raise GpcnetError(f"Slurm nodes did not all become idle within {timeout:g} s: {out.strip()[-300:]}")
