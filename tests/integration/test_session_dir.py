"""Open MPI's session directories of the tests' jobs: one base per pytest
process (mpi_harness.session_dir_base), so that a job of another pytest run
ending cannot remove the directory a starting job makes its own in."""
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest


def test_jobs_keep_their_session_directory_in_a_base_of_this_process(harness):
    if harness.MPI != "openmpi":
        pytest.skip("session directories are Open MPI's")
    base = Path(harness.session_dir_base())
    p = subprocess.run(harness.launcher(2) + ["sh", "-c", 'echo "$OMPI_MCA_orte_top_session_dir"'],
                       env=harness.mpi_env(), capture_output=True, text=True, timeout=120,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr
    tops = set(p.stdout.split())
    # Both ranks in one top directory, below this process's base, not /tmp's shared one.
    assert len(tops) == 1 and Path(tops.pop()).parent == base, p.stdout
    st = base.stat()
    assert st.st_uid == os.getuid() and stat.S_IMODE(st.st_mode) == 0o700


def test_another_process_gets_another_base_removed_at_its_exit(harness):
    tests_dir = Path(harness.__file__).resolve().parent
    code = "import mpi_harness; print(mpi_harness.session_dir_base())"
    env = dict(os.environ, PYTHONPATH=str(tests_dir))
    env.pop("OMPI_MCA_orte_tmpdir_base", None)
    other = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True, timeout=60, check=True).stdout.strip()
    assert other and other != harness.session_dir_base()
    assert not Path(other).exists()


def test_a_base_the_caller_chose_is_kept(harness, monkeypatch, tmp_path):
    monkeypatch.setenv("OMPI_MCA_orte_tmpdir_base", str(tmp_path))
    assert harness.mpi_env()["OMPI_MCA_orte_tmpdir_base"] == str(tmp_path)
