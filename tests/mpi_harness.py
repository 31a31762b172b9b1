"""Running the suite under MPI in tests: one place that knows the launchers.

GPCNET_MPI selects the implementation (openmpi, the default, or mpich) and
GPCNET_BUILD_DIR the build to test (default: build). Everything here is for tests on one host: oversubscription and
running as root are allowed here, never in the product.
"""
import json
import os
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MPI = os.environ.get("GPCNET_MPI", "openmpi")
if MPI not in ("openmpi", "mpich"):
    raise RuntimeError(f"GPCNET_MPI must be openmpi or mpich, not {MPI!r}")


def build_dir() -> Path:
    explicit = os.environ.get("GPCNET_BUILD_DIR")
    return Path(explicit) if explicit else REPO / "build"


def binary(name: str) -> Path:
    return build_dir() / name


# The directories each testbed host has to itself (gpcnet.testbed.netns
# .PRIVATE_DIRS): a build below one of them (a checkout in mktemp -d's
# /tmp) is not there on the hosts, as node-local storage is not on a
# cluster's other nodes.
HOST_PRIVATE = ("/tmp", "/dev/shm", "/run")
PROGRAMS = ("network_test", "network_load_test", "network_congestor")
_shared_dirs = {}


def host_private(path) -> bool:
    real = str(Path(path).resolve())
    return any(real == d or real.startswith(d + "/") for d in HOST_PRIVATE)


def _shared_dir(kind: str, fill) -> Path:
    """A directory under /var/tmp (which every testbed host sees) for
    `kind`, filled by fill(dir) once per session and removed at its end."""
    if kind not in _shared_dirs:
        import atexit
        import tempfile
        d = Path(tempfile.mkdtemp(prefix=f"gpcnet-test-{kind}-", dir="/var/tmp"))
        d.chmod(0o755)
        atexit.register(shutil.rmtree, d, True)
        fill(d)
        _shared_dirs[kind] = d
    return _shared_dirs[kind]


def on_every_host(name: str) -> Path:
    """The build's program `name` at a path every testbed host sees: the
    build itself, or (when the build is below a host-private directory) a
    copy of the programs in one directory under /var/tmp."""
    path = binary(name)
    if not host_private(path):
        return path

    def copy_programs(d):
        for program in PROGRAMS:
            if binary(program).exists():
                shutil.copy2(binary(program), d / program)
    return _shared_dir("bin", copy_programs) / name


def interpreter_on_every_host() -> str:
    """This Python, or, when it lies below a host-private directory, the
    Python it was made from: the test command's venv (scripts/venv-lib.sh)
    is beside the build, so a checkout in /tmp has it where the hosts do
    not see it. The base Python lacks the venv's packages; gpcnet.bind_cli
    needs none beyond the standard library and gpcnet itself."""
    import sys
    if host_private(sys.executable):
        return getattr(sys, "_base_executable", sys.executable)
    return sys.executable


def python_on_every_host() -> list:
    """The command that starts a Python with the gpcnet package on every
    testbed host (`[*python_on_every_host(), "-m", "gpcnet.bind_cli"]`):
    the package as installed, or (when it lies below a host-private
    directory, as an editable install of a checkout in /tmp does) a copy of
    it under /var/tmp on PYTHONPATH, with interpreter_on_every_host()."""
    import gpcnet
    package = Path(gpcnet.__file__).resolve().parent
    python = interpreter_on_every_host()
    if not host_private(package):
        return [python]
    d = _shared_dir("python", lambda d: shutil.copytree(
        package, d / "gpcnet", ignore=shutil.ignore_patterns("__pycache__")))
    return ["env", f"PYTHONPATH={d}", python]


def built(name: str) -> str:
    """A program of the build, or the test fails saying how to build it."""
    import pytest
    path = binary(name)
    if not path.exists():
        pytest.fail(f"{path} is not built: run scripts/build.sh")
    return str(path)


def launcher(np: int) -> list:
    if MPI == "openmpi":
        exe = shutil.which("mpirun.openmpi") or "mpirun"
        return [exe, "--oversubscribe", "-np", str(np)]
    exe = shutil.which("mpiexec.mpich") or "mpiexec"
    return [exe, "-n", str(np)]


def session_dir_base() -> str:
    """Where this pytest process's Open MPI jobs keep their session
    directories: a directory of its own (mode 0700, removed at exit;
    _shared_dir's, under /var/tmp).

    By default every job of a user shares /tmp/ompi.<host>.<uid>: the job
    that ends last removes it, and a job starting at that moment fails to
    make its own directory in it ("A call to mkdir was unable to create the
    desired directory", orte_init's "Error (-1) instead of ORTE_SUCCESS").
    That was seen once in a whole-suite run, where the reliability stage's
    pytest runs beside the other stages' (docs/reliability.md, "Bugs found
    and fixed by this work"). A
    pytest process starts its jobs one after the other, so with a base of
    its own no other job removes the directory under one starting."""
    return str(_shared_dir("ompi", lambda d: d.chmod(0o700)))


def mpi_env(extra=None) -> dict:
    env = dict(os.environ)
    env.update(
        OMPI_ALLOW_RUN_AS_ROOT="1",
        OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
        # Busy-polling ranks on 2 cores: yield so oversubscribed jobs progress.
        OMPI_MCA_mpi_yield_when_idle="1",
        # MPICH: yield the core after one poll (many ranks share 2 cores).
        MPIR_CVAR_POLLS_BEFORE_YIELD="1",
    )
    if MPI == "openmpi":
        env.setdefault("OMPI_MCA_orte_tmpdir_base", session_dir_base())
    if extra:
        env.update(extra)
    return env


def preload_env(library) -> dict:
    """Environment that preloads `library` into the ranks. An ASan build
    checks that its runtime comes first; a test preload is fine after it."""
    asan = os.environ.get("ASAN_OPTIONS")
    return {"LD_PRELOAD": str(library),
            "ASAN_OPTIONS": (asan + ":" if asan else "") + "verify_asan_link_order=0"}


def run(np: int, program: str, *args, timeout: float = 240, env=None, cwd=None):
    """Run program on np ranks; returns CompletedProcess (text).

    `timeout` is a hang guard, never a bound a test relies on: it stays at
    least 10 times what the job needs on a slow host, above the job's
    --deadline, and below the test's cap (tests/reliability/relsupport.py)."""
    cmd = launcher(np) + [str(binary(program))] + [str(a) for a in args]
    for attempt in range(2):
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           env=mpi_env(env), cwd=cwd, stdin=subprocess.DEVNULL)
        # The launcher itself (not our program) sometimes fails to start a
        # process when other jobs are starting at the same moment: try once more.
        if "while attempting to start process" not in p.stderr:
            break
    return p


def load_json(path) -> dict:
    with open(path) as f:
        return json.load(f)


# Small loops so a whole run takes seconds on 2 oversubscribed cores; the
# structure of the run (tests, tables, protocol) is unchanged.
# QUICK_LOOPS alone keeps each measurement short and leaves the test's
# length to its own time limit (checked between measurements): under MPICH
# one measurement of the default loops (30 rings x 200) lasted 40 s.
QUICK_LOOPS = ["--rings", "4", "--iterations", "20", "--warmup", "5"]
QUICK = ["--time-limit", "0.2", "--measurements", "3", *QUICK_LOOPS]
QUICK_CONGESTORS = ["--congestor-measurements", "4", "--congestor-iterations", "8"]


def schema_validator():
    """The JSON Schema check of the gpcnet package, or None if not installed."""
    try:
        from gpcnet.results_json.load import validate
    except ImportError:
        return None
    return validate
