"""The pattern model of the k-ary fat-tree3 (gpcnet/testbed/ecmp_model.py)
against cases computed by hand, and its pattern generators' properties."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpcnet.infra.errors import GpcnetError
from gpcnet.testbed import ecmp_model
from gpcnet.testbed.ecmp_model import (FatTree3, ecmp_exact, ecmp_monte_carlo, flows_text,
                                       nonblocking, pattern, static)

K4 = FatTree3(4)   # 16 hosts, 2 per leaf, leaves 0-7, pods of 4 hosts


def test_stride8_static_crosses_the_core_without_a_collision():
    # Host x (0-based) sends to d = x + 8: every flow leaves its pod. d-mod-k
    # puts d on aggregation switch d mod 2 and core 2(d mod 2) + (d div 2) mod 2;
    # the two hosts of a leaf send to d and d + 1 (other aggregation switch),
    # the two leaves of a pod to d = 8, 9 and 10, 11 (cores 0, 2 and 1, 3):
    # no link carries two flows, all 16 at the full rate.
    flows = pattern("stride8", 16)
    got = static(K4, flows)
    assert got["rates"] == pytest.approx([1.0] * 16)
    assert got["fraction"] == pytest.approx(1.0)
    assert all(len(K4.path(s, d, *K4.static_choice(d))) == 6 for s, d in flows)


def test_static_puts_two_flows_of_a_leaf_to_one_residue_on_one_core():
    # Hosts 1 and 2 (leaf 0) to hosts 5 (d=4) and 13 (d=12): both d mod 2 = 0
    # and (d div 2) mod 2 = 0, so both go up leaf0-agg0-core0: half each.
    got = static(K4, [(1, 5), (2, 13)])
    assert got["rates"] == pytest.approx([0.5, 0.5])
    # To hosts 5 and 6 (d=4, 5): other aggregation switches, full rate.
    assert static(K4, [(1, 5), (2, 6)])["rates"] == pytest.approx([1.0, 1.0])


@pytest.mark.parametrize("flows", [
    [(1, 9), (2, 10)],   # leaf 0 to leaf 4 (another pod): collide when on one agg
    [(1, 3), (2, 4)],    # leaf 0 to leaf 1 (its pod): the same
])
def test_ecmp_two_flows_of_a_leaf_collide_half_the_time(flows):
    # Each flow draws its aggregation switch: the same one with probability
    # 1/2, then they share the leaf's uplink and the link down to the
    # destination leaf (whatever cores they draw): 1/2 each. Otherwise both
    # at 1. Expected total: 1/2 x 2 + 1/2 x 1 = 1.5 host rates, of 16.
    assert ecmp_exact(K4, flows) * 16 == pytest.approx(1.5)
    mc = ecmp_monte_carlo(K4, flows, draws=2000, seed=7)
    assert mc["fraction"] * 16 == pytest.approx(1.5, abs=0.05)
    assert (mc["lowest"] * 16, mc["highest"] * 16) == pytest.approx((1.0, 2.0))


def test_ecmp_stride2_is_independent_pairs_of_flows_three_quarters():
    # Stride 2 sends both hosts of leaf L to the two hosts of leaf L + 1. Each
    # leaf's two flows share no link with another leaf's (each leaf's uplinks,
    # the links down to the next leaf and, between pods, the cores carry only
    # them): eight independent copies of the two-flow case above, 1.5 of 2
    # each, so 0.75 expected. Static routing sends them through different
    # aggregation switches (destinations of both parities): 1.
    flows = pattern("stride2", 16)
    assert static(K4, flows)["fraction"] == pytest.approx(1.0)
    assert ecmp_monte_carlo(K4, flows, draws=400, seed=1)["fraction"] == pytest.approx(0.75, abs=0.03)


def test_ecmp_inter_pod_flows_have_four_paths_and_static_picks_one_of_them():
    paths = {tuple(K4.path(1, 9, j, c)) for j in range(2) for c in range(2)}
    assert len(paths) == 4
    assert tuple(K4.path(1, 9, *K4.static_choice(9))) in paths
    assert K4.choices(1, 2) == (1, 1) and K4.choices(1, 3) == (2, 1) and K4.choices(1, 9) == (2, 2)
    caps = K4.capacity()
    assert all(link in caps for p in paths for link in p)
    # 16 host links, 8 leaves x 2 aggs, 8 aggs x 2 cores: each way.
    assert len(caps) == 2 * (16 + 16 + 16)


def test_nonblocking_random_is_limited_by_the_receivers_only():
    # 1 and 2 both to 3, 3 to 1: host 3's link is shared, 1/2 each.
    got = nonblocking(K4, [(1, 3), (2, 3), (3, 1)])
    assert got["rates"] == pytest.approx([0.5, 0.5, 1.0])
    assert got["fraction"] == pytest.approx(2 / 16)


def test_ecmp_is_not_above_the_nonblocking_switch():
    for name in ("stride2", "stride4", "random", "randbij"):
        flows = pattern(name, 16, seed=3)
        assert ecmp_monte_carlo(K4, flows, draws=50)["fraction"] <= nonblocking(K4, flows)["fraction"] + 1e-9


@pytest.mark.parametrize("step", [1, 2, 4, 8, 15])
def test_stride_is_the_shift(step):
    flows = pattern(f"stride{step}", 16)
    assert flows == [(x + 1, (x + step) % 16 + 1) for x in range(16)]
    assert sorted(d for _s, d in flows) == list(range(1, 17))


def test_random_sends_once_from_every_host_never_to_itself_and_may_repeat():
    seen_repeat = False
    for seed in range(20):
        flows = pattern("random", 16, seed)
        assert [s for s, _d in flows] == list(range(1, 17))
        assert all(s != d and 1 <= d <= 16 for s, d in flows)
        seen_repeat |= len({d for _s, d in flows}) < 16
    assert seen_repeat  # 16 draws from 15: a repeat is nearly certain, and seen in 20 seeds
    assert pattern("random", 16, 5) == pattern("random", 16, 5)
    assert pattern("random", 16, 5) != pattern("random", 16, 6)


def test_randbij_is_a_derangement():
    for seed in range(20):
        flows = pattern("randbij", 16, seed)
        assert [s for s, _d in flows] == list(range(1, 17))
        assert sorted(d for _s, d in flows) == list(range(1, 17))
        assert all(s != d for s, d in flows)


def test_flows_text_names_the_testbed_hosts():
    assert flows_text(K4, [(1, 9), (16, 2)]) == "node01 node09\nnode16 node02\n"


@pytest.mark.parametrize("argv, words", [
    (["stride0"], "stride wants a step from 1 to 15"),
    (["strideX"], "stride wants a step"),
    (["zigzag"], "expected strideI"),
    (["--k", "3"], "even k"),
    (["--k", "10"], "largest is --k 8"),
    (["--draws", "0"], "--draws 0"),
])
def test_cli_bad_input_is_one_line_exit_2(argv, words, capsys):
    assert ecmp_model.main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and "Traceback" not in err


def test_cli_table_and_flows_file(capsys):
    assert ecmp_model.main(["stride8", "--draws", "20"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].split()[:3] == ["stride8", "1.000", "1.000"]
    assert ecmp_model.main(["--flows-file", "stride8"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "node01 node09" and len(lines) == 16


def test_an_odd_k_is_refused():
    with pytest.raises(GpcnetError):
        FatTree3(5)


BENCH = Path(__file__).resolve().parents[2] / "bench" / "ecmp_patterns.py"


@pytest.mark.parametrize("argv, words", [
    (["--patterns", "stride1,stride99"], "--patterns: pattern stride99"),
    (["--routings", "adaptive"], "--routings adaptive"),
    (["--repeats", "0"], "--repeats 1 or more"),
    (["--rate", "fast"], "--rate fast"),
])
def test_the_bench_refuses_bad_options_before_any_testbed(argv, words):
    # Checked before root and before `up`: nothing is built.
    p = subprocess.run([sys.executable, str(BENCH), *argv], capture_output=True, text=True,
                       timeout=60, stdin=subprocess.DEVNULL)
    assert p.returncode == 2
    assert words in p.stderr and "Traceback" not in p.stderr
    assert p.stdout == ""


@pytest.mark.skipif(os.geteuid() != 0, reason="the bench checks root before its --json file")
def test_the_bench_refuses_an_existing_json_or_a_link_before_any_testbed(tmp_path):
    (tmp_path / "old.json").write_text("{}")
    (tmp_path / "link.json").symlink_to(tmp_path / "elsewhere.json")
    for name, words in (("old.json", "already exists"), ("link.json", "symbolic link")):
        p = subprocess.run([sys.executable, str(BENCH), "--json", str(tmp_path / name)],
                           capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert p.returncode == 2 and f"--json {tmp_path / name}" in p.stderr and words in p.stderr
        assert p.stdout == ""
    assert (tmp_path / "old.json").read_text() == "{}"
    assert not (tmp_path / "elsewhere.json").exists()
