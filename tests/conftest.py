"""Applies to every test directory without a pytest.ini of its own: the
process guard (tests/process_guard.py) reaps what a test leaves running
and times out a test that would run forever."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import process_guard  # noqa: E402


def pytest_configure(config):
    process_guard.register(config)
