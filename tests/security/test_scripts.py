"""Environment values are checked before shell arithmetic (issue 31, row 10)."""

from __future__ import annotations

import os
import subprocess

import pytest

from conftest import REPO


@pytest.mark.parametrize("name, value", [
    ("NODES", "ppn[$(touch {marker})]"),
    ("PPN", "x[$(touch {marker})]"),
    ("NODES", "$(touch {marker})"),
    ("NODES", "1+1"),
    ("NODES", "0"),
    ("PPN", "-3"),
    ("NODES", "99999999999999999999"),
    ("NODES", "10\n"),
])
def test_run_local_refuses_bad_numbers_before_doing_anything(tmp_path, name, value):
    marker = tmp_path / "ran"
    env = dict(os.environ, **{name: value.format(marker=marker)})
    p = subprocess.run(["bash", str(REPO / "scripts" / "run-local.sh")], env=env, cwd=tmp_path,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2, p.stdout + p.stderr
    assert not marker.exists(), "the environment value was executed"
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{name}=" in lines[0] and "expected a whole number" in lines[0], p.stderr
    assert p.stdout == ""  # nothing installed, built or run


def test_env_check_accepts_plain_numbers():
    script = f"source {REPO}/scripts/env-check.sh; env_int N 10 1 100; env_ints L '1 4 16' 1 64; echo ok"
    p = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr


def test_env_ints_refuses_one_bad_word(tmp_path):
    marker = tmp_path / "ran"
    script = f"source {REPO}/scripts/env-check.sh; env_ints L '1 a[$(touch {marker})] 4' 1 64; echo unreachable"
    p = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and "unreachable" not in p.stdout and not marker.exists()
