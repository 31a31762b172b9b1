"""The shipped application inputs run and print what the documented
--fom-regex expects (skipped when scripts/setup-apps.sh has not run)."""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import mpi_harness

APPS = Path(__file__).resolve().parents[2] / "apps"


@pytest.mark.skipif(not shutil.which("lmp"), reason="LAMMPS not installed (bash scripts/setup-apps.sh)")
def test_lammps_input_runs_and_prints_the_loop_time(tmp_path):
    p = subprocess.run(mpi_harness.launcher(2) + ["lmp", "-in", str(APPS / "lammps" / "in.lj"), "-var", "cells", "4",
                                                   "-var", "steps", "20", "-log", "none"],
                       env=mpi_harness.mpi_env(), cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "Created 256 atoms" in p.stdout
    m = re.search(r"Loop time of ([0-9.]+)", p.stdout)
    assert m and float(m.group(1)) > 0 and "on 2 procs for 20 steps" in p.stdout


@pytest.mark.skipif(not shutil.which("hpcc"), reason="HPCC not installed (bash scripts/setup-apps.sh)")
def test_hpcc_wrapper_prints_its_summary_from_a_fresh_directory(tmp_path):
    small = tmp_path / "in.txt"
    text = (APPS / "hpcc" / "hpccinf.txt").read_text()
    small.write_text(re.sub(r"(?m)^1000 +Ns", "200          Ns", text).replace("2            Qs", "1            Qs"))
    p = subprocess.run(mpi_harness.launcher(1) + [str(APPS / "hpcc" / "run-hpcc.sh")],
                       env=mpi_harness.mpi_env({"HPCC_INPUT": str(small), "TMPDIR": str(tmp_path)}),
                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "Success=1" in p.stdout
    assert re.search(r"StarSTREAM_Triad=([0-9.]+)", p.stdout)
    assert not list(tmp_path.glob("gpcnet-hpcc.*")), "its directory is removed"
    assert not (tmp_path / "hpccoutf.txt").exists()
