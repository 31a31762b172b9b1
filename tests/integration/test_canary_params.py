"""The canary kernels take their message sizes from the parameter block
their setup receives (canary_params_t, src/canary/canary.h): with the
defaults every message is the size the kernel's printed name says, and with
other sizes the messages and the bytes counted per iteration follow them
(tests/mpi/canary_params_check.c, which intercepts the kernels' MPI calls)."""
import pytest


@pytest.mark.parametrize("ranks", [2, 3])
def test_canaries_send_the_sizes_of_their_parameter_block(harness, ranks):
    p = harness.run(ranks, "canary_params_check", timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr[-2000:]
    assert p.stdout.startswith("canary_params_check ok:"), p.stdout
