"""Fixtures of the fault and bad-input catalogue (docs/reliability.md).

Every test has a hard cap (``@pytest.mark.cap(seconds)``, default
relsupport.DEFAULT_CAP, 300 s): a test that runs over it fails and its MPI
job is killed, so nothing hangs. A cap is a hang guard, never a bound the
test must beat: it is far above the test's time on a slow host, and above
every --deadline and wait of the test (relsupport.job_guard).
Jobs are started in their own session; at the end of each test every
process of every job it started is killed by process id. Helpers live in
relsupport.py.
"""
import os
import signal

import pytest

import relsupport
from relsupport import DEFAULT_CAP, Job, mpi_harness
import process_guard  # on sys.path through relsupport

HEAVY = os.environ.get("GPCNET_HEAVY") == "1"
collect_ignore_glob = [] if HEAVY else ["heavy/*"]


def pytest_configure(config):
    config.addinivalue_line("markers", "cap(seconds): hard time cap of the test (a hang guard)")
    process_guard.register(config)


class CapExceeded(Exception):
    pass


@pytest.fixture(autouse=True)
def hard_cap(request):
    marker = request.node.get_closest_marker("cap")
    cap = float(marker.args[0]) if marker else DEFAULT_CAP

    def expire(signum, frame):
        raise CapExceeded(f"test ran over its hard cap of {cap:g} s")

    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, cap)
    try:
        yield cap
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@pytest.fixture(scope="session")
def harness():
    for name in ("network_test", "network_load_test"):
        if not mpi_harness.binary(name).exists():
            pytest.fail(f"{mpi_harness.binary(name)} is not built: scripts/build.sh "
                        f"--mpi {mpi_harness.MPI} (and GPCNET_BUILD_DIR)")
    return mpi_harness


@pytest.fixture
def jobs(harness, tmp_path):
    started = []

    def start(np, program, *args, env=None, name=None):
        job = Job(harness, tmp_path, np, program, list(args), env=env,
                  name=name or f"job{len(started)}")
        started.append(job)
        return job

    yield start
    for job in started:
        job.kill_all()


@pytest.fixture(scope="session")
def private_mount():
    prefix = relsupport.private_mount_prefix()
    if prefix is None:
        pytest.skip("no private mount namespace here (unshare --mount and "
                    "unshare --user --mount both failed): cannot make a small, full "
                    "or read-only file system without touching the real mounts")
    return prefix
