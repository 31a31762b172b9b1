"""The report's per-node view: the per-node probe (`--node-probe`) with
every node's time per exchange and modified z-score, the slow ones flagged
(gpcnet.analysis.nodes, docs/method.md#naming-a-slow-node)."""

from __future__ import annotations

from gpcnet.analysis import nodes
from gpcnet.report.html import Markup, fmt, join
from gpcnet.text import number_text


def section_body(doc: dict) -> Markup:
    probe = doc["node_probe"]
    rows = nodes.assess(doc)
    slow = nodes.slow_nodes(doc)
    named = join((fmt('<strong class="slow">{}</strong> (z {})', s["name"], number_text.fixed(s["z"]))
                  for s in slow), ", ") if slow else Markup("none")
    cells = join(fmt('<tr><td>{}</td><td class="num">{}</td><td class="num">{}</td><td>{}</td></tr>',
                     r["name"], number_text.fixed(r["usec"], 1, "–"), number_text.fixed(r["z"], 1, "–"),
                     Markup('<strong class="slow">slow</strong>') if r["slow"] else "")
                 for r in rows)
    intro = fmt('<p>Slow nodes: {}.</p><p class="note">After the tests, every node exchanged {} '
                'messages of {} bytes each way with one other node per round, {} rounds of '
                'disjoint pairs ({} s). A round\'s time is its median exchange, a node\'s value the '
                'median of its rounds; it is flagged '
                'when its modified z-score (0.6745 (x - median) / MAD over the nodes) is above {} '
                'and it is at least {} times the median node.</p>', named, probe["exchanges"],
                probe["bytes"], probe["rounds"], number_text.fixed(probe["wall_s"], 2), nodes.THRESHOLD,
                nodes.MIN_RATIO)
    return intro + fmt('<table class="gpcnet nodes"><tr><th>node</th><th>usec per exchange</th>'
                       '<th>z</th><th></th></tr>{}</table>', cells)
