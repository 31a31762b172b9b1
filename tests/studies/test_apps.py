"""The shipped application inputs run and print what the documented
--fom-regex expects (skipped when scripts/setup-apps.sh has not run)."""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import mpi_harness

REPO = Path(__file__).resolve().parents[2]
APPS = REPO / "apps"
AMG27 = REPO / "build-apps" / "amg27"


def documented_fom(app_dir: str) -> str:
    """The first --fom-regex of the docs/studies.md Applications bullet that
    names apps/<app_dir>/: the test checks what a user is told to pass."""
    text = (REPO / "docs" / "studies.md").read_text()
    section = text.split("\n## Applications\n", 1)[1].split("\n## ", 1)[0]
    bullet = next(b for b in section.split("\n- ")[1:] if f"apps/{app_dir}/" in b)
    return re.search(r"--fom-regex '([^']+)'", bullet).group(1)


def study_fom(regex: str, stdout: str):
    """The figure of merit as `gpcnet study` takes it from the output."""
    m = re.search(regex, stdout, re.MULTILINE)
    return float(m.group(1) if m.groups() else m.group(0)) if m else None


def run_local(tmp_path, nodes: int, ppn: int, command: list, env=None, timeout=120):
    """The application as `gpcnet study --launcher local` starts it."""
    from gpcnet.study import launch
    launcher = launch.make("local", ppn, tmp_path)
    cmd = launcher.job([f"n{i}" for i in range(nodes)], command, "app")
    return subprocess.run(cmd, env={**launcher.env, **(env or {})}, cwd=tmp_path,
                          capture_output=True, text=True, timeout=timeout)


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


@pytest.mark.skipif(not AMG27.exists(), reason="amg27 not built (bash scripts/setup-apps.sh)")
def test_amg27_solves_the_27_point_problem_on_4_ranks_and_prints_its_fom(tmp_path):
    p = run_local(tmp_path, 2, 2, [str(AMG27), "-n", "8"])
    assert p.returncode == 0, p.stderr[-2000:]
    assert "8^3 points per rank, 4 ranks (2 x 2 x 1), 2048 rows" in p.stdout
    m = re.search(r"setup ([0-9.]+) s, solve ([0-9.]+) s, ([0-9]+) iterations, relative residual ([0-9.e+-]+)",
                  p.stdout)
    assert m, p.stdout
    setup, solve, iters, resid = float(m.group(1)), float(m.group(2)), int(m.group(3)), float(m.group(4))
    # AMG-preconditioned CG on a Poisson-like problem: a handful of
    # iterations, to the default tolerance.
    assert 1 <= iters <= 30 and resid <= 1e-8
    fom = study_fom(documented_fom("amg"), p.stdout)
    assert fom is not None and fom > 0
    assert abs(fom - (setup + solve)) < 2e-6, "the figure of merit is setup + solve"


@pytest.mark.skipif(not AMG27.exists(), reason="amg27 not built (bash scripts/setup-apps.sh)")
def test_amg27_bad_argument_and_no_convergence_are_reported(tmp_path):
    p = run_local(tmp_path, 2, 1, [str(AMG27), "-n", "1"])
    assert p.returncode == 2
    assert p.stderr.count("amg27: -n 1: expected an integer from 2 to 200") == 1, p.stderr
    assert "amg27: time" not in p.stdout
    p = run_local(tmp_path, 2, 1, [str(AMG27), "-n", "6", "-maxit", "1", "-tol", "1e-12"])
    assert p.returncode == 1
    assert "amg27: not converged to 1e-12 in 1 iterations" in p.stderr


@pytest.mark.skipif(not shutil.which("gmx_mpi"), reason="GROMACS not installed (bash scripts/setup-apps.sh)")
def test_gromacs_wrapper_runs_pme_on_2_ranks_and_prints_its_fom(tmp_path):
    p = run_local(tmp_path, 2, 1, [str(APPS / "gromacs" / "run-gromacs.sh")],
                  env={"GMX_BOX": "3", "GMX_NSTEPS": "20", "TMPDIR": str(tmp_path)})
    assert p.returncode == 0, p.stderr[-2000:]
    assert "Using 2 MPI processes" in p.stderr and "20 steps" in p.stderr
    fom = study_fom(documented_fom("gromacs"), p.stdout)
    assert fom is not None and fom > 0, p.stdout
    assert re.search(r"(?m)^Performance: +[0-9.]+", p.stdout)
    assert not list(tmp_path.glob("gpcnet-gromacs.*")), "its directories are removed"
    assert not list(tmp_path.glob("*.log")) and not list(tmp_path.glob("#*"))


@pytest.mark.skipif(not shutil.which("gmx_mpi"), reason="GROMACS not installed (bash scripts/setup-apps.sh)")
def test_gromacs_wrapper_says_when_its_input_cannot_be_prepared(tmp_path):
    # A box too small for the cut-off: grompp refuses; the wrapper says so.
    p = run_local(tmp_path, 1, 1, [str(APPS / "gromacs" / "run-gromacs.sh")],
                  env={"GMX_BOX": "1", "TMPDIR": str(tmp_path)})
    assert p.returncode != 0
    assert "run-gromacs: preparing the input failed (rank 0)" in p.stderr
    assert not list(tmp_path.glob("gpcnet-gromacs.*"))
