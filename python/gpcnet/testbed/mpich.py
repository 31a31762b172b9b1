"""MPICH jobs on the testbed: Hydra on the head node, the data on the fabric.

Debian's MPICH (4.0.2) is built with the ch4:ucx device only, and its
MPI_Finalize deadlocks now and then over UCX's TCP transport
(docs/testbed.md#mpich). The testbed therefore uses MPICH as the MPICH
team publishes it on PyPI (the `mpich` wheel, ch4 with both the ucx and
the ofi netmods), installed by scripts/setup-testbed.sh under
MPICH_PREFIX, with the ofi netmod on libfabric's tcp provider bound to
the data NIC. Programs are built against it with
`scripts/build.sh --mpi mpich-ofi`.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from gpcnet.infra import safe_write
from gpcnet.infra.errors import GpcnetError
from gpcnet.testbed import netns
from gpcnet.testbed.topology import Topology

# Where scripts/setup-testbed.sh installs it (the same variable there).
MPICH_PREFIX = Path(os.environ.get("GPCNET_MPICH_PREFIX", "/opt/gpcnet-mpich"))


def settings() -> dict:
    """Environment of an MPICH job on the testbed; Hydra passes it to the ranks."""
    return {
        "MPIR_CVAR_CH4_NETMOD": "ofi",     # not ucx: see the module's docstring
        "FI_PROVIDER": "tcp",              # libfabric over the kernel's TCP
        "FI_TCP_IFACE": "data0",           # the data fabric only, never mgmt0
        # Ranks poll; on a few shared cores a rank that yields lets the
        # others (and the kernel's packet delivery) run.
        "MPIR_CVAR_POLLS_BEFORE_YIELD": "1",
    }


def mpiexec() -> Path:
    path = MPICH_PREFIX / "bin" / "mpiexec.hydra"
    if not path.exists():
        raise GpcnetError(f"no MPICH for the testbed at {MPICH_PREFIX} (its {path.name} is missing); "
                          "run scripts/setup-testbed.sh, which installs it")
    return path


def check_program(command: list) -> None:
    """Refuse, before starting anything, a program linked against another
    MPI: Debian's MPICH would hang at the end, Open MPI's ranks would each
    start alone."""
    program = Path(command[0]) if command else None
    if program is None or not program.is_file():
        return                              # a script or a command on PATH: not ours to judge
    try:
        out = subprocess.run(["ldd", str(program)], capture_output=True, text=True,
                             timeout=30, stdin=subprocess.DEVNULL).stdout
    except (OSError, subprocess.TimeoutExpired):
        return
    if "libmpich.so" in out:
        raise GpcnetError(f"{program} is built against Debian's MPICH (ch4:ucx, whose MPI_Finalize "
                          "deadlocks on the testbed); build it for the testbed's MPICH with "
                          "scripts/build.sh --mpi mpich-ofi and run build-mpich-ofi/...")
    if "libmpi.so.40" in out:
        raise GpcnetError(f"{program} is built against Open MPI; run it without --mpi mpich")


def hostfile_text(topo: Topology, ppn: int) -> str:
    """Hydra's host file: `host:slots`, one line per host."""
    return "".join(f"{h.name}:{ppn}\n" for h in topo.hosts)


def mpiexec_command(topo: Topology, ppn: int, command: list) -> list:
    """Hydra on the head node: its proxies start through the testbed's rsh
    agent and talk over the management network."""
    launcher = mpiexec()
    check_program(command)
    hostfile = netns.STATE_DIR / f"hostfile-mpich-{ppn}"
    safe_write.write_text(hostfile, hostfile_text(topo, ppn), force=True)
    return [str(launcher), "-f", str(hostfile), "-n", str(ppn * len(topo.hosts)),
            "-ppn", str(ppn), "-launcher", "rsh",
            "-launcher-exec", str(netns.STATE_DIR / "rsh-agent"), "-iface", "mgmt0",
            *command]
