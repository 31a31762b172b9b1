"""In the report of a co-run study whose congestor was network_load_test
(--congestor-kind load-test): how much of each run of the application met
the load test's loaded phases (the runner measures it: congestor_job
.loaded_overlap), so that a slowdown is read with the share of the run that
was congested."""

from __future__ import annotations

import math
import statistics

from gpcnet.report.html import Markup, fmt, join


def _num(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def overlaps(study: dict) -> list:
    """[(run id, setting, overlap record or None, ended_before_app)] of the
    runs that had a load test beside them."""
    out = []
    for r in study["runs"]:
        lt = (r.get("congestor") or {}).get("load_test")
        if isinstance(lt, dict):
            out.append((r["id"], r["setting"], lt.get("overlap") if isinstance(lt.get("overlap"), dict) else None,
                        bool(lt.get("ended_before_app"))))
    return out


def section(study: dict) -> Markup:
    rows = overlaps(study)
    if not rows:
        return Markup("")
    body = join(fmt("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", rid, setting,
                    f"{o['fraction'] * 100:.1f}%" if o and _num(o.get("fraction")) else "-",
                    f"{o['overlap_s']:.3f}" if o and _num(o.get("overlap_s")) else "-",
                    f"{o['loaded_s']:.3f}" if o and _num(o.get("loaded_s")) else "-",
                    "yes" if ended else "no")
                for rid, setting, o, ended in rows)
    fracs = [o["fraction"] for _, _, o, _ in rows if o and _num(o.get("fraction"))]
    summary = (fmt("<p>Median share of a run congested: {}% (lowest {}%).</p>",
                   f"{statistics.median(fracs) * 100:.1f}", f"{min(fracs) * 100:.1f}") if fracs
               else Markup("<p>No run has a measured overlap.</p>"))
    return join([
        Markup("<h2>The application beside network_load_test's loaded phases</h2>"),
        Markup("<p>The application starts once the load test's isolated phase is over; the share of its run "
               "that met the loaded phases (the load test's phases as its JSON times them) is below.</p>"),
        fmt('<table class="summary"><tr><th>run</th><th>setting</th><th>share of the run congested</th>'
            "<th>overlap s</th><th>loaded phases s</th><th>load test ended first</th></tr>{}</table>", body),
        summary], "\n")
