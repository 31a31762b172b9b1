"""The run's stall/flit ratio and tile stall rates are averaged over the
application's duration: each interval weighs what it lasted, so the short
last interval (cut when the application ends) counts for its length only.
Hand-computed answers."""
import pytest

from gpcnet.study import stall
from test_counters import readings


def cumulative(steps, t0=100.0):
    """[(dt, {port: (stalls, flits)}), ...] increments -> cumulative readings."""
    return readings(*(step for _, step in steps), t0=t0, dts=[dt for dt, _ in steps])


SCOPE = {"a": {"router": "r0"}}
# 1 s at ratio 0.1 (100 stalls/s), then a tail of 0.05 s at ratio 1.0 (2 stalls, 2 flits: 40 stalls/s)
WITH_TAIL = cumulative([(1.0, {"a": (100, 1000)}), (0.05, {"a": (2, 2)})])


def test_a_short_tail_weighs_its_length():
    series = stall.intervals(WITH_TAIL, 100.0)
    assert [iv["dt"] for iv in series] == [1.0, 0.05]
    m = stall.stall_ratio(series, SCOPE, 10.0)
    # (0.1 x 1 + 1.0 x 0.05) / 1.05 = 0.142857..., not (0.1 + 1.0) / 2 = 0.55
    assert m["stall_ratio"] == pytest.approx(0.15 / 1.05)
    assert m["stall_ratio"] != pytest.approx(0.55)
    assert m["weighting"] == "duration" and m["samples_kept"] == 2


def test_the_threshold_is_still_a_rate_of_the_tail():
    series = stall.intervals(WITH_TAIL, 100.0)
    # the tail's 2 stalls in 0.05 s are 40 stalls/s: a threshold of 50/s drops it (and keeps 100/s)
    m = stall.stall_ratio(series, SCOPE, 50.0)
    assert m["stall_ratio"] == pytest.approx(0.1) and (m["samples_kept"], m["samples_dropped"]) == (1, 1)
    # 101/s drops both: no ratio
    assert stall.stall_ratio(series, SCOPE, 101.0)["stall_ratio"] is None


def test_equal_intervals_are_the_plain_mean():
    series = stall.intervals(cumulative([(1.0, {"a": (10, 100)}), (1.0, {"a": (30, 100)})]), 100.0)
    assert stall.stall_ratio(series, SCOPE, 0.0)["stall_ratio"] == pytest.approx(0.2)


def test_routers_in_an_interval_each_weigh_the_interval():
    # interval 1 (1 s): r0 ratio 0.1, r1 ratio 0.5; interval 2 (0.5 s): r0 only, 0.4.
    # (0.1 x 1 + 0.5 x 1 + 0.4 x 0.5) / (1 + 1 + 0.5) = 0.8 / 2.5 = 0.32
    series = stall.intervals(cumulative([(1.0, {"a": (10, 100), "c": (50, 100)}),
                                         (0.5, {"a": (20, 50), "c": (0, 50)})]), 100.0)
    scope = {"a": {"router": "r0"}, "c": {"router": "r1"}}
    assert stall.stall_ratio(series, scope, 1.0)["stall_ratio"] == pytest.approx(0.32)


def test_tile_stall_rate_over_routers_and_duration():
    # interval 1 (1 s): r0 = mean(10, 30) = 20 stalls/s, r1 = 80 -> 50; interval 2 (0.5 s):
    # r0 = mean(0, 0) = 0, r1 = 20 / 0.5 = 40 -> 20. Over the duration: (50 x 1 + 20 x 0.5) / 1.5 = 40.
    series = stall.intervals(cumulative([(1.0, {"a": (10, 100), "b": (30, 100), "c": (80, 100)}),
                                         (0.5, {"a": (0, 50), "b": (0, 50), "c": (20, 50)})]), 100.0)
    scope = {"a": {"router": "r0"}, "b": {"router": "r0"}, "c": {"router": "r1"}}
    got = stall.tile_stall_rate(series, scope)
    assert got["stall_per_s"] == pytest.approx(40.0)
    assert got["flit_per_s"] == pytest.approx(100.0)     # 100 flits/s everywhere, both intervals
    assert (got["routers"], got["ports"]) == (2, 3)
    # a port outside the scope never counts; no port in it: no rate
    assert stall.tile_stall_rate(series, {"c": {"router": "r1"}})["stall_per_s"] == pytest.approx(
        (80 * 1 + 40 * 0.5) / 1.5)
    assert stall.tile_stall_rate(series, {})["stall_per_s"] is None


def test_weighted_mean():
    assert stall.weighted_mean([(1.0, 1.0), (4.0, 3.0)]) == pytest.approx(3.25)
    assert stall.weighted_mean([]) is None
