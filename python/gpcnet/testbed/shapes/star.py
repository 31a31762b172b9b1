"""star: every host on one non-blocking switch (a learning bridge)."""

from __future__ import annotations

from gpcnet.testbed.shapes.base import Layout, Shape


class Star(Shape):
    name = "star"
    help = "star: every host on one non-blocking switch."

    def layout(self, hosts, nics, hosts_per_leaf, spines, taper, rate):
        return Layout(leaves=["star"], spines=[], hosts_per_leaf=hosts,
                      nic_leaf=lambda group, i: "star")


SHAPE = Star()
