"""Fixtures of the testbed tests: they need root (namespaces, links, tc)
and always take the testbed down again, even when a test fails."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "tests"))

import mpi_harness  # noqa: E402
import process_guard  # noqa: E402
import testbed_share  # noqa: E402


def pytest_configure(config):
    process_guard.register(config)

STATE_DIR = Path("/run/gpcnet-testbed")


def pytest_collection_modifyitems(config, items):
    if os.geteuid() != 0:
        skip = pytest.mark.skip(reason="the testbed needs root (network namespaces, veth, tc)")
        for item in items:
            if "no_root_needed" not in item.keywords:
                item.add_marker(skip)
    try:
        import pyroute2  # noqa: F401
    except ImportError:
        skip = pytest.mark.skip(reason="pyroute2 missing: run scripts/setup-testbed.sh")
        for item in items:
            item.add_marker(skip)


def gpcnet(*args, timeout=600, check=True, cwd=None):
    """Run the gpcnet CLI of this checkout; returns CompletedProcess."""
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    if cwd is None and mpi_harness.host_private(REPO):
        # A checkout in /tmp is not on the hosts: run from a directory
        # they share, as a job on a cluster runs from a shared file system.
        cwd = "/var/tmp"
    p = subprocess.run([sys.executable, "-m", "gpcnet", *map(str, args)], capture_output=True,
                       text=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL, cwd=cwd)
    if check and p.returncode != 0:
        raise AssertionError(f"gpcnet {' '.join(map(str, args))} failed ({p.returncode}):\n"
                             f"{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    return p


def our_mounts():
    """Mounts of the testbed seen from this machine's namespace: the bind
    mounts keeping its UTS and mount namespaces, and any tmpfs of a host's
    private /tmp, /dev/shm or /run that leaked out."""
    found = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            source = fields[fields.index("-") + 2]
            if fields[4].startswith(str(STATE_DIR)) or source.startswith("gtb-"):
                found.append(fields[4])
    return found


@pytest.fixture
def tmp_path():
    """A scratch directory every testbed host sees: /tmp is each host's own
    (as on a cluster's nodes), so the results of a run on the hosts would
    land there and not here."""
    d = Path(tempfile.mkdtemp(prefix="gpcnet-testbed-test-", dir="/var/tmp"))
    yield d
    shutil.rmtree(d, ignore_errors=True)


our_namespaces = testbed_share.namespaces


def binary(name):
    b = mpi_harness.binary(name)
    if not b.exists():
        pytest.skip(f"{b} not built (cmake --build build, or set GPCNET_BUILD_DIR)")
    return mpi_harness.on_every_host(name)


@pytest.fixture(autouse=True)
def testbed_slot(request):
    """A test that needs the testbed waits (bounded) for one it did not
    bring up to go, then skips (tests/testbed_share.py)."""
    if "no_root_needed" not in request.keywords:
        testbed_share.claim()


@pytest.fixture
def clean():
    """No testbed of ours before the test, none after it, whatever happens;
    someone else's testbed is waited for (bounded), then the test skips."""
    testbed_share.claim()
    testbed_share.down()
    yield
    testbed_share.down()


@pytest.fixture(scope="session")
def mpich_programs():
    """The suite built against the testbed's MPICH (scripts/setup-testbed.sh
    installs it, and the test command's set-up runs that script): its
    build directory, on a path every host sees."""
    d = REPO / "build-mpich-ofi"
    if mpi_harness.host_private(d):
        d = Path(tempfile.mkdtemp(prefix="gpcnet-mpich-ofi-", dir="/var/tmp"))
    p = subprocess.run(["bash", str(REPO / "scripts" / "build.sh"), "--mpi", "mpich-ofi",
                        "--dir", str(d)], capture_output=True, text=True, timeout=900,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 0, f"the build for the testbed's MPICH failed:\n{p.stderr[-2000:]}"
    yield d
    if d != REPO / "build-mpich-ofi":
        shutil.rmtree(d, ignore_errors=True)


def make_testbed(*up_args):
    @pytest.fixture(scope="module")
    def fixture():
        testbed_share.claim()
        testbed_share.down()
        try:
            gpcnet("testbed", "up", *up_args, timeout=180)
            yield up_args
        finally:
            testbed_share.down()
    return fixture


def load(path):
    with open(path) as f:
        return json.load(f)


# Small loops: the structure of a run is unchanged, it takes seconds.
QUICK = ["--time-limit", "0.2", "--measurements", "2", "--rings", "2", "--iterations", "4",
         "--warmup", "1"]
