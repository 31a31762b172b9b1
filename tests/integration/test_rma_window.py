"""The one-sided kernels' windows (src/infra/rma_window.h) on a real MPI:
created as the reference creates them (no alloc_shm=false hint), in turns
on disjoint communicators of one host, and every one moves data
(tests/mpi/rma_window_check.c)."""


def test_windows_keep_the_library_default_and_move_data(harness):
    p = harness.run(9, "rma_window_check", timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr[-2000:]
    assert p.stdout.startswith("rma_window_check ok:"), p.stdout
