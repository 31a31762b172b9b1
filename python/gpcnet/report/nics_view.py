"""The report's per-NIC view: ranks started through gpcnet-bind, the
canaries' Avg and 99% per rail and per NIC of each node, the slow NICs
flagged (gpcnet.nics, docs/method.md#multi-nic-nodes). The tables above
stay as published."""

from __future__ import annotations

from gpcnet import nics, nodes, number_text
from gpcnet.report.html import Markup, fmt, join


def _test_block(t: dict) -> Markup:
    rails = join(fmt('<tr><td>rail {}</td><td class="num">{}</td><td class="num">{}</td>'
                     '<td class="num">{}</td></tr>', r.get("rail"), number_text.fixed(r.get("avg"), 1, "–"),
                     number_text.fixed(r.get("p99"), 1, "–"), r.get("ranks"))
                 for r in t["rails"])
    cells = join(fmt('<tr><td>{}</td><td class="num">{}</td><td class="num">{}</td>'
                     '<td class="num">{}</td><td class="num">{}</td><td>{}</td></tr>',
                     n["label"], n["rail"], number_text.fixed(n["avg"], 1, "–"),
                     number_text.fixed(n["p99"], 1, "–"), number_text.fixed(n["z"], 1, "–"),
                     Markup('<strong class="slow">slow</strong>') if n["slow"] else "")
                 for n in t["nics"])
    return (fmt('<h3>{} (table {}, repetition {}), {}</h3>', t["name"], t["table"], t["repetition"],
                t["unit"])
            + fmt('<table class="gpcnet nics"><tr><th>rail</th><th>Avg</th><th>99%</th>'
                  '<th>ranks</th></tr>{}</table>', rails)
            + fmt('<table class="gpcnet nics"><tr><th>node/NIC</th><th>rail</th><th>Avg</th>'
                  '<th>99%</th><th>z</th><th></th></tr>{}</table>', cells))


def section_body(doc: dict) -> Markup:
    slow = nics.slow_nics(doc)
    named = join((fmt('<strong class="slow">{}</strong> (z {})', s["label"], number_text.fixed(s["z"]))
                  for s in slow), ", ") if slow else Markup("none")
    intro = fmt('<p>Slow NICs: {}.</p><p class="note">Ranks were started through gpcnet-bind, one '
                'NIC each ({} rails: a rail is a NIC index). Each canary test\'s samples are '
                'merged per rail and per NIC of each node as the table row merges them all. A NIC '
                'is flagged when its modified z-score over the NICs of a test is above {} and it '
                'is at least {} times the median NIC (bandwidths compared as their '
                'reciprocals).</p>', named, doc["nics"].get("rails"), nodes.THRESHOLD,
                nodes.MIN_RATIO)
    return intro + join(_test_block(t) for t in nics.assess(doc))
