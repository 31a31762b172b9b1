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
directory must belong to root (or, for XDG_RUNTIME_DIR, to the user) and
be writable by no one else. Any refusal: one line, exit 2.
"""

from __future__ import annotations

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


def _private_dir(directory: str, owner: int) -> None:
    try:
        st = os.lstat(directory)
    except OSError as e:
        raise LockError(f"{directory}: {e.strerror}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise LockError(f"{directory}: not a directory (a link is not followed); refusing to put "
                        "the timing lock there")
    if st.st_uid != owner:
        raise LockError(f"{directory}: belongs to another user; refusing to put the timing lock "
                        "there (give --lock FILE)")
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise LockError(f"{directory}: others can write there; refusing to put the timing lock "
                        "there (give --lock FILE)")


def default_path(environ=os.environ, euid: int | None = None, root_dir: str = ROOT_DIR) -> str:
    """Where the lock is when no --lock is given (see the module doc)."""
    euid = os.geteuid() if euid is None else euid
    if environ.get("GPCNET_TIMING_LOCK"):
        return environ["GPCNET_TIMING_LOCK"]
    if euid == 0:
        try:
            os.mkdir(root_dir, 0o755)
        except FileExistsError:
            pass
        except OSError as e:
            raise LockError(f"{root_dir}: cannot create it: {e.strerror}") from None
        _private_dir(root_dir, 0)
        return os.path.join(root_dir, ROOT_NAME)
    runtime = environ.get("XDG_RUNTIME_DIR")
    if not runtime:
        raise LockError("no place for the timing lock: XDG_RUNTIME_DIR is not set "
                        "(give --lock FILE or set GPCNET_TIMING_LOCK)")
    _private_dir(runtime, euid)
    return os.path.join(runtime, USER_NAME)


def open_lock(path: str) -> int:
    """The lock file's descriptor: created if missing, never through a
    link, never a pipe or device (opened without waiting, then checked)."""
    flags = os.O_RDONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise LockError(f"{path}: is a symbolic link; refusing to follow it for the timing "
                            "lock (remove it first)") from None
        raise LockError(f"{path}: cannot open the timing lock: {e.strerror}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise LockError(f"{path}: not a regular file; refusing to use it as the timing lock")
    return fd


def hold(path: str | None = None) -> int:
    """Take the lock (waiting for it); it is held while the returned
    descriptor stays open."""
    fd = open_lock(path or default_path())
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


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
        path = lock or default_path()
        if check:
            os.close(open_lock(path))
            print(path)
            return 0
        fd = hold(path)
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
