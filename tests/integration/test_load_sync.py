"""The load test's synchronisations (src/suite/load_test/load_sync.h) keep their
order on a real MPI: no canary starts before every congestor's warm-up
ends, and no congestor stops before every canary has finished
(tests/mpi/load_sync_check.c; SimGrid: heavy/test_simgrid.py)."""
import pytest


@pytest.mark.parametrize("root", ["canary-root", "congestor-root"])
def test_release_and_done_keep_their_order(harness, root):
    p = harness.run(12, "load_sync_check", root, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr[-2000:]
    assert p.stdout.startswith("load_sync_check ok:"), p.stdout
