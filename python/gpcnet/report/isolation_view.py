"""The isolation figure of traffic classes (gpcnet.analysis.isolation) as a
section of a run's report: `gpcnet report OWN_CLASS.json --one-class
ONE_CLASS.json`."""

from __future__ import annotations

from gpcnet.analysis import isolation
from gpcnet.report.html import Markup, fmt, join


def section_body(figure: list, labels: tuple, docs: tuple = ()) -> Markup:
    rows = join(fmt('<tr><td class="name">{}</td><td>{}</td><td class="num">{}</td><td class="num">{}</td>'
                    '<td class="num">{}</td><td class="num">{}</td></tr>',
                    r.name, dict(isolation.STATS)[r.stat], isolation.ci_text(r.shared), isolation.ci_text(r.own),
                    isolation.share_text(r.given_back), isolation.p_text(r))
                for r in figure)
    return join([
        fmt('<table class="gpcnet" id="table-isolation"><caption>Congestion Impact with every role in one traffic '
            "class ({}) and with the canaries in their own class ({})</caption><tr><th>Canary</th><th>Stat</th>"
            "<th>CI one class (I1)</th><th>CI own class (I2)</th><th>given back</th><th>p (Welch)</th></tr>{}"
            "</table>", labels[0], labels[1], rows),
        Markup('<p class="note">Given back = (I1 - I2) / (I1 - 1): 100% when the canaries\' own class reads '
               "1X (full isolation), 0% when the class changed nothing, &ldquo;-&rdquo; where I1 &le; 1 (no impact "
               "to give back). Each CI is the mean over the run's repetitions. p: Welch's two-sided t-test on "
               "the per-repetition CIs of the two runs; * significant at &alpha; = 0.05, ** also at &alpha; = "
               "0.01; n/a with fewer than 2 repetitions in a run (network_load_test --repeat N).</p>"),
        join(fmt('<p class="note">Class variables in {}: {}</p>', label, isolation.class_variables(doc))
             for label, doc in zip(labels, docs)),
    ])
