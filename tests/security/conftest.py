"""Shared pieces of the security tests: the in-process CLI and the fixtures
of the Python tool's tests."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
FIXTURES = REPO / "tests" / "python" / "fixtures"
sys.path.insert(0, str(HERE.parent))
import mpi_harness  # noqa: E402
import process_guard  # noqa: E402


def pytest_configure(config):
    process_guard.register(config)


@pytest.fixture(scope="session")
def congestor_bin():
    return mpi_harness.built("network_congestor")


def fixture_doc(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text())


def _python_tests_conftest():
    """The Python tool's tests' conftest, loaded under its own name."""
    spec = importlib.util.spec_from_file_location("gpcnet_python_tests_conftest",
                                                  REPO / "tests" / "python" / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


cli = _python_tests_conftest().cli  # `gpcnet ARGS...` in-process: (exit code, stdout, stderr)


def one_line_error(code: int, err: str) -> str:
    """The CLI's answer to bad input: exit 2, one line, never an internal error."""
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "internal error" not in err and "Traceback" not in err, err
    return lines[0]
