"""The report's all-pairs section (network_test --all-pairs): the heat map,
the hosts the outlier rule names (gpcnet.analysis.all_pairs) and the
slowest pairs, docs/method.md#all-pairs."""

from __future__ import annotations

from gpcnet.analysis import all_pairs
from gpcnet.plots import all_pairs_figure
from gpcnet.report.html import Markup, fmt, join
from gpcnet.text import number_text

SLOWEST_SHOWN = 10


def _named(verdict: dict) -> Markup:
    if not verdict["named"]:
        return Markup("none")
    return join((fmt('<strong class="slow">{}</strong>', name) for name in verdict["named"]), ", ")


def _node_rows(verdict: dict) -> Markup:
    def side(s):
        return " and ".join(w for w, on in (("sends", s["send"]), ("receives", s["recv"])) if on)
    return join(fmt("<li>node {}: {} slowly (its whole {})</li>", s["name"], side(s),
                    "row and column" if s["send"] and s["recv"] else ("row" if s["send"] else "column"))
                for s in verdict["slow_nodes"])


def section_body(doc: dict, figs) -> Markup:
    ap = doc["all_pairs"]
    verdict = all_pairs.assess(doc)
    label = all_pairs.names(doc)
    pairs = join(fmt("<li>{} to {}: {} MiB/s</li>", p["from_name"], p["to_name"], number_text.fixed(p["mib_s"], 1))
                 for p in verdict["slow_pairs"])
    intro = fmt('<p>Hosts behind slow links: {}.</p><ul>{}{}</ul>'
                '<p class="note">After the tests, in each of N - 1 shifts every node sent {} messages '
                'of {} bytes to the node k places on and received from the node k places back, all '
                'nodes at once ({} nodes, one rank each, {} s); a cell is the bandwidth its receiver '
                'saw, the median of {} repetitions. A node is named when its row mean (sending) or '
                'column mean (receiving) is a low outlier among the nodes, a pair when its cell is one '
                'among the cells and neither node is named: a modified z-score of the logarithm below -{} '
                'and at most 1/{} of the median for a node, 1/{} for a cell (median {} MiB/s).</p>',
                _named(verdict), _node_rows(verdict), pairs, ap["messages"], ap["bytes"], len(label),
                number_text.fixed(ap["wall_s"], 2), ap.get("repetitions", 1), all_pairs.THRESHOLD,
                all_pairs.MIN_RATIO, all_pairs.CELL_RATIO, number_text.fixed(verdict["median_mib_s"], 1))
    slowest = join(fmt('<tr><td>{}</td><td>{}</td><td class="num">{}</td><td class="num">{}</td></tr>',
                       label[p["from"]] if p["from"] < len(label) else p["from"],
                       label[p["to"]] if p["to"] < len(label) else p["to"],
                       number_text.fixed(p["mib_s"], 1, "–"), number_text.fixed(p["usec"], 1, "–"))
                   for p in ap["slowest_pairs"][:SLOWEST_SHOWN])
    table = fmt('<table class="gpcnet all-pairs"><caption>Slowest pairs</caption><tr><th>sender</th>'
                '<th>receiver</th><th>MiB/s</th><th>usec (8 B)</th></tr>{}</table>', slowest)
    if all_pairs.matrix(doc) is None:
        return intro + fmt('<p class="note">{} nodes: above {}, the document keeps the per-node means '
                           'and the slowest pairs only, no matrix.</p>', len(label), ap["matrix_max_nodes"]) + table
    blocks = ""
    if len(label) > all_pairs_figure.MAX_CELLS:
        blocks = "; drawn in blocks of nodes, each the worst of its cells"
    return (intro + figs.embed(all_pairs_figure.figure(doc), "all-pairs",
                               f"Bandwidth of every pair, sender (row) to receiver (column){blocks}.")
            + figs.embed(all_pairs_figure.figure(doc, "latency_usec"), "all-pairs-latency",
                         f"Latency of every pair (half the round trip of 8 B), dark where high{blocks}; "
                         "drawn, not judged: the hosts named are those of the bandwidth.")
            + table)
