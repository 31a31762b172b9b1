"""Shared pieces of the security tests: the in-process CLI and the fixtures
of the Python tool's tests."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from gpcnet.cli import main

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
    path = mpi_harness.binary("network_congestor")
    if not path.exists():
        pytest.fail(f"{path} is not built: run scripts/build.sh")
    return str(path)


def fixture_doc(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text())


@pytest.fixture
def cli(capsys):
    """Run `gpcnet ARGS...` in-process; return (exit code, stdout, stderr)."""
    def run(*args):
        code = main([str(a) for a in args])
        out, err = capsys.readouterr()
        return code, out, err
    return run


def one_line_error(code: int, err: str) -> str:
    """The CLI's answer to bad input: exit 2, one line, never an internal error."""
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "internal error" not in err and "Traceback" not in err, err
    return lines[0]
