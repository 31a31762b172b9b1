"""The bench scripts' timing lock is never reached through a planted link,
and its default lives where only root (or the user) can write (issue 39).

`flock /tmp/gpcnet-timing.lock ...` as root followed a link another user
put there, creating (or locking) whatever it named. The scripts now take
the lock through bench/timing_lock.py.
"""

from __future__ import annotations

import fcntl
import importlib.util
import os
import stat
import subprocess
import sys

import pytest

from conftest import REPO

HELPER = REPO / "bench" / "timing_lock.py"
HANG_GUARD_S = 60


def _helper_module():
    spec = importlib.util.spec_from_file_location("timing_lock", HELPER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


timing_lock = _helper_module()


def helper(*args, env=None):
    return subprocess.run([sys.executable, str(HELPER), *map(str, args)], capture_output=True,
                          text=True, timeout=HANG_GUARD_S, stdin=subprocess.DEVNULL,
                          env=dict(os.environ, **(env or {})))


def one_line(p, needle):
    assert p.returncode == 2, p.stdout + p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], p.stderr


@pytest.fixture
def planted(tmp_path):
    """A link at the lock's name pointing to a file that does not exist yet."""
    target = tmp_path / "created-through-the-link"
    link = tmp_path / "gpcnet-timing.lock"
    link.symlink_to(target)
    return link, target


def test_link_at_the_lock_is_refused_and_nothing_runs(tmp_path, planted):
    link, target = planted
    marker = tmp_path / "ran"
    p = helper("--lock", link, "--", "touch", marker)
    one_line(p, "is a symbolic link; refusing to follow it")
    assert not target.exists() and not marker.exists()
    assert link.is_symlink()


def test_link_named_by_the_environment_is_refused(planted):
    link, target = planted
    p = helper("--check", env={"GPCNET_TIMING_LOCK": str(link)})
    one_line(p, "is a symbolic link")
    assert not target.exists()


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_pipe_or_directory_at_the_lock_is_refused_at_once(tmp_path, kind):
    lock = tmp_path / "gpcnet-timing.lock"
    os.mkfifo(lock) if kind == "fifo" else lock.mkdir()
    p = helper("--lock", lock, "--", "true")
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert "timing lock" in p.stderr


def test_the_command_runs_holding_the_lock(tmp_path):
    lock = tmp_path / "t.lock"
    probe = ("import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDONLY)\n"
             "try:\n    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\nexcept BlockingIOError:\n"
             "    sys.exit(7)\n")
    p = helper("--lock", lock, "--", sys.executable, "-c", probe, lock)
    assert p.returncode == 7, "the command ran without the lock held: " + p.stderr
    assert stat.S_ISREG(os.lstat(lock).st_mode)
    fd = os.open(lock, os.O_RDONLY)  # released when the command ended
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(fd)


def _user_dir(path, mode):
    """A directory of a user who is not root: ours, or (as root) given away."""
    path.mkdir()
    path.chmod(mode)
    if os.geteuid() == 0:
        os.chown(path, 4242, 4242)
    return os.stat(path).st_uid


def test_default_for_a_user_is_under_xdg_runtime_dir(tmp_path):
    runtime = tmp_path / "runtime"
    uid = _user_dir(runtime, 0o700)
    assert timing_lock.default_path({"XDG_RUNTIME_DIR": str(runtime)}, euid=uid) == \
        str(runtime / "gpcnet-timing.lock")


def test_default_for_root_is_in_a_root_only_directory(tmp_path):
    root_dir = tmp_path / "gpcnet"
    if os.geteuid() != 0:
        pytest.skip("root only: the directory must belong to root")
    assert timing_lock.default_path({}, euid=0, root_dir=str(root_dir)) == str(root_dir / "timing.lock")
    assert stat.S_IMODE(os.stat(root_dir).st_mode) & 0o022 == 0


def test_default_refuses_a_directory_others_can_write(tmp_path):
    shared = tmp_path / "shared"
    uid = _user_dir(shared, 0o1777)
    with pytest.raises(timing_lock.LockError, match="others can write there"):
        timing_lock.default_path({"XDG_RUNTIME_DIR": str(shared)}, euid=uid)
    if os.geteuid() == 0:
        os.chown(shared, 0, 0)
        with pytest.raises(timing_lock.LockError, match="others can write there"):
            timing_lock.default_path({}, euid=0, root_dir=str(shared))


def test_default_refuses_a_directory_of_another_user(tmp_path):
    theirs = tmp_path / "theirs"
    uid = _user_dir(theirs, 0o700)
    with pytest.raises(timing_lock.LockError, match="belongs to another user"):
        timing_lock.default_path({"XDG_RUNTIME_DIR": str(theirs)}, euid=uid + 1)


def test_default_refuses_a_link_as_its_directory(tmp_path):
    real = tmp_path / "real"
    real.mkdir(mode=0o755)
    link = tmp_path / "gpcnet"
    link.symlink_to(real)
    with pytest.raises(timing_lock.LockError, match="a link is not followed"):
        timing_lock.default_path({}, euid=0, root_dir=str(link))


@pytest.mark.parametrize("slash", ["", "/", "//"])
def test_a_link_as_the_directory_is_not_followed_even_with_a_trailing_slash(tmp_path, slash):
    """A trailing slash made lstat, and open(O_NOFOLLOW), follow a link
    planted as the lock's directory (issue 55): the lock was made in
    whatever the link named."""
    real = tmp_path / "real"
    real.mkdir(mode=0o755)
    link = tmp_path / "gpcnet"
    link.symlink_to(real)
    with pytest.raises(timing_lock.LockError, match="a link is not followed"):
        timing_lock.open_default({}, euid=0, root_dir=str(link) + slash)
    assert list(real.iterdir()) == []
    users = tmp_path / "users"
    uid = _user_dir(users, 0o700)
    runtime = tmp_path / "runtime-link"
    runtime.symlink_to(users)
    with pytest.raises(timing_lock.LockError, match="a link is not followed"):
        timing_lock.open_default({"XDG_RUNTIME_DIR": str(runtime) + slash}, euid=uid)
    assert list(users.iterdir()) == []


def test_the_lock_is_opened_in_the_directory_that_was_checked(tmp_path, monkeypatch):
    """A directory swapped for a link just after its check: the lock is
    still made in the checked directory, never where the link points."""
    runtime, elsewhere = tmp_path / "runtime", tmp_path / "elsewhere"
    uid = _user_dir(runtime, 0o700)
    elsewhere.mkdir()
    checked = timing_lock._open_private_dir

    def check_then_swap(directory, owner):
        fd = checked(directory, owner)
        runtime.rename(tmp_path / "moved")
        runtime.symlink_to(elsewhere)
        return fd

    monkeypatch.setattr(timing_lock, "_open_private_dir", check_then_swap)
    fd, path = timing_lock.open_default({"XDG_RUNTIME_DIR": str(runtime)}, euid=uid)
    os.close(fd)
    assert path == str(runtime / "gpcnet-timing.lock")
    assert list(elsewhere.iterdir()) == []
    assert (tmp_path / "moved" / "gpcnet-timing.lock").is_file()


def test_no_runtime_dir_for_a_user_is_one_line():
    with pytest.raises(timing_lock.LockError, match="XDG_RUNTIME_DIR is not set"):
        timing_lock.default_path({}, euid=4242)


def _fake_build(d):
    d.mkdir()
    exe = d / "network_load_test"
    exe.write_text("#!/bin/sh\ntouch \"$(dirname \"$0\")/ran\"\n")
    exe.chmod(0o755)
    return d


@pytest.mark.parametrize("script", ["ab_builds.sh", "compare_reference.sh", "converge.sh"])
def test_bench_scripts_refuse_a_link_at_the_lock(tmp_path, planted, script):
    """Each script refuses before its first run; what the link names is not
    created."""
    link, target = planted
    a, b = _fake_build(tmp_path / "a"), _fake_build(tmp_path / "b")
    args = {"ab_builds.sh": ["--lock", link, "--pairs", "1", a, b],
            "compare_reference.sh": ["--lock", link, "--build", b, "--pairs", "1", a],
            "converge.sh": []}[script]
    env = dict(os.environ, GPCNET_TIMING_LOCK=str(link), GPCNET_BUILD_DIR=str(b))
    p = subprocess.run(["bash", str(REPO / "bench" / script), *map(str, args)], env=env,
                       cwd=tmp_path, capture_output=True, text=True, timeout=HANG_GUARD_S,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 2, p.stdout[-1000:] + p.stderr[-2000:]
    assert "is a symbolic link; refusing to follow it" in p.stderr, p.stderr[-2000:]
    assert not target.exists(), "the lock was created through the link"
    assert not (a / "ran").exists() and not (b / "ran").exists()


def test_no_bench_script_calls_flock_on_a_name():
    """flock FILE opens FILE itself, following a link: only the helper may
    open the lock."""
    for script in (REPO / "bench").glob("*.sh"):
        for n, line in enumerate(script.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            assert "flock " not in code, f"{script.name}:{n}: {line.strip()}"
