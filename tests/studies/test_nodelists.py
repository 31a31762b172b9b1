import itertools

import pytest

from gpcnet.infra.errors import GpcnetError
from gpcnet.study import nodelists


def names(m):
    return [f"n{i:02d}" for i in range(m)]


def test_the_four_settings_on_a_list_of_exactly_3n():
    nodes = names(12)
    p = {s: nodelists.placement(nodes, 4, s, 0, 10) for s in nodelists.SETTINGS}
    assert p["I"] == {"app": nodes[0:4], "congestor": [], "offset": 0}
    assert p["II"]["app"] == ["n00", "n02", "n04", "n06"] and p["II"]["congestor"] == []
    assert p["III"]["app"] == nodes[0:4]
    assert p["III"]["congestor"] == ["n04", "n06", "n08", "n10"]
    assert p["IV"]["app"] == ["n00", "n02", "n04", "n06"]
    assert p["IV"]["congestor"] == ["n01", "n03", "n05", "n07"]


def test_rotation_moves_by_a_tenth_of_the_list_and_wraps():
    nodes = names(30)
    for r in range(10):
        p = nodelists.placement(nodes, 10, "IV", r, 10)
        assert p["offset"] == 3 * r
        assert p["app"][0] == nodes[3 * r]
    last = nodelists.placement(nodes, 10, "III", 9, 10)
    # 27, 28, 29 then wraps to 0..6
    assert last["app"] == [nodes[(27 + i) % 30] for i in range(10)]
    assert last["congestor"] == [nodes[(37 + 2 * i) % 30] for i in range(10)]


@pytest.mark.parametrize("m,n,rot", [(13, 4, 10), (7, 2, 3), (31, 10, 10), (9, 3, 1), (100, 33, 7)])
def test_uneven_sizes_keep_sizes_disjoint_and_inside_the_list(m, n, rot):
    nodes = names(m)
    for s, r in itertools.product(nodelists.SETTINGS, range(rot)):
        p = nodelists.placement(nodes, n, s, r, rot)
        assert p["offset"] == (r * (m // rot)) % m
        assert len(p["app"]) == n and len(set(p["app"])) == n
        assert len(p["congestor"]) == (n if nodelists.CONGESTED[s] else 0)
        assert not set(p["app"]) & set(p["congestor"])
        assert set(p["app"]) | set(p["congestor"]) <= set(nodes)


def test_spaced_and_interleaved_are_one_apart_in_the_rotated_list():
    nodes = names(13)
    r = nodelists.rotated(nodes, 3, 10)
    p = nodelists.placement(nodes, 4, "IV", 3, 10)
    for a, c in zip(p["app"], p["congestor"]):
        assert r.index(c) == r.index(a) + 1


def test_n_larger_than_a_third_of_the_list_is_refused():
    with pytest.raises(GpcnetError, match=r"N = 5 needs a list of at least 3N = 15 nodes; the list has 14 \(largest N: 4\)"):
        nodelists.placement(names(14), 5, "I")


def test_bad_settings_and_lists():
    with pytest.raises(GpcnetError, match="unknown setting 'V'"):
        nodelists.parse_settings("I,V")
    with pytest.raises(GpcnetError, match="repeated"):
        nodelists.parse_settings("I,i")
    assert nodelists.parse_settings(" ii, iv ") == ["II", "IV"]
    with pytest.raises(GpcnetError, match="names a node twice: a"):
        nodelists.check_sizes(["a", "b", "a"], 1, 1)
    with pytest.raises(GpcnetError, match="--rotations must be at least 1"):
        nodelists.check_sizes(names(6), 2, 0)
