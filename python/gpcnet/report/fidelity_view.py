"""The report's view of a testbed run's emulation fidelity (the `fidelity`
object `gpcnet testbed run` adds to the results JSON,
docs/testbed.md#emulation-fidelity): a warning at the top when the host,
not the emulated fabric, set the numbers, and a section with the
measures."""

from __future__ import annotations

from gpcnet.report.html import Markup, fmt, join
from gpcnet.text import number_text


def has_fidelity(doc: dict) -> bool:
    return isinstance(doc.get("fidelity"), dict)


def banner(doc: dict) -> Markup:
    """A warning for a host-bound run (nothing otherwise)."""
    if not has_fidelity(doc) or doc["fidelity"]["verdict"] != "host-bound":
        return Markup()
    return fmt('<p class="warning">Emulation fidelity: <b>host-bound</b> ({}). The testbed\'s host, '
               'not the emulated fabric, set these numbers: read them as the host\'s, not the '
               'topology\'s (<a href="#fidelity">Emulation fidelity</a>).</p>',
               "; ".join(doc["fidelity"]["reasons"]))


def section_body(doc: dict) -> Markup:
    fid = doc["fidelity"]
    cpu = fid.get("cpu")
    verdict = fmt("<p>Verdict: <b>{}</b>{}</p>", fid["verdict"],
                  fmt(" ({})", "; ".join(fid["reasons"])) if fid["reasons"] else Markup())
    measured = fmt('<p class="note">Over the {} s of the job the host\'s CPUs were {} idle and {} stolen '
                   '(a run needs {} idle or more); the switch ports were sampled {} times.</p>',
                   number_text.fixed(fid["seconds"], 1),
                   number_text.percent(cpu["idle_share"] * 100 if cpu else None),
                   number_text.percent(cpu["steal_share"] * 100 if cpu else None),
                   number_text.percent(fid["thresholds"]["cpu_idle_min"] * 100, 0), fid.get("samples", 0))
    if not fid["links"]:
        return verdict + measured + Markup("<p>No queue built on any switch port.</p>")
    rows = join(fmt('<tr><td>{}</td><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td>'
                    '<td class="num">{}</td><td class="num">{}</td><td class="num">{}</td></tr>',
                    q["port"], number_text.fixed(q["rate_bps"] / 1e6, 1), q["overlimits"], q["drops"],
                    q["max_backlog"], number_text.fixed(q["full_s"], 1),
                    number_text.percent(None if q["carried_share"] is None else q["carried_share"] * 100, 0))
                for q in fid["links"])
    table = fmt('<table class="gpcnet"><tr><th>port (queues built)</th><th>rate Mbit/s</th>'
                '<th>overlimits</th><th>drops</th><th>max backlog B</th><th>queue full s</th>'
                '<th>rate carried while full</th></tr>{}</table>', rows)
    return verdict + measured + table
