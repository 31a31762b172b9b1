"""The study's job directory, FILE.d/, held open from the start of the
study to its end, so that it cannot be swapped under the study.

In a directory others can write (and that is not sticky) anyone can rename
FILE.d while a study runs and put a link, or a directory of their own, at
its name: every job file opened by the name afterwards would be written
into, or read from, whatever they chose. So the directory is opened once
(never through a link, checked on the descriptor to be a directory of
ours) and everything is reached through the descriptor: by the path
`/proc/<study pid>/fd/<n>/NAME`, whose directory the kernel resolves to the
one opened, never by its name again. That path is what this process reads
and writes (the job files, what the congestor and the sampler leave there),
and what the jobs are given where they run on this host (the local
launcher; the hostfile mpirun reads). Jobs on other nodes cannot see this
process's descriptors: they are given FILE.d/NAME, and the directory is
checked before each step of a run and after each result is read back
(`check`): a swap stops the study with one line, and what was read is
never used. See docs/security.md, guarantee 1.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from gpcnet.infra.errors import GpcnetError

# Tests: called with the step's name just before each check (to swap the
# directory at that point of a run).
HOOK = None


class JobDirChanged(GpcnetError):
    """FILE.d is no longer the directory the study opened."""


class JobDir:
    def __init__(self, named: Path):
        self.named = Path(named)
        flags = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
        try:
            parent = os.open(self.named.parent, flags)
        except OSError as e:
            raise GpcnetError(f"{self.named.parent}: cannot open: {e.strerror}") from None
        try:
            try:
                os.mkdir(self.named.name, 0o777, dir_fd=parent)
            except FileExistsError:
                pass
            except OSError as e:
                raise GpcnetError(f"{self.named}: cannot create it: {e.strerror}") from None
            try:
                self.fd = os.open(self.named.name, flags | os.O_NOFOLLOW, dir_fd=parent)
            except OSError as e:
                if e.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise GpcnetError(f"{self.named}: not a directory of ours (a link or a file); "
                                      "remove it first") from None
                raise GpcnetError(f"{self.named}: cannot open: {e.strerror}") from None
        finally:
            os.close(parent)
        st = os.fstat(self.fd)
        if st.st_uid != os.geteuid():  # its owner could swap the job files under us
            os.close(self.fd)
            raise GpcnetError(f"{self.named}: belongs to another user; remove it or choose another --output")
        self.ident, self.changed = (st.st_dev, st.st_ino), None
        # Our pid, not "self": the jobs resolve it too, and "self" is theirs.
        self.path = Path(f"/proc/{os.getpid()}/fd/{self.fd}")

    def check(self, step: str) -> None:
        """JobDirChanged unless FILE.d, by its name, is still the directory
        opened (what jobs on other nodes reach by the name)."""
        if self.changed is not None:   # said once; every later step stops as well
            raise self.changed
        if HOOK is not None:
            HOOK(step)
        try:
            st = os.lstat(self.named)
            same = stat.S_ISDIR(st.st_mode) and (st.st_dev, st.st_ino) == self.ident
        except OSError:
            same = False
        if not same:
            self.changed = JobDirChanged(
                f"{self.named}: the job directory was replaced while the study ran (renamed, or a link or "
                f"another directory put at its name; found at {step}); the study stopped, that run is "
                "not kept")
            raise self.changed

    def named_path(self, path) -> str:
        """`path` (under self.path) as a job elsewhere opens it: FILE.d/NAME."""
        return str(self.named / Path(path).relative_to(self.path))

    def shown(self, text: str) -> str:
        """A message with FILE.d/ in place of the descriptor's path."""
        return text.replace(str(self.path), str(self.named))

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
