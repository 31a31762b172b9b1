"""Shared helpers for the gpcnet tests: fixture paths and an in-process CLI runner."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from gpcnet.cli import main

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import process_guard  # noqa: E402


def pytest_configure(config):
    process_guard.register(config)

FIXTURES = HERE / "fixtures"
REAL = FIXTURES / "real"
REPO = HERE.parent.parent
ARTIFACTS = HERE / "artifacts"  # git-ignored; screenshots and reports to inspect


def fixture(name: str) -> str:
    return str(FIXTURES / name)


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


@pytest.fixture
def cli(capsys):
    """Run `gpcnet ARGS...` in-process; return (exit code, stdout, stderr)."""
    def run(*args):
        code = main([str(a) for a in args])
        out, err = capsys.readouterr()
        return code, out, err
    return run


@pytest.fixture
def write_json(tmp_path):
    """Write a (modified) document to a temp file and return its path."""
    def write(doc, name="doc.json"):
        path = tmp_path / name
        path.write_text(json.dumps(doc))
        return str(path)
    return write


def read(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text())


@pytest.fixture(scope="session")
def reports(tmp_path_factory):
    """HTML reports of representative documents, made once per session
    (rendering figures is the slow part) and shared by the report and
    browser tests."""
    out = tmp_path_factory.mktemp("reports")
    parsed = out / "parsed_ref_load_default.json"
    assert main(["parse", str(FIXTURES / "ref_load_default.txt"), "-o", str(parsed)]) == 0
    sources = {
        "load_verbose_matrix": FIXTURES / "load_verbose_matrix.json",
        "network_run": FIXTURES / "network_run.json",
        "parsed_ref_load_default": parsed,
        "real_network_load_test_verbose": REAL / "network_load_test_verbose.json",
        "real_sweep_repeat": REAL / "network_load_test_sweep_repeat.json",
    }
    made = {}
    for name, source in sources.items():
        made[name] = out / f"{name}.html"
        assert main(["report", str(source), "-o", str(made[name])]) == 0
    return made
