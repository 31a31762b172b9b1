"""The run's stall/flit ratio and tile stall rates are averaged over the
application's duration: each interval weighs what it lasted, so the short
last interval (cut when the application ends) counts for its length only.
Hand-computed answers."""
import pytest

from gpcnet.study import sampling, stall
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


class NodeSamplers:
    """What JobSampler.stop() gives: each node's readings on its own clock
    (wall-clock seconds), the network tiles each node read."""
    source, fabric = "infiniband-fabric", None

    def __init__(self, by_host, scope, ptile=None):
        self.by_host, self.scope, self.ptile_scope = by_host, scope, ptile or {}

    def stop(self):
        return self.by_host, []


# Node A (router rA) from t = 0: 1 s, 1 s and a 0.05 s tail, all at ratio 0.1.
# Node B (router rB) from t = 0.5: 1 s at 0.1, then a 0.55 s tail at 1.0.
# Both end at 2.05 s. Ratio 0.1 = 40 stalls / 400 flits per second.
NODE_A = cumulative([(1.0, {"A": (40, 400)}), (1.0, {"A": (40, 400)}), (0.05, {"A": (2, 20)})], t0=5000.0)
NODE_B = cumulative([(1.0, {"B": (40, 400)}), (0.55, {"B": (22, 22)})], t0=5000.5)
TWO_NODES = {"A": {"router": "rA"}, "B": {"router": "rB"}}


def test_each_node_s_interval_weighs_its_own_length():
    rec = sampling.record(NodeSamplers({"a": NODE_A, "b": NODE_B}, TWO_NODES), 5000.0, 1.0, 1.0)
    # A: 0.1 over 2.05 s; B: 0.1 over 1 s and 1.0 over 0.55 s.
    # (0.1 x 2.05 + 0.1 x 1 + 1.0 x 0.55) / (2.05 + 1 + 0.55) = 0.855 / 3.6 = 0.2375
    assert rec["metric"]["stall_ratio"] == pytest.approx(0.855 / 3.6)
    # Joining the nodes' k-th intervals at the longest one's length (1, 1, 0.05) gave
    # (0.1 + 0.1 + 0.1 + 1.0 + 0.1 x 0.05) / (1 + 1 + 1 + 1 + 0.05) = 0.3222: B's tail as a full second
    assert rec["metric"]["stall_ratio"] != pytest.approx(1.305 / 4.05, abs=1e-3)
    assert (rec["metric"]["samples_kept"], rec["metric"]["intervals"]) == (5, 5)
    # one time axis, seconds since the application started: B's intervals end at 1.5 and 2.05
    assert [(iv["t"], iv["dt"]) for iv in rec["series"] if "B" in iv["rates"]] == [
        pytest.approx((1.5, 1.0)), pytest.approx((2.05, 0.55))]


def test_the_weighting_does_not_depend_on_which_node_started_first():
    late_a = cumulative([(1.0, {"A": (40, 400)}), (1.0, {"A": (40, 400)}), (0.05, {"A": (2, 20)})], t0=5000.7)
    rec = sampling.record(NodeSamplers({"a": late_a, "b": NODE_B}, TWO_NODES), 5000.0, 1.0, 1.0)
    assert rec["metric"]["stall_ratio"] == pytest.approx(0.855 / 3.6)


def test_a_router_two_nodes_read_takes_the_mean_of_the_ports_read_at_each_instant():
    # Switch S's two node-facing ports, read by two nodes half a second apart:
    # p1 [0, 1] 10 stalls/s, [1, 2] 30; p2 [0.5, 1.5] 50, [1.5, 2] 70.
    # The mean over S's ports at each instant: [0, 0.5] 10, [0.5, 1] 30, [1, 1.5] 40,
    # [1.5, 2] 50: (10 + 30 + 40 + 50) x 0.5 / 2 = 32.5 stalls/s (joined step by
    # step, 30 and 50 over 1 s each, it was 40).
    n1 = cumulative([(1.0, {"p1": (10, 100)}), (1.0, {"p1": (30, 100)})], t0=7000.0)
    n2 = cumulative([(1.0, {"p2": (50, 100)}), (0.5, {"p2": (35, 50)})], t0=7000.5)
    switch = {"p1": {"router": "S"}, "p2": {"router": "S"}}
    rec = sampling.record(NodeSamplers({"n1": n1, "n2": n2}, {}, switch), 7000.0, 1.0, 1.0)
    assert rec["tiles"]["ptile"]["stall_per_s"] == pytest.approx(32.5)
    assert rec["tiles"]["ptile"]["flit_per_s"] == pytest.approx(100.0)
    # two routers at once: the mean over routers at each instant, over the time any has a rate
    got = stall.tile_stall_rate(stall.intervals(cumulative([(2.0, {"x": (20, 2), "y": (60, 2)})]), 100.0)
                                + stall.intervals(cumulative([(1.0, {"z": (5, 1)})], t0=101.0), 100.0),
                                {"x": {"router": "R"}, "y": {"router": "R"}, "z": {"router": "Q"}})
    # [0, 1]: R = (10 + 30) / 2 = 20; [1, 2]: mean(R 20, Q 5) = 12.5: (20 + 12.5) / 2 = 16.25
    assert got["stall_per_s"] == pytest.approx(16.25)


def test_time_means_by_hand():
    # router r: a over [0, 2] at 1, b over [1, 3] at 3 -> r is 1, 2, 3 on [0,1], [1,2], [2,3]
    # router q: c over [0, 1] at 10
    pooled, across = stall.time_means([(0, 2, "r", 1.0), (1, 3, "r", 3.0), (0, 1, "q", 10.0)])
    assert pooled == pytest.approx((1 + 2 + 3 + 10) / 4)
    assert across == pytest.approx(((1 + 10) / 2 + 2 + 3) / 3)
    assert stall.time_means([]) == (None, None)
    assert stall.time_means([(1.0, 1.0, "r", 5.0)]) == (None, None)      # no time


def test_the_stall_rate_figure_draws_the_intervals_of_the_nodes_that_read_the_metric_s_ports():
    from gpcnet.study import summary
    # node a reads the switch's network tile "N" and its own port "pa"; node b only its own "pb"
    na = cumulative([(1.0, {"N": (10, 100), "pa": (1, 10)}), (1.0, {"N": (30, 100), "pa": (1, 10)})], t0=9000.0)
    nb = cumulative([(1.0, {"pb": (5, 10)}), (1.0, {"pb": (5, 10)})], t0=9000.4)
    rec = sampling.record(NodeSamplers({"a": na, "b": nb}, {"N": {"router": "S"}},
                                       {"pa": {"router": "S"}, "pb": {"router": "S"}}), 9000.0, 1.0, 1.0)
    assert len(rec["series"]) == 4
    got = summary.stall_series({"id": "x", "setting": "I", "counters": rec})
    assert got["t"] == [1.0, 2.0] and got["stall_per_s"] == [10.0, 30.0]
