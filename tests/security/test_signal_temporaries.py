"""SIGTERM or SIGINT while `gpcnet report`, `plot`, `table` or `parse`
writes its output leaves no temporary beside it (issue 55).

The whole file was written to `.NAME.XXXX.tmp`, then renamed: SIGTERM (no
handler: the process just ends) while it was written left that file
beside the kept output. On Linux the temporary now has no name until it is
whole. Each command runs as a child whose write blocks at the point where
the temporary exists and is whole but not yet in place (its fsync); the
test waits until it is there, then signals it. The wait is a hang guard,
not a measurement.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import gpcnet
from conftest import FIXTURES
import output_commands

HANG_GUARD_S = 60
PACKAGE_ROOT = str(Path(gpcnet.__file__).resolve().parents[1])  # the gpcnet under test
COMMANDS = output_commands.commands(FIXTURES / "load_run.json", FIXTURES / "ours_load_default.txt")

# The child: gpcnet's CLI with fsync of a file (the output's temporary,
# whole) announcing itself and then waiting to be signalled.
BLOCK_AT_FSYNC = """
import os, stat, sys, time
ready = sys.argv[1]
real_fsync = os.fsync
def fsync_then_wait(fd):
    real_fsync(fd)
    if stat.S_ISREG(os.fstat(fd).st_mode):
        with open(ready, "w"):
            pass
        time.sleep(120)
os.fsync = fsync_then_wait
from gpcnet.cli import main
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_signal_while_the_output_is_written_leaves_no_temporary(tmp_path, command, sig):
    outdir = tmp_path / "out"
    outdir.mkdir()
    out = outdir / output_commands.SUFFIX[command]
    out.write_text("the output of an earlier run\n")
    ready = tmp_path / "ready"
    args = [str(a) for a in COMMANDS[command](out)] + ["--force"]
    child = subprocess.Popen([sys.executable, "-c", BLOCK_AT_FSYNC, str(ready), *args],
                             env=dict(os.environ, PYTHONPATH=PACKAGE_ROOT), stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + HANG_GUARD_S
        while not ready.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert ready.exists(), f"the write never reached its fsync: {child.communicate()}"
        child.send_signal(sig)
        _, err = child.communicate(timeout=HANG_GUARD_S)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode != 0, err
    assert "Traceback" not in err, err
    assert sorted(p.name for p in outdir.iterdir()) == [out.name], "a temporary was left beside the output"
    assert out.read_text() == "the output of an earlier run\n"
