"""Session fixtures of the Spack tests: one Spack, configured once by
scripts/setup-spack.sh, and one install of the gpcnet variants, shared by
every test of the packaging stage (Spack's concretizer is slow: it runs
once per session).

Which Spack: $GPCNET_SPACK_ROOT (a user's own checkout, used in place);
else the Spack and spack-packages checkouts in ../shared/tools beside the
repository (CI puts them there), copied to a scratch directory first so
they are never written to; else /opt/spack. Only when none exists are the
tests skipped, and the message names all three. Every Spack command runs
with its user config and caches in the session's scratch directory, so
~/.spack is left alone.
"""
import importlib.metadata
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED_TOOLS = REPO.parent / "shared" / "tools"
# The two gpcnet builds the stage installs, by the spec that selects each:
# every variant off, and every variant on (each variant is a switch of its
# own in the package, so one build with both shows each reaching the
# build; a third build cost about a minute of the stage).
BUILDS = {"default": "gpcnet~python~sanitize", "all": "gpcnet+python+sanitize"}

# +python installs the tool with the Python running these tests, whose
# numpy, matplotlib and jsonschema Spack takes as externals (building them
# would take an hour).
_PY_EXTERNALS = {"py-numpy": "numpy", "py-matplotlib": "matplotlib",
                 "py-jsonschema": "jsonschema", "py-jinja2": "jinja2",
                 "py-markupsafe": "markupsafe", "py-pip": "pip",
                 "py-setuptools": "setuptools", "py-wheel": "wheel"}


def run(cmd, timeout, cwd=None, env=None):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd, env=env, stdin=subprocess.DEVNULL)


def ok(p):
    assert p.returncode == 0, f"exit {p.returncode}\n{p.stdout[-4000:]}\n{p.stderr[-4000:]}"
    return p.stdout


def _python_externals() -> str:
    # Spack may pick either system MPI (Debian has both); the stage tests
    # the same one every time: Open MPI, whose launcher refuses root unless
    # told, which is what the root run of `spack test run` checks.
    lines = ["packages:", "  mpi:", "    require: [openmpi]",
             "  python:", "    buildable: false", "    externals:",
             f"    - spec: python@{platform.python_version()}", f"      prefix: {sys.prefix}"]
    for package, dist in _PY_EXTERNALS.items():
        try:
            version = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            pytest.fail(f"{dist} is not installed for {sys.executable}: run scripts/setup-python.sh")
        lines += [f"  {package}:", "    buildable: false", "    externals:",
                  f"    - spec: {package}@{version}", f"      prefix: {sys.prefix}"]
    return "\n".join(lines) + "\n"


def _copy(src: Path, dest: Path):
    """A writable copy of a (possibly read-only) checkout, modes kept."""
    ok(run(["cp", "-R", src, dest], 300))
    ok(run(["chmod", "-R", "u+w", dest], 120))


def _locate_spack(scratch: Path):
    """(SPACK_ROOT, spack-packages or None, where it came from)."""
    own = os.environ.get("GPCNET_SPACK_ROOT")
    if own:
        if not (Path(own) / "bin" / "spack").exists():
            pytest.fail(f"GPCNET_SPACK_ROOT={own} has no bin/spack", pytrace=False)
        return Path(own), os.environ.get("GPCNET_SPACK_PACKAGES"), "GPCNET_SPACK_ROOT"
    if (SHARED_TOOLS / "spack" / "bin" / "spack").exists():
        _copy(SHARED_TOOLS / "spack", scratch / "spack")
        packages = None
        if (SHARED_TOOLS / "spack-packages").is_dir():
            _copy(SHARED_TOOLS / "spack-packages", scratch / "spack-packages")
            packages = str(scratch / "spack-packages")
        return scratch / "spack", packages, f"a scratch copy of {SHARED_TOOLS}"
    if Path("/opt/spack/bin/spack").exists():
        return Path("/opt/spack"), os.environ.get("GPCNET_SPACK_PACKAGES"), "/opt/spack"
    pytest.skip(f"no Spack: GPCNET_SPACK_ROOT is not set, {SHARED_TOOLS}/spack and "
                "/opt/spack do not exist (scripts/setup-spack.sh says how to get one)")


class Spack:
    """`spack` with the session's config scope (our repository first, a
    scratch install tree and stages, the test Python as an external)."""

    def __init__(self, root: Path, base: Path, env: dict, origin: str):
        self.root, self.base, self.env, self.origin = root, base, env, origin
        self.exe = root / "bin" / "spack"
        self.scope = base / "scope"

    def __call__(self, *args, timeout=900, env_dir=None, cwd=None):
        cmd = [self.exe, "-C", self.scope] + (["-e", env_dir] if env_dir else []) + list(args)
        return run(cmd, timeout, cwd=cwd or self.base, env=self.env)


@pytest.fixture(scope="session")
def spack():
    base = Path(tempfile.mkdtemp(prefix="gpcnet-spack-"))
    # Readable by the unprivileged user of test_spack_test_run_as_a_normal_user.
    base.chmod(0o755)
    try:
        root, packages, origin = _locate_spack(base)
        # Spack's package indexes go to the user cache path: built once (by
        # setup-spack.sh's first command), then used by every command.
        env = dict(os.environ, GPCNET_SPACK_ROOT=str(root),
                   SPACK_USER_CONFIG_PATH=str(base / "user-config"),
                   SPACK_USER_CACHE_PATH=str(base / "user-cache"))
        if packages:
            env["GPCNET_SPACK_PACKAGES"] = packages
        ok(run(["bash", REPO / "scripts" / "setup-spack.sh", root], 600, env=env))
        scope = base / "scope"
        scope.mkdir()
        # Our repository first, so `gpcnet` is ours and not Spack's builtin one.
        (scope / "repos.yaml").write_text(
            f"repos:\n  gpcnet_project: {REPO / 'packaging' / 'spack'}\n")
        (scope / "config.yaml").write_text(
            "config:\n"
            f"  install_tree:\n    root: {base / 'opt'}\n"
            f"  build_stage: [{base / 'stage'}]\n"
            f"  test_stage: {base / 'test'}\n")
        (scope / "packages.yaml").write_text(_python_externals())
        yield Spack(root, base, env, origin)
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="session")
def installed(spack):
    """The two builds, installed once in one Spack environment:
    {build: (spec, prefix)}; .env_dir is the environment."""
    env_dir = spack.base / "env"
    env_dir.mkdir()
    (env_dir / "spack.yaml").write_text(
        "spack:\n"
        f"  specs: [{', '.join(BUILDS.values())}]\n"
        "  concretizer:\n    unify: false\n"
        "  view: false\n")
    ok(spack("install", env_dir=env_dir, timeout=1500))
    builds = {name: (spec, Path(ok(spack("location", "-i", spec, env_dir=env_dir)).strip()))
              for name, spec in BUILDS.items()}
    builds = _Builds(builds)
    builds.env_dir = env_dir
    return builds


class _Builds(dict):
    env_dir = None
