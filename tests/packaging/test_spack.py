"""The Spack package (packaging/spack) built, installed and tested by a real
Spack, the way docs/spack.md tells a user to.

Spack comes from $GPCNET_SPACK_ROOT, else /opt/spack (a checkout; see
scripts/setup-spack.sh, which this test runs to configure it). Without a
checkout the tests are skipped, saying how to get one. Installs go to a
temporary tree through a command-line config scope, so every run builds
the package afresh and the user's Spack is left as it was.
"""
import importlib.metadata
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SPACK_ROOT = Path(os.environ.get("GPCNET_SPACK_ROOT", "/opt/spack"))
SPACK = SPACK_ROOT / "bin" / "spack"


# +python installs the tool with the Python running these tests, whose
# numpy, matplotlib and jsonschema Spack takes as externals (building them
# would take an hour).
_PY_EXTERNALS = {"py-numpy": "numpy", "py-matplotlib": "matplotlib",
                 "py-jsonschema": "jsonschema", "py-pip": "pip",
                 "py-setuptools": "setuptools", "py-wheel": "wheel"}


def _python_externals() -> str:
    lines = ["packages:",
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


def _run(cmd, timeout, cwd=None):
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True,
                       timeout=timeout, cwd=cwd, stdin=subprocess.DEVNULL)
    return p


@pytest.fixture(scope="module")
def spack(tmp_path_factory):
    if not SPACK.exists():
        pytest.skip(f"no Spack checkout at {SPACK_ROOT}: set GPCNET_SPACK_ROOT or "
                    "clone Spack there (scripts/setup-spack.sh says how)")
    setup = _run(["bash", REPO / "scripts" / "setup-spack.sh", SPACK_ROOT], timeout=600)
    assert setup.returncode == 0, setup.stdout + setup.stderr
    base = tmp_path_factory.mktemp("spack")
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

    def run(*args, timeout=900, env_dir=None):
        cmd = [SPACK, "-C", scope]
        if env_dir:
            cmd += ["-e", env_dir]
        return _run(cmd + list(args), timeout=timeout, cwd=base)

    run.base = base
    return run


def _ok(p):
    assert p.returncode == 0, f"exit {p.returncode}\n{p.stdout[-4000:]}\n{p.stderr[-4000:]}"
    return p.stdout


def test_install_variants_and_spack_test_run(spack):
    """`spack install gpcnet` (default, +sanitize and +python, one Spack
    environment) and `spack test run gpcnet` on emulated nodes."""
    env_dir = spack.base / "env"
    env_dir.mkdir()
    (env_dir / "spack.yaml").write_text(
        "spack:\n"
        "  specs: [gpcnet, gpcnet+sanitize, gpcnet+python]\n"
        "  concretizer:\n    unify: false\n"
        "  view: false\n")
    _ok(spack("install", env_dir=env_dir, timeout=1200))

    plain = Path(_ok(spack("location", "-i", "gpcnet~sanitize~python", env_dir=env_dir)).strip())
    tool = Path(_ok(spack("location", "-i", "gpcnet+python", env_dir=env_dir)).strip())
    sanitized = Path(_ok(spack("location", "-i", "gpcnet+sanitize", env_dir=env_dir)).strip())
    assert plain != sanitized
    for prefix in (plain, sanitized):
        for program in ("network_test", "network_load_test"):
            assert (prefix / "bin" / program).is_file()
    # The variant reaches CMake: only the +sanitize build links ASan.
    ldd = shutil.which("ldd")
    if ldd:
        assert "libasan" in _ok(_run([ldd, sanitized / "bin" / "network_test"], 60))
        assert "libasan" not in _ok(_run([ldd, plain / "bin" / "network_test"], 60))
    # The tool is off by default, installed with +python.
    assert not (plain / "bin" / "gpcnet").exists()
    assert (tool / "bin" / "gpcnet").is_file()

    # Both builds without sanitizers (ASan under mpirun reports Open MPI's
    # own leaks); the +python one also runs the tool.
    out = _ok(spack("test", "run", "--alias", "gpcnet-ci", "gpcnet~sanitize",
                    env_dir=env_dir, timeout=900))
    assert "2 passed of 2 specs" in out, out
    results = _ok(spack("test", "results", "-l", "gpcnet-ci", env_dir=env_dir))
    for part in ("test_version", "test_network_test_emulated",
                 "test_network_load_test_emulated"):
        assert results.count(f"Gpcnet::{part} .. PASSED") == 2, results
    assert results.count("Gpcnet::test_python_tool .. PASSED") == 1, results
    assert results.count("Gpcnet::test_python_tool .. SKIPPED") == 1, results
    assert "Congestion Impact" in results


def test_versions_come_from_release_tags(spack, tmp_path):
    """A release tag vX.Y.Z of the clone becomes version X.Y.Z, fetched from
    that clone at the tagged commit."""
    clone = tmp_path / "clone"
    _ok(_run(["git", "clone", "-q", "--no-local", REPO, clone], 120))
    _ok(_run(["git", "-C", clone, "tag", "v9.8.7"], 30))
    commit = _ok(_run(["git", "-C", clone, "rev-parse", "HEAD"], 30)).strip()
    scope = tmp_path / "scope"
    scope.mkdir()
    (scope / "repos.yaml").write_text(
        f"repos:\n  gpcnet_project: {clone / 'packaging' / 'spack'}\n")
    p = _run([SPACK, "-C", scope, "info", "gpcnet"], 300, cwd=tmp_path)
    info = _ok(p)
    assert "9.8.7" in info and "main" in info, info
    assert f"file://{clone}" in info, info
    assert commit in info, info
    assert "python" in info and "sanitize" in info


def test_bad_variant_is_refused(spack):
    p = spack("spec", "gpcnet+no_such_variant", timeout=300)
    assert p.returncode != 0
    assert "no_such_variant" in (p.stdout + p.stderr)
