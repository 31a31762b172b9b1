"""A picture of the testbed: switches, hosts, links with their rates, and
the management network, drawn with matplotlib (SVG, PNG or PDF)."""

from __future__ import annotations

from gpcnet.testbed import shapes
from gpcnet.testbed.topology import Topology, format_rate


def figure(topo: Topology):
    # deferred: matplotlib loads only when a drawing is made, not for --help
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # deferred: as matplotlib above

    hosts = topo.hosts
    n = len(hosts)
    width = max(8.0, 0.75 * n)
    above = max(len(topo.levels) - 2, 0)        # levels above the spines' (a three-level tree: 1)
    fig, ax = plt.subplots(figsize=(width, 5.2 + 1.4 * above))
    ax.set_xlim(-0.5, n - 0.5)
    ax.set_ylim(-1.5, 3.6 + 1.4 * above)
    ax.axis("off")
    hx = {h.name: i for i, h in enumerate(hosts)}
    shape = shapes.get(topo.kind)
    lx = shape.leaf_positions(topo, hx)
    rail_colours = ("#2b5d9b", "#2e8b57", "#b8860b", "#8b3a8b", "#1f8a99", "#a0522d", "#556b2f", "#c71585")
    box = dict(boxstyle="round,pad=0.3", fc="#dde8f6", ec="#2b5d9b")
    p = topo.params
    y_host, y_leaf, y_spine, y_mgmt = 0.0, 1.4, 2.8, -1.0
    for h in hosts:
        for nic in h.nics or [None]:    # NIC i drawn in rail i's colour
            leaf, i = (nic.leaf, nic.index) if nic else (h.leaf, 0)
            fan = (i - (topo.nics_per_host - 1) / 2) * 0.12   # a host's NICs side by side
            ax.plot([hx[h.name] + fan, lx[leaf] + fan / 2], [y_host, y_leaf],
                    color=rail_colours[i % len(rail_colours)], lw=1.2, zorder=1)
        ax.plot([hx[h.name], hx[h.name]], [y_host, y_mgmt], color="#999999", lw=0.8, ls="--", zorder=1)
        ax.text(hx[h.name], y_host, f"{h.name}\n{h.data_ip}", ha="center", va="center", fontsize=7,
                bbox=dict(boxstyle="round,pad=0.25", fc="#f4f4f4", ec="#555555"), zorder=3)
    # Switches at their level: leaves above their hosts, each level above spread over the width.
    at = {leaf: (x, y_leaf) for leaf, x in lx.items()}
    for lv, level in enumerate(topo.levels[1:], start=1):
        y = y_leaf + lv * (y_spine - y_leaf)
        at.update({s: ((i + 0.5) * n / len(level) - 0.5, y) for i, s in enumerate(level)})
    trunks = [link for link in topo.links if link.a.tier == "uplink"]
    for link in trunks:
        (xa, ya), (xb, yb) = at[link.a.switch], at[link.b.switch]
        ax.plot([xa, xb], [ya, yb], color="#b03a2e", lw=1.6, zorder=1)
    for s in topo.spines:
        ax.text(*at[s], s, ha="center", va="center", fontsize=9, bbox=box, zorder=3)
    if trunks:
        ax.text(n - 0.5, (y_leaf + y_spine) / 2,
                f"uplinks {format_rate(p['uplink_rate'])} each\ntaper {p['taper']:g}:1",
                ha="right", va="center", fontsize=8, color="#b03a2e")
    for lv in range(1, above + 1):      # the uplinks of each level above the leaves'
        ax.text(n - 0.5, y_spine + (lv - 0.5) * (y_spine - y_leaf),
                f"level-{lv} uplinks {format_rate(p['level_uplink_rates'][lv])} each",
                ha="right", va="center", fontsize=8, color="#b03a2e")
    for leaf, x in lx.items():
        ax.text(x, y_leaf, leaf, ha="center", va="center", fontsize=9, bbox=box, zorder=3)
    ax.text(-0.5, (y_host + y_leaf) / 2, f"host links {format_rate(p['host_rate'])}",
            ha="left", va="center", fontsize=8, color="#2b5d9b")
    ax.plot([-0.4, n - 0.6], [y_mgmt, y_mgmt], color="#777777", lw=3, zorder=1)
    ax.text((n - 1) / 2, y_mgmt - 0.3,
            f"management network 198.18.0.0/24 (unlimited; {topo.head_name} = launcher, "
            "Slurm controller)", ha="center", va="top", fontsize=8, color="#555555")
    k = topo.nics_per_host
    title = (f"gpcnet testbed: {topo.kind}, {n} hosts, switch queues {topo.qdisc} "
             f"{topo.queue} pkts{' ECN' if topo.ecn else ''}, routing {topo.routing}; data fabric "
             f"{'198.19.0.0/16' if k > 1 else '198.19.0.0/24'}")
    if k > 1:
        title += (f"\n{k} data NICs per host, NIC i (data<i>, 198.19.i.N) drawn in colour i"
                  + shape.nic_note(topo))
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def save(topo: Topology, path: str) -> None:
    # deferred: matplotlib, and gpcnet.plots which loads it, only when a drawing is saved
    import matplotlib
    from gpcnet.plots.figures import save as save_figure
    # Text stays text in the SVG: host names and addresses can be searched.
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        save_figure(figure(topo), path)
