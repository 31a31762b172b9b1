"""Launchers: how the application, the congestor and the counter sampler
are started on a given list of nodes (and how the counters are sampled).

- mpirun:  Open MPI's mpirun with a hostfile per job (`NODE slots=PPN`).
- srun:    `srun --nodelist=... --ntasks-per-node=PPN` inside an allocation.
- testbed: mpirun in the head namespace of `gpcnet testbed` (its rsh agent
           and MCA settings); node names are the testbed hosts.
- local:   every job on this host (for tests and trying a study out): each
           study node is PPN ranks of one local mpirun job, and the
           congestor runs with --emulate-nodes PPN, so it prints node names
           `<this host>#<i>` for the i-th node of its list.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import socket
import subprocess
from pathlib import Path

from gpcnet.infra import safe_write
from gpcnet.infra.errors import GpcnetError
from gpcnet.infra.reading import read_text
from gpcnet.study import sources
from gpcnet.study.topology import MAX_FILE_BYTES, MAX_NODES, check_name, expand_hostlist

LAUNCHERS = ("mpirun", "srun", "testbed", "local")


def _python_env() -> dict:
    env = dict(os.environ)
    pkg = str(Path(__file__).resolve().parents[2])   # the directory holding gpcnet/
    env["PYTHONPATH"] = pkg + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    if os.geteuid() == 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return env


class Launcher:
    name = ""
    jobdir = None        # the study's job directory (gpcnet.study.jobdir), set by the runner
    local_jobs = False   # every job runs on this host, so it can reach the job directory by descriptor

    def __init__(self, ppn: int, workdir: Path, extra: list | None = None):
        if ppn < 1:
            raise GpcnetError(f"--ppn {ppn}: expected 1 or more")
        self.ppn, self.workdir, self.extra = ppn, Path(workdir), list(extra or [])
        self.env = _python_env()

    def job(self, nodes: list, command: list, tag: str, ppn: int | None = None) -> list:
        raise NotImplementedError

    def child_path(self, path) -> str:
        """The name a job opens `path` of the job directory by: the study's
        descriptor's (/proc/PID/fd/N/NAME) where every job runs on this
        host, else FILE.d/NAME, which `check` re-verifies at every step."""
        if self.jobdir is None or self.local_jobs:
            return str(path)
        return self.jobdir.named_path(path)

    def check(self, step: str) -> None:
        """The job directory is still the one opened (gpcnet.study.jobdir)."""
        if self.jobdir is not None:
            self.jobdir.check(step)

    def recorded(self, value):
        """A job's command, or a run's record, as the study JSON keeps it:
        FILE.d/NAME in place of the descriptor's path (/proc/PID/fd/N),
        which means nothing once the study ends."""
        if self.jobdir is None:
            return value
        prefix, named = json.dumps(str(self.jobdir.path))[1:-1], json.dumps(str(self.jobdir.named))[1:-1]
        return json.loads(json.dumps(value).replace(prefix, named))

    def swapped(self) -> bool:
        return self.jobdir is not None and self.jobdir.changed is not None

    def congestor_args(self) -> list:
        return []

    def program_names(self, nodes: list) -> dict:
        """Study node name -> the name the congestor prints for it."""
        return {n: n for n in nodes}

    def counter_sampler(self, nodes: list, interval: float, tag: str, duration: float):
        """What samples the stall metric's counters of the application's
        `nodes` during a run: the sampler of the first counter source of
        the registry (gpcnet.study.sources) that wants this launcher's runs."""
        return sources.choose(self, os.environ).sampler(self, nodes, interval, tag, duration)

    def _hostfile(self, nodes: list, tag: str, ppn: int) -> Path:
        path = self.workdir / f"hosts-{tag}"
        safe_write.write_text(path, "".join(f"{n} slots={ppn}\n" for n in nodes), force=True)
        return path


class MpirunLauncher(Launcher):
    name = "mpirun"

    def mpirun(self) -> str:
        exe = shutil.which("mpirun.openmpi") or shutil.which("mpirun")
        if not exe:
            raise GpcnetError("no mpirun found; run scripts/setup.sh or choose --launcher srun")
        return exe

    def job(self, nodes, command, tag, ppn=None):
        ppn = ppn or self.ppn
        # mpirun reads its hostfile here, by the study's descriptor.
        return [self.mpirun(), "--hostfile", str(self._hostfile(nodes, tag, ppn)),
                "-np", str(ppn * len(nodes)), "--map-by", f"ppr:{ppn}:node",
                "-x", "PYTHONPATH", *self.extra, *command]


class SrunLauncher(Launcher):
    name = "srun"

    def job(self, nodes, command, tag, ppn=None):
        if not shutil.which("srun"):
            raise GpcnetError("no srun found: --launcher srun needs Slurm")
        ppn = ppn or self.ppn
        return ["srun", f"--nodelist={','.join(nodes)}", f"--nodes={len(nodes)}",
                f"--ntasks-per-node={ppn}", f"--ntasks={ppn * len(nodes)}", "--export=ALL",
                *self.extra, *command]


class LocalLauncher(MpirunLauncher):
    name = "local"
    local_jobs = True

    def job(self, nodes, command, tag, ppn=None):
        ppn = ppn or self.ppn
        return [self.mpirun(), "--oversubscribe", "-np", str(ppn * len(nodes)),
                "--mca", "mpi_yield_when_idle", "1", "--bind-to", "none", *self.extra, *command]

    def congestor_args(self):
        return ["--emulate-nodes", str(self.ppn)]

    def program_names(self, nodes):
        host = socket.gethostname()
        return {n: f"{host}#{i}" for i, n in enumerate(nodes)}


class TestbedLauncher(MpirunLauncher):
    name = "testbed"

    def __init__(self, ppn, workdir, extra=None):
        super().__init__(ppn, workdir, extra)
        try:
            # deferred: the testbed is an optional part (a gpcnet without it says so)
            from gpcnet.testbed import launch as tb
        except ImportError:
            raise GpcnetError("--launcher testbed: this gpcnet has no testbed "
                              "(`gpcnet testbed` is not available)") from None
        self.tb = tb
        self.topo = tb.current()
        self.env.update({k: v for k, v in tb.mpi_env().items() if k.startswith("OMPI_")})

    def job(self, nodes, command, tag, ppn=None):
        ppn = ppn or self.ppn
        known = {h.name for h in self.topo.hosts}
        unknown = [n for n in nodes if n not in known]
        if unknown:
            raise GpcnetError(f"not testbed hosts: {', '.join(unknown[:5])}")
        full = self.tb.mpirun_command(self.topo, ppn, command)
        # Same options as `gpcnet testbed run`, on our nodes only.
        i = full.index("--hostfile")
        full[i + 1] = self.child_path(self._hostfile(nodes, tag, ppn))   # mpirun runs in the head's namespaces
        j = full.index("-np")
        full[j + 1] = str(ppn * len(nodes))
        return self.tb.enter_head(self.topo) + full[:j + 2] + ["-x", "PYTHONPATH"] + self.extra + full[j + 2:]


def make(name: str, ppn: int, workdir, extra_args: str = "") -> Launcher:
    cls = {"mpirun": MpirunLauncher, "srun": SrunLauncher, "testbed": TestbedLauncher,
           "local": LocalLauncher}.get(name)
    if cls is None:
        raise GpcnetError(f"unknown launcher {name!r} (choose from {', '.join(LAUNCHERS)})")
    return cls(ppn, workdir, shlex.split(extra_args))


def read_nodes(hostfile: str | None, nodes: str | None, slurm: bool, testbed: bool) -> list:
    """The study's node list, in order: --nodes a,b,c | --hostfile FILE (first
    word of each line) | --slurm (scontrol show hostnames) | --testbed."""
    given = [x for x in (hostfile, nodes) if x] + (["slurm"] if slurm else []) + (["testbed"] if testbed else [])
    if len(given) != 1:
        raise GpcnetError("give the node list one way: --nodes, --hostfile, --slurm or --testbed")
    if nodes:
        try:
            return expand_hostlist(nodes)
        except ValueError as e:
            raise GpcnetError(f"--nodes: {e}") from None
    if hostfile:
        names = []
        for no, ln in enumerate(read_text(hostfile, "hostfile", MAX_FILE_BYTES).splitlines(), 1):
            if not ln.strip() or ln.lstrip().startswith("#"):
                continue
            try:
                names.append(check_name(ln.split()[0]))
            except ValueError as e:
                raise GpcnetError(f"{hostfile}:{no}: {e}") from None
            if len(names) > MAX_NODES:
                raise GpcnetError(f"{hostfile}:{no}: more than {MAX_NODES} nodes")
        return names
    if slurm:
        if not os.environ.get("SLURM_JOB_NODELIST"):
            raise GpcnetError("--slurm: not inside a Slurm allocation (SLURM_JOB_NODELIST unset)")
        p = subprocess.run(["scontrol", "show", "hostnames", os.environ["SLURM_JOB_NODELIST"]],
                           capture_output=True, text=True)
        if p.returncode:
            raise GpcnetError(f"scontrol show hostnames failed: {p.stderr.strip()}")
        return p.stdout.split()
    return [h.name for h in running_testbed().hosts]


def running_testbed():
    try:
        # deferred: the testbed is an optional part (a gpcnet without it says so)
        from gpcnet.testbed import launch as tb
    except ImportError:
        raise GpcnetError("this gpcnet has no testbed (`gpcnet testbed` is not available)") from None
    return tb.current()
