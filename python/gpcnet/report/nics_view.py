"""The report's per-NIC view: ranks started through gpcnet-bind, the
canaries' Avg and 99% per rail and per NIC of each node, and with
--node-probe every NIC's probe time with the slow NICs flagged
(gpcnet.analysis.nics, docs/method.md#multi-nic-nodes). The tables above stay as
published."""

from __future__ import annotations

from gpcnet.analysis import nics, nodes
from gpcnet.report.html import Markup, fmt, join
from gpcnet.text import number_text


def _canary_block(t: dict) -> Markup:
    rails = join(fmt('<tr><td>rail {}</td><td class="num">{}</td><td class="num">{}</td>'
                     '<td class="num">{}</td></tr>', r.get("rail"), number_text.fixed(r.get("avg"), 1, "–"),
                     number_text.fixed(r.get("p99"), 1, "–"), r.get("ranks"))
                 for r in t.get("rails") or [])
    cells = join(fmt('<tr><td>{}</td><td class="num">{}</td><td class="num">{}</td>'
                     '<td class="num">{}</td></tr>', n["label"], n.get("rail"),
                     number_text.fixed(n.get("avg"), 1, "–"), number_text.fixed(n.get("p99"), 1, "–"))
                 for n in t["nics"])
    return (fmt('<h3>{} (table {}, repetition {}), {}</h3>', t["name"], t.get("table"),
                t.get("repetition"), t.get("unit"))
            + fmt('<table class="gpcnet nics"><tr><th>rail</th><th>Avg</th><th>99%</th>'
                  '<th>ranks</th></tr>{}</table>', rails)
            + fmt('<table class="gpcnet nics"><tr><th>node/NIC</th><th>rail</th><th>Avg</th>'
                  '<th>99%</th></tr>{}</table>', cells))


def _probe_block(doc: dict) -> Markup:
    probe = doc["nics"]["probe"]
    slow = nics.slow_nics(doc)
    named = join((fmt('<strong class="slow">{}</strong> (z {})', s["label"], number_text.fixed(s["z"]))
                  for s in slow), ", ") if slow else Markup("none")
    cells = join(fmt('<tr><td>{}</td><td class="num">{}</td><td class="num">{}</td>'
                     '<td class="num">{}</td><td>{}</td></tr>', r["label"], r["rail"],
                     number_text.fixed(r["usec"], 1, "–"), number_text.fixed(r["z"], 1, "–"),
                     Markup('<strong class="slow">slow</strong>') if r["slow"] else "")
                 for r in nics.assess(doc))
    intro = fmt('<p>Slow NICs: {}.</p><p class="note">After the node probe, the same exchanges '
                'between NICs, one rail after the other ({} rounds of {} exchanges of {} bytes '
                'each way; {} s): a NIC is flagged when its modified z-score over the NICs is '
                'above {} and it is at least {} times the median NIC.</p>', named, probe["rounds"],
                probe["exchanges"], probe["bytes"], number_text.fixed(probe["wall_s"], 2),
                nodes.THRESHOLD, nodes.MIN_RATIO)
    return intro + fmt('<table class="gpcnet nics"><tr><th>node/NIC</th><th>rail</th>'
                       '<th>usec per exchange</th><th>z</th><th></th></tr>{}</table>', cells)


def section_body(doc: dict) -> Markup:
    intro = fmt('<p class="note">Ranks were started through gpcnet-bind, one NIC each ({} rails: '
                'a rail is a NIC index). Each canary test\'s samples are merged per rail and per '
                'NIC of each node as the table row merges them all. These numbers cannot single '
                'out a slow NIC (a ring runs at its slowest member\'s pace); the probe below '
                'can.</p>', doc["nics"].get("rails"))
    probe = _probe_block(doc) if nics.has_probe(doc) else Markup(
        '<p>Slow NICs: not assessed (run with <code>--node-probe ROUNDS</code> to probe every '
        'NIC).</p>')
    return probe + intro + join(_canary_block(t) for t in nics.canaries(doc))
