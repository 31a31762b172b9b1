"""The bench scripts' timing lock: no two timing runs overlap on a host, and
the lock file is never reached through a link someone planted.

    python3 bench/timing_lock.py [--lock FILE] --check
    python3 bench/timing_lock.py [--lock FILE] -- COMMAND [ARGS...]

--check opens (creates) the lock and prints its path; the second form takes
the lock (flock, waiting for whoever holds it) and becomes COMMAND, which
keeps it until it ends. Python scripts use ``hold()``.

The lock is FILE, else $GPCNET_TIMING_LOCK, else /run/gpcnet/timing.lock
for root (a directory only root can write) or
$XDG_RUNTIME_DIR/gpcnet-timing.lock for anyone else (the user's own).
A fixed name in /tmp would let another user plant a link there, and root
would create, or lock, whatever it names. The name is opened with
O_NOFOLLOW and O_NONBLOCK and must be a regular file; the default's
directory is opened without following a link (a trailing slash does not
make it followed), must belong to root (or, for XDG_RUNTIME_DIR, to the
user) and be writable by no one else, checked on the open directory, and
the lock is opened in that very directory. Any refusal: one line, exit 2.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import sys

ROOT_DIR = "/run/gpcnet"
ROOT_NAME = "timing.lock"
USER_NAME = "gpcnet-timing.lock"


class LockError(Exception):
    pass


def _open_private_dir(directory: str, owner: int) -> int:
    """A descriptor of `directory`, checked on the descriptor: opened without
    following a link at its last component (a trailing slash would make the
    kernel follow one, so it is dropped first), a directory of `owner` that
    no one else can write. What it holds is then opened relative to it, so
    a directory swapped after the check is not the one used."""
    name = directory.rstrip("/") or "/"
    parent, base = os.path.split(name)
    try:
        if not base:   # "/" itself
            fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        else:
            pfd = os.open(parent or ".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            try:
                fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=pfd)
            finally:
                os.close(pfd)
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.ENOTDIR):
            raise LockError(f"{directory}: not a directory (a link is not followed); refusing to put "
                            "the timing lock there") from None
        raise LockError(f"{directory}: {e.strerror}") from None
    st = os.fstat(fd)
    problem = None
    if st.st_uid != owner:
        problem = "belongs to another user; refusing to put the timing lock there (give --lock FILE)"
    elif st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        problem = "others can write there; refusing to put the timing lock there (give --lock FILE)"
    if problem:
        os.close(fd)
        raise LockError(f"{directory}: {problem}")
    return fd


def _default_place(environ, euid: int | None, root_dir: str) -> tuple:
    """(directory descriptor or None, path) of the lock when no --lock is
    given: the descriptor is None for $GPCNET_TIMING_LOCK, a path the user
    names (followed like any path typed)."""
    euid = os.geteuid() if euid is None else euid
    if environ.get("GPCNET_TIMING_LOCK"):
        return None, environ["GPCNET_TIMING_LOCK"]
    if euid == 0:
        try:
            os.mkdir(root_dir, 0o755)
        except FileExistsError:
            pass
        except OSError as e:
            raise LockError(f"{root_dir}: cannot create it: {e.strerror}") from None
        return _open_private_dir(root_dir, 0), os.path.join(root_dir, ROOT_NAME)
    runtime = environ.get("XDG_RUNTIME_DIR")
    if not runtime:
        raise LockError("no place for the timing lock: XDG_RUNTIME_DIR is not set "
                        "(give --lock FILE or set GPCNET_TIMING_LOCK)")
    return _open_private_dir(runtime, euid), os.path.join(runtime, USER_NAME)


def default_path(environ=os.environ, euid: int | None = None, root_dir: str = ROOT_DIR) -> str:
    """Where the lock is when no --lock is given (see the module doc)."""
    dir_fd, path = _default_place(environ, euid, root_dir)
    if dir_fd is not None:
        os.close(dir_fd)
    return path


def open_lock(path: str, dir_fd: int | None = None) -> int:
    """The lock file's descriptor: created if missing, never through a
    link, never a pipe or device (opened without waiting, then checked).
    With `dir_fd`, its name is opened in that directory (the one checked)."""
    flags = os.O_RDONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    try:
        if dir_fd is None:
            fd = os.open(path, flags, 0o644)
        else:
            fd = os.open(os.path.basename(path), flags, 0o644, dir_fd=dir_fd)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise LockError(f"{path}: is a symbolic link; refusing to follow it for the timing "
                            "lock (remove it first)") from None
        raise LockError(f"{path}: cannot open the timing lock: {e.strerror}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise LockError(f"{path}: not a regular file; refusing to use it as the timing lock")
    return fd


def open_default(environ=os.environ, euid: int | None = None, root_dir: str = ROOT_DIR) -> tuple:
    """(lock descriptor, path) at the default place, opened in the
    directory that was checked."""
    dir_fd, path = _default_place(environ, euid, root_dir)
    try:
        return open_lock(path, dir_fd), path
    finally:
        if dir_fd is not None:
            os.close(dir_fd)


def hold(path: str | None = None) -> int:
    """Take the lock (waiting for it); it is held while the returned
    descriptor stays open."""
    fd = open_lock(path) if path else open_default()[0]
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


@contextlib.contextmanager
def held(path: str | None):
    """A bench's --lock FILE: an flock on FILE for the `with` block (none
    without a path), the file opened as open_lock does (never through a
    link, a regular file only)."""
    if not path:
        yield
        return
    try:
        fd = open_lock(path)
    except LockError as e:
        print(f"{os.path.basename(sys.argv[0])}: --lock {e}", file=sys.stderr)
        raise SystemExit(2) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def main(argv: list) -> int:
    lock, check = None, False
    while argv and argv[0] != "--":
        if argv[0] == "--lock" and len(argv) >= 2 and argv[1]:
            lock, argv = argv[1], argv[2:]
        elif argv[0] == "--check":
            check, argv = True, argv[1:]
        else:
            print(f"timing_lock: unexpected argument {argv[0]!r} (usage: [--lock FILE] --check | "
                  "[--lock FILE] -- COMMAND...)", file=sys.stderr)
            return 2
    command = argv[1:]
    if not check and not command:
        print("timing_lock: no command after --", file=sys.stderr)
        return 2
    try:
        fd, path = (open_lock(lock), lock) if lock else open_default()
        if check:
            os.close(fd)
            print(path)
            return 0
        fcntl.flock(fd, fcntl.LOCK_EX)
    except LockError as e:
        print(f"timing_lock: {e}", file=sys.stderr)
        return 2
    os.set_inheritable(fd, True)  # the command keeps the lock until it ends
    try:
        os.execvp(command[0], command)
    except OSError as e:
        print(f"timing_lock: cannot run {command[0]}: {e.strerror}", file=sys.stderr)
        return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
