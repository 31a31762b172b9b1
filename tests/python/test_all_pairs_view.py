"""The all-pairs matrix (network_test --all-pairs; docs/method.md#all-pairs)
as the tool reads it: the outlier rule on synthetic matrices (a noisy
uniform matrix names nothing, a planted slow node or slow pair is named,
and only it), the document above the matrix cap, the schema's bounds,
and the report's section with its heat map."""
import copy

import numpy as np
import pytest

from conftest import read
from gpcnet.analysis import all_pairs
from gpcnet.infra.errors import GpcnetError
from gpcnet.plots import all_pairs_figure
from gpcnet.report import run as report_run
from gpcnet.results_json import load


def _list(a):
    return [None if np.isnan(v) else float(v) for v in a]


def with_matrix(m, full=True):
    """network_run.json with an all_pairs member of this bandwidth matrix
    (the diagonal set to null, the latency 5 usec everywhere)."""
    m = np.array(m, dtype=float)
    n = len(m)
    np.fill_diagonal(m, np.nan)
    lat = np.full((n, n), 5.0)
    np.fill_diagonal(lat, np.nan)
    order = sorted(((m[i, j], i, j) for i in range(n) for j in range(n) if i != j))[:32]
    doc = read("network_run.json")
    doc["all_pairs"] = {
        "pattern": "shift", "bytes": 1048576, "messages": 4, "repetitions": 3, "latency_bytes": 8,
        "latency_repetitions": 5, "matrix_max_nodes": 1024, "matrix": full, "wall_s": 1.5,
        "nodes": [f"nid{i:03d}" for i in range(n)],
        "send_mib_s": _list(np.nanmean(m, 1)), "recv_mib_s": _list(np.nanmean(m, 0)),
        "send_usec": _list(np.nanmean(lat, 1)), "recv_usec": _list(np.nanmean(lat, 0)),
        "slowest_pairs": [{"from": i, "to": j, "mib_s": float(v), "usec": 5.0} for v, i, j in order]}
    if full:
        doc["all_pairs"]["bandwidth_mib_s"] = [_list(r) for r in m]
        doc["all_pairs"]["latency_usec"] = [_list(r) for r in lat]
    load.validate(doc)
    return doc


def noisy(n, seed, spread=0.1):
    return 1000.0 * np.random.default_rng(seed).lognormal(0.0, spread, (n, n))


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("n", [4, 16, 64])
def test_a_uniform_noisy_matrix_names_nothing(n, seed):
    verdict = all_pairs.assess(with_matrix(noisy(n, seed)))
    assert verdict["named"] == [] and verdict["slow_nodes"] == [] and verdict["slow_pairs"] == []


@pytest.mark.parametrize("n", [4, 8, 32])
def test_a_slow_node_is_named_by_its_row_and_column(n):
    m = noisy(n, 7)
    slow = n // 2 + 1
    m[slow, :] *= 0.05  # its link to its switch degraded, both ways
    m[:, slow] *= 0.05
    verdict = all_pairs.assess(with_matrix(m))
    assert verdict["named"] == [f"nid{slow:03d}"]
    assert verdict["slow_nodes"] == [{"node": slow, "name": f"nid{slow:03d}", "send": True, "recv": True}]
    assert verdict["slow_pairs"] == []  # its cells are explained by the node


def test_a_node_slow_one_way_only():
    m = noisy(12, 11)
    m[:, 5] *= 0.1  # only what it receives
    verdict = all_pairs.assess(with_matrix(m))
    assert verdict["slow_nodes"] == [{"node": 5, "name": "nid005", "send": False, "recv": True}]


def test_a_slow_pair_names_both_hosts_and_only_them():
    m = noisy(16, 3)
    m[2, 9] *= 0.1
    verdict = all_pairs.assess(with_matrix(m))
    assert [(p["from"], p["to"]) for p in verdict["slow_pairs"]] == [(2, 9)]
    assert verdict["named"] == ["nid002", "nid009"]
    assert verdict["slow_nodes"] == []


def test_a_cell_a_little_low_is_not_named():
    # Tight matrix (tiny MAD): a cell at 80 % of the median has a large z
    # but is above two thirds of the median.
    m = 1000.0 + np.random.default_rng(5).normal(0, 1, (16, 16))
    m[4, 6] = 800.0
    assert all_pairs.assess(with_matrix(m))["named"] == []


def test_three_nodes_name_nothing():
    m = noisy(3, 1)
    m[1, :] *= 0.01
    assert all_pairs.assess(with_matrix(m))["named"] == []


def test_above_the_cap_the_means_and_slowest_pairs_are_judged():
    m = noisy(20, 2)
    m[7, :] *= 0.05
    m[3, 12] *= 0.05
    doc = with_matrix(m, full=False)
    assert all_pairs.matrix(doc) is None
    verdict = all_pairs.assess(doc)
    assert [s["node"] for s in verdict["slow_nodes"]] == [7]
    assert [(p["from"], p["to"]) for p in verdict["slow_pairs"]] == [(3, 12)]
    html = report_run.render(doc, "r.json")
    assert "no matrix" in html and 'id="fig-all-pairs"' not in html
    assert "nid007" in html


def test_the_report_shows_the_heat_map_and_names_the_host():
    m = noisy(8, 4)
    m[6, :] *= 0.05
    m[:, 6] *= 0.05
    html = report_run.render(with_matrix(m), "r.json")
    assert 'id="fig-all-pairs"' in html and 'id="fig-all-pairs-latency"' in html
    assert 'Hosts behind slow links: <strong class="slow">nid006</strong>.' in html
    assert "<image" not in html  # vector, no embedded bitmap
    assert "Hosts behind slow links: none." in report_run.render(with_matrix(noisy(8, 4)), "r.json")


def test_a_large_matrix_is_drawn_in_blocks_that_keep_a_slow_cell():
    m = noisy(200, 6)
    m[150, 3] = 1.0
    shown, step = all_pairs_figure.blocks(np.where(np.eye(200, dtype=bool), np.nan, m))
    assert step == 4 and shown.shape == (50, 50)
    assert shown[150 // 4, 0] == 1.0
    high = np.where(np.eye(200, dtype=bool), np.nan, np.full((200, 200), 5.0))
    high[7, 190] = 900.0
    shown, _ = all_pairs_figure.blocks(high, worst=np.nanmax)
    assert shown[1, 47] == 900.0 and np.nanmin(shown) == 5.0
    assert all_pairs_figure.figure(with_matrix(m)) is not None


def test_the_schema_bounds_the_matrix():
    doc = with_matrix(noisy(4, 0))
    bad = copy.deepcopy(doc)
    bad["all_pairs"]["bandwidth_mib_s"][1][2] = -1.0
    with pytest.raises(GpcnetError, match=r"all_pairs\.bandwidth_mib_s\[1\]\[2\]"):
        load.validate(bad)
    big = copy.deepcopy(doc)
    big["all_pairs"]["latency_usec"] = [[1.0]] * 1025
    with pytest.raises(GpcnetError, match="latency_usec"):
        load.validate(big)
