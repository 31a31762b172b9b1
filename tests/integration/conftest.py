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
