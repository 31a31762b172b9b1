import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import mpi_harness  # noqa: E402
import process_guard  # noqa: E402


def pytest_configure(config):
    process_guard.register(config)


@pytest.fixture(scope="session")
def harness():
    for name in ("network_test", "network_load_test"):
        if not mpi_harness.binary(name).exists():
            pytest.fail(f"{mpi_harness.binary(name)} is not built: run scripts/test.sh")
    return mpi_harness


@pytest.fixture(scope="module")
def slow_send_shim(tmp_path_factory):
    """tests/mpi/slow_send_shim.c built against the MPI under test (its
    handles differ): preloaded, it delays one rank's sends of given tags."""
    mpicc = (shutil.which("mpicc") if mpi_harness.MPI == "openmpi"
             else (shutil.which("mpicc.mpich") or shutil.which("mpicc")))
    if not mpicc:
        pytest.skip("no mpicc for the slow-send preload")
    out = tmp_path_factory.mktemp("shim") / "slow_send_shim.so"
    subprocess.run([mpicc, "-O2", "-shared", "-fPIC", "-o", str(out),
                    str(mpi_harness.REPO / "tests" / "mpi" / "slow_send_shim.c")], check=True)
    return out
