"""The Spack package (packaging/spack) built, installed and tested by a real
Spack, the way docs/spack.md tells a user to.

Spack comes from the session fixture of conftest.py: $GPCNET_SPACK_ROOT, or
a scratch copy of ../shared/tools/spack (and spack-packages) beside the
checkout, or /opt/spack; scripts/setup-spack.sh configures it. Installs go
to a scratch tree through a command-line config scope, once per session.
`spack test run` runs as root and, when the tests run as root, also as a
throw-away unprivileged user made for it (and removed after).
"""
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

import spack_session
from spack_session import REPO, ok, run

sys.path.insert(0, str(REPO / "tests"))
from throwaway_user import reachable_by_others, throwaway_user  # noqa: E402


def test_install_variants(installed):
    """`spack install` of the default build and of +python+sanitize (one
    Spack environment): each variant reaches the build."""
    plain, full = (installed[b][1] for b in ("default", "all"))
    assert plain != full
    for prefix in (plain, full):
        for program in ("network_test", "network_load_test"):
            assert (prefix / "bin" / program).is_file()
    # Only the +sanitize build links ASan.
    ldd = shutil.which("ldd")
    if ldd:
        assert "libasan" in ok(run([ldd, full / "bin" / "network_test"], 60))
        assert "libasan" not in ok(run([ldd, plain / "bin" / "network_test"], 60))
    # The tool is off by default, installed with +python.
    assert not (plain / "bin" / "gpcnet").exists()
    assert (full / "bin" / "gpcnet").is_file()


def _check_results(results, builds):
    """`spack test results -l` of the builds: every part passed, the tool's
    on the +python+sanitize build only."""
    n = len(builds)
    for part in ("test_version", "test_network_test_emulated", "test_network_load_test_emulated"):
        assert results.count(f"Gpcnet::{part} .. PASSED") == n, results
    with_tool = sum(1 for b in builds if b == "all")
    assert results.count("Gpcnet::test_python_tool .. PASSED") == with_tool, results
    assert results.count("Gpcnet::test_python_tool .. SKIPPED") == n - with_tool, results
    assert "Congestion Impact" in results


def test_spack_test_run(spack, installed):
    """`spack test run gpcnet` on every build, as the user running the
    tests (root in CI: the package's tests must start Open MPI as root)."""
    out = ok(spack("test", "run", "--alias", "gpcnet-ci", "gpcnet", env_dir=installed.env_dir))
    assert f"{len(installed)} passed of {len(installed)} specs" in out, out
    _check_results(ok(spack("test", "results", "-l", "gpcnet-ci", env_dir=installed.env_dir)),
                   list(installed))
    # Each MPI is started by its own launcher: in a prefix several MPIs share
    # (Debian's /usr) plain `mpirun` may be another MPI's.
    logs = "".join(p.read_text() for p in (spack.base / "test").rglob("*-test-out.txt"))
    jobs = re.findall(r"'(/[^']*/(?:mpirun|mpiexec)[^'/]*)' '(.*)", logs)   # (launcher, its arguments)
    launched = {launcher for launcher, _ in jobs}
    assert launched, logs[-3000:]
    for launcher in launched:
        own = Path(launcher).with_name("mpirun.openmpi")
        assert not own.exists() or Path(launcher) == own, (launcher, "is not Open MPI's own")
    # Short loops, not only a short time limit (which never cuts a
    # measurement): the jobs stay short on a busy login node.
    assert len(jobs) >= 2 * len(installed), logs[-3000:]  # both programs, every build
    for _, arguments in jobs:
        assert "'--rings' '4' '--iterations' '20'" in arguments, arguments


@pytest.fixture(scope="module")
def as_normal_user(spack):
    """The start of a command line that runs `spack` (the session's scope,
    then the user's own: test stage and caches in a directory it owns) as a
    throw-away unprivileged user, made here and removed after."""
    if os.geteuid() != 0:
        pytest.skip("tests not run as root: test_spack_test_run already ran as a normal user")
    with throwaway_user("gpcnet-t") as user:
        home = spack.base / "user"
        (home / "scope").mkdir(parents=True)
        (home / "scope" / "config.yaml").write_text(
            f"config:\n  test_stage: {home / 'test'}\n  misc_cache: {home / 'cache'}\n")
        # The user's copy of our package repository: the checkout may sit in
        # a directory only root can enter (a clone in `mktemp -d` is 0700).
        shutil.copytree(REPO / "packaging" / "spack", home / "repo")
        (home / "scope" / "repos.yaml").write_text(
            f"repos:\n  gpcnet_project: {home / 'repo'}\n")
        # Spack's package indexes, built once already: the user's copy of them.
        if (spack.base / "user-cache" / "cache").is_dir():
            shutil.copytree(spack.base / "user-cache" / "cache", home / "cache", symlinks=True)
        for path in [home, *home.rglob("*")]:
            os.chown(path, user.pw_uid, user.pw_gid, follow_symlinks=False)
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8",
               "SPACK_USER_CONFIG_PATH": str(home / "user-config"),
               "SPACK_USER_CACHE_PATH": str(home / "user-cache")}
        yield user, home, ["runuser", "-u", user.pw_name, "--", "env", "-i",
                           *(f"{k}={v}" for k, v in env.items()),
                           spack.exe, "-C", spack.scope, "-C", home / "scope"]


@pytest.mark.parametrize("builds", [("default",), ("all",)], ids=["default", "all"])
def test_spack_test_run_as_a_normal_user(spack, installed, as_normal_user, builds):
    """The same `spack test run`, by an unprivileged user (no OMPI root
    switches then), on the root-owned installs: Spack reads its database
    and installs without writing to them. The +python+sanitize build's tool runs
    with the Python it was built with (the one running these tests): where
    other users cannot reach it (e.g. pyenv's under /root, mode 0700), that
    case is skipped, saying so."""
    user, home, as_user = as_normal_user
    python = Path(os.path.realpath(sys.executable))
    if "all" in builds and not reachable_by_others(python):
        pytest.skip(f"the +python build's Python ({python}) is not readable by other users")
    hashes = ["/" + ok(spack("find", "--format", "{hash}", installed[b][0],
                             env_dir=installed.env_dir)).split()[0] for b in builds]
    alias = "as-user-" + "-".join(builds)
    out = ok(run([*as_user, "test", "run", "--alias", alias, *hashes], 900, cwd=home))
    # Spack says "1 passed of 1 spec" for one build.
    assert re.search(rf"\b{len(builds)} passed of {len(builds)} specs?\b", out), out
    _check_results(ok(run([*as_user, "test", "results", "-l", alias], 300, cwd=home)), builds)
    # Nothing was written into the root-owned install tree.
    assert not [p for p in (spack.base / "opt").rglob("*") if p.stat().st_uid == user.pw_uid]


def test_versions_come_from_release_tags(spack, tmp_path):
    """A release tag vX.Y.Z of the clone becomes version X.Y.Z, fetched from
    that clone at the tagged commit."""
    clone = tmp_path / "clone"
    ok(run(["git", "clone", "-q", "--no-local", REPO, clone], 120))
    ok(run(["git", "-C", clone, "tag", "v9.8.7"], 30))
    commit = ok(run(["git", "-C", clone, "rev-parse", "HEAD"], 30)).strip()
    scope = tmp_path / "scope"
    scope.mkdir()
    (scope / "repos.yaml").write_text(
        f"repos:\n  gpcnet_project: {clone / 'packaging' / 'spack'}\n")
    info = ok(run([spack.exe, "-C", scope, "info", "gpcnet"], 300, cwd=tmp_path, env=spack.env))
    assert "9.8.7" in info and "main" in info, info
    assert f"file://{clone}" in info, info
    assert commit in info, info
    assert "python" in info and "sanitize" in info


def test_bad_variant_is_refused(spack):
    p = spack("spec", "gpcnet+no_such_variant", timeout=300)
    assert p.returncode != 0
    assert "no_such_variant" in (p.stdout + p.stderr)


def test_a_shared_spack_is_used_through_a_scratch_copy(spack):
    """Where ../shared/tools/spack was taken, the tests use a copy in the
    session's scratch directory (and its spack-packages copy): nothing under
    ../shared is written."""
    if not spack.origin.startswith("a scratch copy"):
        pytest.skip(f"Spack came from {spack.origin}, not from {spack_session.SHARED_TOOLS}")
    assert spack.root == spack.base / "spack"
    assert spack.env["GPCNET_SPACK_ROOT"] == str(spack.base / "spack")
    assert spack.env["GPCNET_SPACK_PACKAGES"] == str(spack.base / "spack-packages")
    site = (spack.root / "etc" / "spack" / "site" / "repos.yaml").read_text()
    assert str(spack.base / "spack-packages") in site, site


def test_no_spack_anywhere_is_a_skip_naming_the_places(monkeypatch, tmp_path):
    monkeypatch.delenv("GPCNET_SPACK_ROOT", raising=False)
    monkeypatch.setattr(spack_session, "SHARED_TOOLS", tmp_path / "no-shared" / "tools")
    if Path("/opt/spack/bin/spack").exists():
        pytest.skip("/opt/spack exists here")
    with pytest.raises(pytest.skip.Exception) as skip:
        spack_session._locate_spack(tmp_path)
    for place in ("GPCNET_SPACK_ROOT", str(tmp_path / "no-shared" / "tools"), "/opt/spack"):
        assert place in str(skip.value)
    # A GPCNET_SPACK_ROOT that is no checkout is an error, not a skip.
    monkeypatch.setenv("GPCNET_SPACK_ROOT", str(tmp_path))
    with pytest.raises(pytest.fail.Exception, match="has no bin/spack"):
        spack_session._locate_spack(tmp_path)
