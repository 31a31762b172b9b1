"""scripts/venv-lib.sh: the test command (scripts/test.sh, whole and
--quick, and scripts/test-reliability.sh) installs the gpcnet tool of its
checkout into a venv of its own beside the build, never into the user's
Python (issue 55: a test run in a scratch clone, then removed, left the
user's `gpcnet` failing with "No module named 'gpcnet'").

Run against a scratch checkout whose python/ is a tiny package named
gpcnet (no dependencies, so pip has little to fetch: the library's logic
is the same whatever the package), with "the user's Python" a venv of its
own, first on PATH, that has a gpcnet of its own.
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

PYPROJECT = """[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "gpcnet"
version = "{version}"
requires-python = ">=3.9"
dependencies = []

[project.optional-dependencies]
test = []

[project.scripts]
gpcnet = "gpcnet.cli:main"

[tool.setuptools]
packages = ["gpcnet"]
"""


def scratch_checkout(where: Path) -> Path:
    (where / "scripts").mkdir(parents=True)
    for name in ("venv-lib.sh", "apt-lib.sh"):
        (where / "scripts" / name).write_text((REPO / "scripts" / name).read_text())
    package = where / "python" / "gpcnet"
    package.mkdir(parents=True)
    (where / "python" / "pyproject.toml").write_text(PYPROJECT.format(version="1.0"))
    (package / "__init__.py").write_text("WHO = 'scratch checkout'\n")
    (package / "cli.py").write_text("def main():\n    print('gpcnet of the scratch checkout')\n")
    return where


def users_python(where: Path) -> Path:
    """A venv standing for the user's own Python, with a gpcnet of its own
    (a plain module in its site-packages and a `gpcnet` command)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", where], check=True,
                   capture_output=True, timeout=120)
    site = subprocess.run([where / "bin" / "python3", "-c",
                           "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          check=True, capture_output=True, text=True).stdout.strip()
    (Path(site) / "gpcnet").mkdir()
    (Path(site) / "gpcnet" / "__init__.py").write_text("WHO = \"the user's own\"\n")
    (where / "bin" / "gpcnet").write_text("#!/bin/sh\necho \"the user's own gpcnet\"\n")
    (where / "bin" / "gpcnet").chmod(0o755)
    return where


def snapshot(tree: Path) -> dict:
    """Every file and directory below tree, with its content's size and mtime."""
    out = {}
    for p in sorted(tree.rglob("*")):
        st = p.lstat()
        out[str(p.relative_to(tree))] = (st.st_mode, st.st_size, st.st_mtime_ns)
    return out


def lib(checkout: Path, user: Path, script: str):
    """Run `script` in bash with the scratch checkout's venv-lib sourced and
    the user's Python first on PATH, as scripts/test.sh does."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{user / 'bin'}:{os.environ['PATH']}"
    return subprocess.run(["bash", "-c", f". scripts/venv-lib.sh\n{script}"], cwd=checkout, env=env,
                          capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)


def where_gpcnet(python: Path) -> str:
    return subprocess.run([python, "-I", "-B", "-c", "import gpcnet; print(gpcnet.WHO, gpcnet.__file__)"],
                          capture_output=True, text=True, timeout=60).stdout.strip()


READY_AND_USE = """test_venv_ready "$PWD" || exit 1
test_venv_use "$PWD"
echo "python3: $(command -v python3)"
echo "gpcnet: $(command -v gpcnet) says $(gpcnet)"
python3 -c 'import gpcnet; print("module:", gpcnet.__file__)'
"""


def test_the_tests_venv_leaves_the_users_python_alone(tmp_path):
    checkout = scratch_checkout(tmp_path / "clone")
    user = users_python(tmp_path / "user")
    before = snapshot(user)

    p = lib(checkout, user, READY_AND_USE)
    assert p.returncode == 0, p.stdout + p.stderr
    venv = checkout / "build-venv"
    assert "installing the gpcnet tool of" in p.stderr
    # Every command of the stages comes from the venv, the module from this checkout.
    assert f"python3: {venv}/bin/python3\n" in p.stdout
    assert f"gpcnet: {venv}/bin/gpcnet says gpcnet of the scratch checkout\n" in p.stdout
    assert f"module: {checkout}/python/gpcnet/__init__.py\n" in p.stdout
    # The user's Python: not a file added, removed or changed.
    assert snapshot(user) == before
    assert where_gpcnet(user / "bin" / "python3").startswith("the user's own ")

    # A second run reuses it: nothing installed, nothing in the venv touched.
    venv_before = snapshot(venv)
    p = lib(checkout, user, READY_AND_USE)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "reusing" in p.stderr and "installing" not in p.stderr and "making" not in p.stderr
    assert f"gpcnet: {venv}/bin/gpcnet says gpcnet of the scratch checkout\n" in p.stdout
    assert snapshot(venv) == venv_before

    # The scratch clone removed: the user's gpcnet is as it was.
    subprocess.run(["rm", "-rf", checkout], check=True)
    assert where_gpcnet(user / "bin" / "python3").startswith("the user's own ")
    assert subprocess.run([user / "bin" / "gpcnet"], capture_output=True, text=True,
                          timeout=60).stdout == "the user's own gpcnet\n"
    assert snapshot(user) == before


def test_a_changed_pyproject_or_a_moved_checkout_installs_again(tmp_path):
    """The stamp: a changed python/pyproject.toml installs the package again
    into the same venv; a checkout moved away from its venv (pip's scripts
    name the venv's old path) has it made afresh."""
    checkout = scratch_checkout(tmp_path / "clone")
    user = users_python(tmp_path / "user")
    assert lib(checkout, user, 'test_venv_ready "$PWD"').returncode == 0
    (checkout / "python" / "pyproject.toml").write_text(PYPROJECT.format(version="1.1"))
    p = lib(checkout, user, 'test_venv_current "$PWD" || echo "not current"\n' + READY_AND_USE)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.startswith("not current\n")
    assert "installing the gpcnet tool of" in p.stderr and "making" not in p.stderr
    p = lib(checkout, user, 'test_venv_current "$PWD" && echo current')
    assert p.stdout == "current\n", p.stdout + p.stderr

    moved = tmp_path / "moved"
    checkout.rename(moved)
    p = lib(moved, user, 'test_venv_current "$PWD" || echo "not current"\n' + READY_AND_USE)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.startswith("not current\n")
    assert f"making {moved}/build-venv" in p.stderr
    assert f"gpcnet: {moved}/build-venv/bin/gpcnet says gpcnet of the scratch checkout\n" in p.stdout
    assert f"module: {moved}/python/gpcnet/__init__.py\n" in p.stdout


def test_a_python_without_venv_falls_back_to_debians_with_python3_venv_installed(tmp_path):
    """A first python3 that cannot make a venv (built without ensurepip),
    then Debian's Python before python3-venv is installed (a fresh Debian
    12): python3-venv is installed through scripts/apt-lib.sh (apt-get
    stands in here) and the venv is made from Debian's Python."""
    if os.geteuid() != 0:
        pytest.skip("as another user apt-lib calls sudo, which would not find the stand-in apt-get")
    checkout = scratch_checkout(tmp_path / "clone")
    real = getattr(sys, "_base_executable", sys.executable)
    marker, log = tmp_path / "python3-venv-installed", tmp_path / "apt.log"
    first = tmp_path / "first" / "bin"
    debian = tmp_path / "debian" / "bin"
    for d in (first, debian):
        d.mkdir(parents=True)
    (first / "python3").write_text(f"""#!/bin/sh
case "$*" in "-m venv"*) echo "No module named ensurepip" >&2; exit 1 ;; esac
exec {real} "$@"
""")
    (debian / "python3").write_text(f"""#!/bin/sh
# Debian's Python without python3-venv: no ensurepip, so no venv.
if [ ! -e {marker} ]; then
    case "$*" in *ensurepip*|"-m venv"*) echo "ensurepip is not available" >&2; exit 1 ;; esac
fi
exec {real} "$@"
""")
    (debian / "apt-get").write_text(f"""#!/bin/sh
echo "$*" >>{log}
case "$*" in "install "*python3-venv*) touch {marker} ;; esac
""")
    for f in (first / "python3", debian / "python3", debian / "apt-get"):
        f.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{first}:{debian}:{os.environ['PATH']}"
    p = subprocess.run(["bash", "-c", f". scripts/venv-lib.sh\ntest_venv_debian_python={debian}/python3\n"
                        + READY_AND_USE], cwd=checkout, env=env, capture_output=True, text=True,
                       timeout=600, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"test venv: {first}/python3 -m venv failed: No module named ensurepip" in p.stderr
    assert "test-venv: installing python3-venv" in p.stdout
    assert log.read_text().splitlines() == ["update -q", "install -y -q --no-install-recommends python3-venv"]
    venv = checkout / "build-venv"
    assert f"gpcnet: {venv}/bin/gpcnet says gpcnet of the scratch checkout\n" in p.stdout
    assert f"module: {checkout}/python/gpcnet/__init__.py\n" in p.stdout


@pytest.mark.parametrize("planted", ["link", "file"])
def test_a_planted_build_venv_is_refused(tmp_path, planted):
    """Root runs the tests in checkouts others may write to: a build-venv
    that is a link or not a directory of the caller's is never written to."""
    checkout = scratch_checkout(tmp_path / "clone")
    user = users_python(tmp_path / "user")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if planted == "link":
        (checkout / "build-venv").symlink_to(elsewhere)
    else:
        (checkout / "build-venv").write_text("not a venv\n")
    p = lib(checkout, user, READY_AND_USE)
    assert p.returncode == 1
    assert p.stdout == ""
    expected = "is a symbolic link; remove it" if planted == "link" else "is not a directory of user"
    assert f"test venv: {checkout}/build-venv {expected}" in p.stderr
    assert list(elsewhere.iterdir()) == []
    assert (checkout / "build-venv").is_symlink() == (planted == "link")


@pytest.mark.parametrize("script,first_run", [("test.sh", "run_stage "), ("test-reliability.sh", "run_pytest ")])
def test_the_test_commands_run_in_it(script, first_run):
    """scripts/test.sh and scripts/test-reliability.sh put the venv first on
    PATH before they run anything, and install nothing with pip
    themselves, nor through setup.sh --python (which installs into the
    first python3 on PATH, the user's, when asked by a user)."""
    text = (REPO / "scripts" / script).read_text()
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    assert ". scripts/venv-lib.sh" in body
    assert 'test_venv_ready "$repo"' in body
    use = body.index('test_venv_use "$repo"')
    first = min(i for i in (body.find(f"\n{first_run}"), body.find(f"\n    {first_run}")) if i >= 0)
    assert use < first, f"{script} runs its first stage before the venv is first on PATH"
    assert "pip install" not in body
    assert "setup.sh --python" not in body and 'setup.sh "$setup"' not in body


@pytest.mark.parametrize("script", ["test.sh", "setup-python.sh"])
def test_an_unknown_argument_is_one_line_and_exit_2(script):
    """Nothing installed or run for a mistyped option (setup-python.sh's
    --no-tool is what test.sh passes it)."""
    p = subprocess.run(["bash", str(REPO / "scripts" / script), "--no-such-option"],
                       capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert p.returncode == 2
    assert p.stdout == ""
    assert p.stderr.count("\n") == 1 and "unknown argument '--no-such-option'" in p.stderr
