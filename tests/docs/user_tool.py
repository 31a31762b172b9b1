"""A Python with the gpcnet tool that an unprivileged user can run, for the
docs examples typed by a throw-away user while the tests run as root
(whose Python, e.g. pyenv under /root, other users may not reach).

Two layers, both made from Debian's /usr/bin/python3 (the Python such a
user has; scripts/setup-python.sh installs its venv module):

- the dependencies: a virtual environment with `python[test]`'s
  dependencies (numpy, matplotlib, ..., pytest, ReFrame), cached in
  CACHE under a name derived from python/pyproject.toml and the system
  Python's version, so only the first run (or a change of the
  dependencies) downloads and installs them; built under a lock, in a
  temporary directory renamed into place when complete;
- the tool itself: a virtual environment of this test session, in a
  fresh temporary directory, that sees the first one's packages through a
  .pth file and has gpcnet installed (not editable) from a copy of the
  python/ being tested, so concurrent sessions testing different trees
  never share it.

Everything is root's and readable by others; the user writes nothing
there.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

SYSTEM_PYTHON = "/usr/bin/python3"
CACHE = Path("/var/cache/gpcnet-tests")
PREFIX = "docs-user-deps-"


def _run(cmd, **kwargs):
    p = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL, **kwargs)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({p.returncode}):\n"
                           f"{(p.stdout + p.stderr)[-4000:]}")
    return p.stdout


def missing() -> str | None:
    """Why the user's Python cannot be made here, or None."""
    if not os.access(SYSTEM_PYTHON, os.X_OK):
        return f"{SYSTEM_PYTHON} not found (scripts/setup-python.sh installs it)"
    if subprocess.run([SYSTEM_PYTHON, "-c", "import ensurepip, venv"],
                      capture_output=True).returncode != 0:
        return (f"{SYSTEM_PYTHON} has no venv module (Debian's python3-venv; "
                "scripts/setup-python.sh installs it)")
    return None


def _safe_dir(path: Path) -> None:
    """A directory of root's that nobody else can write, never a link."""
    path.mkdir(mode=0o755, parents=True, exist_ok=True)
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022:
        raise RuntimeError(f"{path} must be a directory of its own, writable only by its owner")


def _copy_of_python(repo: Path, dest: Path) -> Path:
    """python/ without what a build or an editable install left in it, so
    that pip's build writes into the copy, not into the tree under test."""
    shutil.copytree(repo / "python", dest,
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
    return dest


def _site_packages(venv: Path) -> Path:
    out = _run([venv / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"])
    return Path(out.strip())


def dependencies(repo: Path) -> Path:
    """The cached environment with gpcnet's dependencies (see above)."""
    version = _run([SYSTEM_PYTHON, "-c", "import sys; print(sys.version)"])
    key = hashlib.sha256(version.encode() + (repo / "python/pyproject.toml").read_bytes())
    venv = CACHE / (PREFIX + key.hexdigest()[:16])
    _safe_dir(CACHE)
    with open(CACHE / "docs-user.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (venv / "complete").exists():
            return venv
        for old in CACHE.glob(PREFIX + "*"):  # other keys, and a build that died midway
            shutil.rmtree(old, ignore_errors=True)
        work = Path(tempfile.mkdtemp(prefix=PREFIX, suffix=".partial", dir=CACHE))
        with tempfile.TemporaryDirectory() as tmp:
            _run([SYSTEM_PYTHON, "-m", "venv", work])
            pip = [work / "bin" / "python", "-m", "pip", "--disable-pip-version-check", "-q"]
            _run(pip + ["install", f"{_copy_of_python(repo, Path(tmp) / 'python')}[test]"])
            _run(pip + ["uninstall", "-y", "gpcnet"])  # the session layer installs the tree's
        (work / "complete").write_text(version)
        _run(["chmod", "-R", "go+rX,go-w", work])
        work.rename(venv)
        return venv


@contextlib.contextmanager
def user_tool(repo: Path):
    """Yields the bin directory of a Python environment with the gpcnet of
    repo/python and its dependencies, runnable by any user; removed after."""
    deps = dependencies(repo)
    session = Path(tempfile.mkdtemp(prefix="gpcnet-docs-tool-"))
    try:
        os.chmod(session, 0o755)
        venv = session / "venv"
        _run([SYSTEM_PYTHON, "-m", "venv", "--without-pip", venv])
        (_site_packages(venv) / "gpcnet-dependencies.pth").write_text(f"{_site_packages(deps)}\n")
        # pip, setuptools and wheel come from the dependencies through the .pth.
        _run([venv / "bin" / "python", "-m", "pip", "--disable-pip-version-check", "-q",
              "install", "--no-deps", "--no-build-isolation", "--no-cache-dir",
              _copy_of_python(repo, session / "python")])
        shutil.rmtree(session / "python")
        _run(["chmod", "-R", "go+rX,go-w", session])
        yield venv / "bin"
    finally:
        shutil.rmtree(session, ignore_errors=True)


if __name__ == "__main__":  # build the cache and show where the tool is
    with user_tool(Path(__file__).resolve().parents[2]) as bin_dir:
        print(_run([bin_dir / "gpcnet", "--version"]).strip(), bin_dir)
