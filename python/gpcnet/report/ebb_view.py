"""The report's effective bisection bandwidth (network_test --ebb;
docs/method.md#effective-bisection-bandwidth): the eBB, the spread of the
matchings' means as a histogram with the eBB marked, and every matching's
mean, min and max in a table. With a link rate, values are fractions of
it (the paper's figure); without, MiB/s per pair."""

from __future__ import annotations

from matplotlib.figure import Figure

from gpcnet.plots.figures import drawable
from gpcnet.report.html import Figures, Markup, fmt, join
from gpcnet.text import number_text

MIB = float(1 << 20)


def has_ebb(doc: dict) -> bool:
    return bool(doc.get("ebb")) and bool(doc["ebb"].get("per_matching"))


def scale(ebb: dict) -> tuple:
    """(divisor, unit) the values are shown in: the link rate in MiB/s and
    "of the link rate" when known, else 1 and "MiB/s per pair"."""
    rate = ebb.get("link_rate_gbit")
    if rate:
        return rate * 1e9 / 8 / MIB, "fraction of the link rate"
    return 1.0, "MiB/s per pair"


def figure(ebb: dict) -> Figure:
    div, unit = scale(ebb)
    means = [m["mean_mib_s"] / div for m in ebb["per_matching"] if drawable(m["mean_mib_s"])]
    fig = Figure(figsize=(6.4, 2.6))
    ax = fig.add_subplot()
    if means:
        ax.hist(means, bins=min(20, max(5, len(means) // 2)), color="tab:blue", alpha=0.6)
        ax.axvline(sum(means) / len(means), color="black", linewidth=1.2,
                   label=f"eBB {sum(means) / len(means):.4g}")
        ax.legend(fontsize=7, loc="upper left")
    else:
        ax.text(0.5, 0.5, "no matching with a value", transform=ax.transAxes, ha="center")
    ax.set_xlabel(f"matching mean ({unit})")
    ax.set_ylabel("matchings")
    fig.tight_layout()
    return fig


def section_body(doc: dict, figs: Figures) -> Markup:
    ebb = doc["ebb"]
    div, unit = scale(ebb)
    digits = 3 if div != 1.0 else 1
    value = number_text.fixed(ebb["mean_mib_s"] / div if drawable(ebb["mean_mib_s"]) else None,
                              digits, "–")
    intro = fmt('<p>eBB: <strong>{}</strong> ({}), the mean over {} random perfect matchings of '
                'the {} nodes (seed {}), every pair exchanging {} bytes each way at once; a pair '
                'counts at its slower side, a matching at the mean of its pairs.</p>',
                value, unit, ebb["matchings"], ebb["nodes"], ebb["seed"], ebb["bytes"])

    def cell(x):
        return fmt('<td class="num">{}</td>',
                   number_text.fixed(x / div if drawable(x) else None, digits, "–"))

    rows = join(fmt("<tr><td>{}</td>{}{}{}</tr>", i + 1, cell(m["mean_mib_s"]), cell(m["min_mib_s"]),
                    cell(m["max_mib_s"]))
                for i, m in enumerate(ebb["per_matching"]))
    table = fmt('<table class="gpcnet ebb"><tr><th>matching</th><th>mean</th><th>min pair</th>'
                '<th>max pair</th></tr>{}</table>', rows)
    fig = figs.embed(figure(ebb), "ebb", fmt("The matchings' means ({}); the line is the eBB.", unit))
    return intro + fig + table
