"""A throw-away unprivileged user, for tests run as root that must also
show what a normal user gets (the docs examples, `spack test run`)."""
import contextlib
import os
import pwd
import shutil
import stat
import subprocess
from pathlib import Path

import pytest


def reachable_by_others(path: Path) -> bool:
    """Whether a user other than the owner can reach `path` (every
    directory on the way searchable by others)."""
    return all(not (part.is_dir() and not part.stat().st_mode & stat.S_IXOTH)
               for part in [path, *path.parents] if part.exists())


@contextlib.contextmanager
def throwaway_user(prefix: str):
    """A system user without a home or a login shell, named prefix + our
    pid; every process of it killed and the user removed after."""
    for tool in ("useradd", "userdel", "runuser"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} not found: needed to run as a normal user")
    name = f"{prefix}{os.getpid()}"
    subprocess.run(["useradd", "--system", "--user-group", "--no-create-home",
                    "--shell", "/usr/sbin/nologin", name], check=True, capture_output=True,
                   timeout=60)
    try:
        yield pwd.getpwnam(name)
    finally:
        subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True, timeout=60)
        subprocess.run(["userdel", name], capture_output=True, timeout=60)
