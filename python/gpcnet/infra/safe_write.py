"""Every file gpcnet writes goes through here: nothing is written through a
link someone planted, and nothing that exists is replaced without --force.

A whole file (``write_text``/``write_bytes``) is written to a fresh
temporary in the target directory, flushed to disk, then moved onto its
name: readers see the old file or the new one, never half of one. On Linux
the temporary has no name while it is written (O_TMPFILE): it is linked in
whole, under the target's name (without ``force``) or under a fresh name
renamed onto it at once, with SIGINT, SIGTERM and SIGHUP held for those two
calls, so a process killed or signalled at any point leaves no temporary
beside the output. Elsewhere it is a named one created with
O_CREAT|O_EXCL|O_NOFOLLOW (a planted name makes it pick another, never
follow it), removed if the write fails or is interrupted. A stream that is written while something runs (``open_new``,
e.g. an application's stdout) is created directly under its name with the
same flags, so it is visible while it grows.

The target name itself must not be a symbolic link, a named pipe, a
device, a socket or a directory (refused even with ``force``, and never
opened: replacing a link someone else put there is never what the user
meant, and a pipe would block or feed its reader) and, unless ``force``,
must not exist. Missing parent directories
are created. Every refusal is a GpcnetError naming the file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import signal
import stat
from pathlib import Path

from gpcnet.infra.errors import GpcnetError

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_TRIES = 16  # fresh temporary names tried before giving up (each is 64 random bits)


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link"), (stat.S_ISREG, "a file"))


def kind_of(mode: int) -> str:
    """What a stat mode is, in words ("a named pipe")."""
    return next((name for test, name in _KINDS if test(mode)), "not a file")


def _check_target(path: Path, force: bool) -> bool:
    """Refuse a link, a non-file or (without force) an existing file; True if it exists."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    except OSError as e:
        raise GpcnetError(f"{path}: cannot write: {e.strerror}") from None
    if stat.S_ISLNK(st.st_mode):
        raise GpcnetError(f"{path}: is a symbolic link; refusing to write through it (remove it first)")
    if not stat.S_ISREG(st.st_mode):
        # Never opened, never replaced: a pipe someone planted would block
        # or feed a reader, and a device or directory is not ours to replace.
        raise GpcnetError(f"{path}: is {kind_of(st.st_mode)}, not a regular file; refusing to write to it")
    if not force:
        raise GpcnetError(f"{path}: already exists; use --force to replace it")
    return True


def _parent(path: Path) -> Path:
    parent = path.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise GpcnetError(f"{path}: cannot create directory {parent}: {e.strerror}") from None
    return parent


def prepare(path, *, force: bool = False) -> None:
    """Check early, before seconds of work, that ``path`` can be written:
    its directory exists (made if missing) and the name may be taken."""
    path = Path(path)
    _parent(path)
    _check_target(path, force)


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _fresh_temp(path: Path) -> tuple:
    for _ in range(_TRIES):
        tmp = path.parent / f".{path.name}.{secrets.token_hex(8)}.tmp"
        try:
            return tmp, os.open(tmp, _FLAGS, 0o666)
        except FileExistsError:
            continue  # someone holds this name (perhaps a planted link): take another
        except OSError as e:
            raise GpcnetError(f"{path}: cannot write: {e.strerror}") from None
    raise GpcnetError(f"{path}: cannot write: no free temporary name in {path.parent}")


# Whatever fails with these, a named temporary does the job instead.
_NO_UNNAMED = (errno.EOPNOTSUPP, errno.ENOTSUP, errno.EISDIR, errno.EINVAL, errno.ENOENT, errno.EPERM,
               errno.EXDEV, errno.EMLINK, errno.EACCES)
_HELD = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


@contextlib.contextmanager
def _signals_held():
    """A few system calls that must not be cut apart: these signals wait."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _link_in(fd: int, dir_fd: int, path: Path, force: bool) -> bool:
    """Give the unnamed file `fd` the name of `path` (in `dir_fd`); False
    where this file system cannot link it in (the caller falls back)."""
    src = f"/proc/self/fd/{fd}"
    with _signals_held():
        if not force:
            try:   # atomic: refused if the name (a planted link included) exists
                os.link(src, path.name, dst_dir_fd=dir_fd, follow_symlinks=True)
                return True
            except FileExistsError:
                _check_target(path, force)  # names what is there now
                raise GpcnetError(f"{path}: already exists; use --force to replace it") from None
            except OSError as e:
                if e.errno in _NO_UNNAMED:
                    return False
                raise GpcnetError(f"{path}: cannot write: {e.strerror}") from None
        _check_target(path, force)
        for _ in range(_TRIES):
            tmp = f".{path.name}.{secrets.token_hex(8)}.tmp"
            try:
                os.link(src, tmp, dst_dir_fd=dir_fd, follow_symlinks=True)
            except FileExistsError:
                continue  # someone holds this name (perhaps a planted link): take another
            except OSError as e:
                if e.errno in _NO_UNNAMED:
                    return False
                raise GpcnetError(f"{path}: cannot write: {e.strerror}") from None
            try:  # rename never follows a link at the target; it replaces the name
                os.replace(tmp, path.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            except OSError as e:
                with contextlib.suppress(OSError):
                    os.unlink(tmp, dir_fd=dir_fd)
                raise GpcnetError(f"{path}: cannot write: {e.strerror}") from None
            return True
    raise GpcnetError(f"{path}: cannot write: no free temporary name in {path.parent}")


def _write_unnamed(path: Path, data: bytes, force: bool) -> bool:
    """Write `data` through a file with no name until it is whole (Linux
    O_TMPFILE); False where that is not possible (nothing was written)."""
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag or not os.path.isdir("/proc/self/fd"):
        return False
    try:
        dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        try:
            fd = os.open(".", flag | os.O_WRONLY | os.O_CLOEXEC, 0o666, dir_fd=dir_fd)
        except OSError as e:
            if e.errno in _NO_UNNAMED:
                return False
            raise GpcnetError(f"{path}: cannot write: {e.strerror}") from None
        with os.fdopen(fd, "wb") as f:
            try:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            except OSError as e:
                raise GpcnetError(f"{path}: cannot write: {e.strerror}") from None
            return _link_in(f.fileno(), dir_fd, path, force)
    finally:
        os.close(dir_fd)


def write_bytes(path, data: bytes, *, force: bool = False) -> None:
    """Write ``data`` as the whole new content of ``path`` (see the module doc)."""
    path = Path(path)
    _parent(path)
    _check_target(path, force)
    if _write_unnamed(path, data, force):
        _fsync_dir(path.parent)
        return
    tmp, fd = _fresh_temp(path)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        _commit(tmp, path, force)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def _commit(tmp: Path, path: Path, force: bool) -> None:
    if not force:
        # A hard link is an atomic "create unless it exists": nothing that
        # appeared since the check is replaced. Filesystems without hard
        # links fall back to the check just made.
        try:
            os.link(tmp, path, follow_symlinks=False)
        except FileExistsError:
            _check_target(path, force)  # names what is there now
            raise GpcnetError(f"{path}: already exists; use --force to replace it") from None
        except OSError as e:
            if e.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
                raise GpcnetError(f"{path}: cannot write: {e.strerror}") from None
        else:
            os.unlink(tmp)
            return
    _check_target(path, force)
    try:
        os.replace(tmp, path)  # rename never follows a link at the target; it replaces the name
    except OSError as e:
        raise GpcnetError(f"{path}: cannot write: {e.strerror}") from None


def write_text(path, text: str, *, force: bool = False, encoding: str = "utf-8") -> None:
    """Write ``text`` as the whole new content of ``path`` (see the module doc)."""
    write_bytes(path, text.encode(encoding), force=force)


@contextlib.contextmanager
def open_new(path, mode: str = "w", *, force: bool = False, encoding: str = "utf-8"):
    """Create ``path`` as a fresh file and yield it open for writing.

    With ``force`` an existing regular file is removed first (the name, not
    what it points to); a link or something else at the name is refused.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"open_new: mode {mode!r} (only 'w' or 'wb')")
    path = Path(path)
    _parent(path)
    if _check_target(path, force):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
    try:
        fd = os.open(path, _FLAGS, 0o666)
    except FileExistsError:
        _check_target(path, False)  # appeared meanwhile: say what it is
        raise GpcnetError(f"{path}: already exists; use --force to replace it") from None
    except OSError as e:
        raise GpcnetError(f"{path}: cannot write: {e.strerror}") from None
    f = os.fdopen(fd, mode, encoding=None if "b" in mode else encoding)
    try:
        yield f
        f.flush()
        with contextlib.suppress(OSError):
            os.fsync(f.fileno())
    finally:
        f.close()
