"""The topology arithmetic (no root needed): names, addresses, uplink rates
from the taper, d-mod-k spine choice, and the drawing."""
import pytest

from gpcnet.testbed import topology

pytestmark = pytest.mark.no_root_needed


def test_fat_tree_shape_and_taper():
    t = topology.build("fat-tree", 12, hosts_per_leaf=4, spines=2, taper=4, host_rate="100mbit")
    assert t.switches == ["leaf0", "leaf1", "leaf2", "spine0", "spine1"]
    # 4 hosts x 100 Mbit/s / taper 4 = 100 Mbit/s of uplinks per leaf, over 2 spines.
    assert t.params["uplink_rate"] == 50_000_000
    ups = [l for l in t.links if l.a.tier == "uplink"]
    assert len(ups) == 3 * 2 and all(l.a.rate == l.b.rate == 50_000_000 for l in ups)
    assert [h.leaf for h in t.hosts[3:5]] == ["leaf0", "leaf1"]
    assert [t.spine_for(h) for h in t.hosts[:3]] == ["spine0", "spine1", "spine0"]
    h = t.hosts[9]
    assert (h.name, h.mgmt_ip, h.data_ip, h.mac) == ("node10", "198.18.0.10", "198.19.0.10",
                                                    "02:67:74:00:00:0a")


def test_star_and_round_trip():
    t = topology.build("star", 3, host_rate="none")
    assert t.switches == ["star"] and t.spines == [] and t.params["host_rate"] == 0
    assert topology.Topology.from_dict(t.to_dict()) == t


def test_rates_and_delays_parse():
    assert topology.parse_rate("1gbit") == 10**9 and topology.parse_rate("500kbit") == 500_000
    assert topology.parse_delay("1ms") == 1000 and topology.parse_delay("50us") == 50
    assert topology.format_rate(125_000_000) == "125mbit"


def test_draw_svg_names_hosts(tmp_path):
    from gpcnet.testbed import draw
    t = topology.build("fat-tree", 10, hosts_per_leaf=5, spines=2, taper=4)
    draw.save(t, str(tmp_path / "t.svg"))
    svg = (tmp_path / "t.svg").read_text()
    assert "node10" in svg and "spine1" in svg and "taper 4:1" in svg
