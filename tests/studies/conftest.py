"""Tests of `gpcnet study`: unit tests of node lists, topology, bullies and
counters, and whole studies with --launcher local (jobs on this host)."""
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parents[1] / "python"))
import mpi_harness  # noqa: E402
import process_guard  # noqa: E402


def pytest_configure(config):
    process_guard.register(config)


@pytest.fixture(scope="session")
def congestor_bin():
    mpi_harness.built("network_congestor")
    return str(mpi_harness.on_every_host("network_congestor"))
