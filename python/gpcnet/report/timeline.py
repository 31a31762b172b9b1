"""Figures of --timeline runs: the canaries over time with the bursts
shaded, and the recovery time after bursts (docs/results-json.md#timeline).

Everything is drawn from what the JSON gives: the bins' means and ON
shares, the isolated Avg, and per loaded test the recovery summary
(median, quartiles, extremes over the bursts that recovered). Optionally
the testbed's port counters sampled during the job (`gpcnet testbed run
--counters-interval`) are drawn on a second axis, put on the timeline's
clock through the wall-clock times both record.
"""

from __future__ import annotations

import math
from typing import Optional

import numpy as np
from matplotlib.figure import Figure

from gpcnet.infra.errors import GpcnetError
from gpcnet.metrics import catalog
from gpcnet.plots.figures import drawable, points
from gpcnet.report import counters_file
from gpcnet.report.html import Markup, fmt, join
from gpcnet.results_json import results
from gpcnet.text import number_text, text_safe

ON_COLOUR = "tab:orange"
PORT_COLOURS = ("tab:green", "tab:purple", "tab:brown", "tab:olive")


def records(doc: dict, repetition: int = results.FIRST) -> list:
    """The timeline entries of one repetition, in the order they ran."""
    return [r for r in doc.get("timeline") or [] if r.get("repetition", results.FIRST) == repetition
            and r["bins"]["count"]]


def has_timeline(doc: dict, repetition: int = results.FIRST) -> bool:
    return bool(records(doc, repetition))


def bin_edges(bins: dict) -> np.ndarray:
    return bins["start_s"] + bins["width_s"] * np.arange(len(bins["count"]) + 1)


def on_spans(bins: dict) -> list:
    """ON periods as (start, end) seconds from the bins' ON shares. A run of
    bins with ON time is one period; a partly-ON first bin holds the
    period's start at its end, a partly-ON last bin its end at its start."""
    w, edges, shares = bins["width_s"], bin_edges(bins), bins["on"]
    spans, i = [], 0
    while i < len(shares):
        if shares[i] <= 0:
            i += 1
            continue
        j = i
        while j + 1 < len(shares) and shares[j + 1] > 0:
            j += 1
        if i == j:   # one bin: where in it is unknown, draw its share centred
            start = edges[i] + (1 - shares[i]) * w / 2
            spans.append((start, start + shares[i] * w))
        else:
            spans.append((edges[i] + (1 - shares[i]) * w, edges[j] + shares[j] * w))
        i = j + 1
    return spans


def _means(bins: dict) -> np.ndarray:
    return np.array(points(bins["mean"]), dtype=float)


def _title(rec: dict) -> str:
    name = catalog.display_name(rec["test"])
    if rec["table"] == "loaded":
        return name
    kernel = rec["table"].split(":", 1)[1] if ":" in rec["table"] else rec["table"]
    return f"{name}, {catalog.display_name(kernel)} alone"


# -- the testbed's counters ------------------------------------------------

def read_counters(path: str) -> dict:
    """A `gpcnet testbed run --counters FILE --counters-interval SEC` file,
    read and checked as every input is (report.counters_file)."""
    return counters_file.read(path)


def busiest_port(counters: dict) -> str:
    """The leaf-to-spine uplink (else any switch port) that sent the most
    bytes over the series: where a tapered fat-tree congests."""
    tiers = {k: p.get("tier") for k, p in (counters.get("after") or {}).get("ports", {}).items()}
    sent: dict = {}
    for s in counters["series"]["samples"]:
        for key, c in s["ports"].items():
            sent[key] = sent.get(key, 0) + c["bytes"]
    for wanted in ({"uplink"}, {"uplink", "downlink", "edge"}):
        cands = [k for k in sent if tiers.get(k) in wanted]
        if cands:
            return max(cands, key=lambda k: sent[k])
    raise GpcnetError("the counter series has no switch port")


def check_ports(counters: dict, ports: list, where: str) -> None:
    known = set(counters["series"]["samples"][0]["ports"])
    for p in ports:
        if p not in known:
            listed = text_safe.shorten(", ".join(sorted(known)))
            raise GpcnetError(f"{text_safe.path(where)}: no port {text_safe.quote(p)}; it has "
                              f"{text_safe.terminal(listed)}")


def _port_rates(counters: dict, port: str, offset: float) -> tuple:
    """Interval edges (on the timeline's clock) and the port's Mbit/s."""
    starts, ends, rates = [], [], []
    for s in counters["series"]["samples"]:
        c = s["ports"].get(port)
        if c is None or s["dt"] <= 0:
            continue
        # Any finite numbers may be in the file: what overflows or cannot
        # be placed on an axis is left out of the drawing.
        start, end = number_text.as_float(s["t"] - s["dt"] + offset), number_text.as_float(s["t"] + offset)
        rate = number_text.ratio(c["bytes"] * 8 / 1e6, s["dt"])
        if not (drawable(start) and drawable(end) and drawable(rate)):
            continue
        starts.append(start)
        ends.append(end)
        rates.append(rate)
    return np.array(starts), np.array(ends), np.array(rates)


def _draw_counters(ax, rec: dict, counters: dict, ports: list, lo: float, hi: float) -> None:
    if rec.get("start_epoch_s") is None:
        raise GpcnetError("the timeline has no start_epoch_s (made by an older network_load_test): "
                          "the counters cannot be put on its clock")
    offset = counters["series"]["start_epoch_s"] - rec["start_epoch_s"]
    ax2 = ax.twinx()
    for port, colour in zip(ports, PORT_COLOURS):
        starts, ends, rates = _port_rates(counters, port, offset)
        keep = (ends > lo + 1e-9) & (starts < hi - 1e-9)   # overlapping the bins, not touching
        if keep.any():
            xs = np.column_stack([starts[keep], ends[keep]]).ravel()
            ys = np.repeat(rates[keep], 2)
            ax2.fill_between(xs, ys, color=colour, alpha=0.15, lw=0)
            ax2.plot(xs, ys, color=colour, lw=1, label=text_safe.label(f"{port} sent"))
    ax.set_zorder(ax2.get_zorder() + 1)   # the canary's line over the counters' fill
    ax.patch.set_visible(False)
    ax2.set_ylabel("port Mbit/s")
    ax2.set_ylim(bottom=0)
    ax2.legend(loc="upper right", fontsize="small")


# -- figures ---------------------------------------------------------------

def timeline_figure(doc: dict, repetition: int = results.FIRST, tests: Optional[list] = None,
                    counters: Optional[dict] = None, ports: Optional[list] = None) -> Figure:
    """One panel per loaded test: the canary's mean per bin over time, ON
    periods shaded, the isolated Avg as a line; with `counters`, the bytes
    per second of `ports` (default: the busiest uplink) on a second axis."""
    recs = [r for r in records(doc, repetition) if not tests or r["test"] in tests]
    if not recs:
        raise GpcnetError("no timeline to draw (run network_load_test --timeline)")
    if counters is not None and not ports:
        ports = [busiest_port(counters)]
    fig = Figure(figsize=(9, 2.6 * len(recs) + 0.6), layout="constrained")
    axes = fig.subplots(len(recs), 1, squeeze=False)[:, 0]
    for ax, rec in zip(axes, recs):
        bins = rec["bins"]
        with np.errstate(all="ignore"):
            edges, means = bin_edges(bins), _means(bins)
        if not (drawable(edges[0]) and drawable(edges[-1]) and edges[-1] > edges[0]):
            ax.text(0.5, 0.5, "time bins beyond what an axis can show", transform=ax.transAxes,
                    ha="center", va="center")
            continue
        for k, (a, b) in enumerate(on_spans(bins)):
            ax.axvspan(a, b, color=ON_COLOUR, alpha=0.18, lw=0, label="burst ON" if k == 0 else None)
        centres = (edges[:-1] + edges[1:]) / 2
        ax.plot(centres, means, color="tab:red", lw=1, drawstyle="steps-mid",
                label=f"mean per {bins['width_s'] * 1e3:g} ms bin")
        if drawable(rec.get("isolated_avg")):
            ax.axhline(rec["isolated_avg"], color="tab:blue", ls="--", lw=1, label="isolated Avg")
        finite = means[np.isfinite(means)]
        if finite.size and finite.min() > 0 and finite.max() / finite.min() > 30:
            ax.set_yscale("log")
        ax.set_xlim(edges[0], edges[-1])
        ax.set_ylabel(text_safe.label(rec.get("unit", "")))
        r = rec["recovery"]
        ax.set_title(text_safe.label(f"{_title(rec)}: during bursts {_v(rec['during_bursts']['avg'])}, between "
                                     f"{_v(rec['between_bursts']['avg'])} {rec.get('unit', '')}; recovered "
                                     f"{r['recovered']} of {r['bursts']}"), fontsize="medium")
        ax.legend(loc="upper left", fontsize="small")
        if counters is not None:
            _draw_counters(ax, rec, counters, ports, edges[0], edges[-1])
    axes[-1].set_xlabel("seconds since the congestors' common start")
    return fig


def _v(x) -> str:
    return number_text.general(x, 3, "–")


def recovery_figure(doc: dict, repetition: int = results.FIRST) -> Figure:
    """Per loaded test the recovery time over its bursts as the JSON gives
    it: box from the quartiles, median line, whiskers at min and max."""
    recs = records(doc, repetition)
    if not recs:
        raise GpcnetError("no timeline to draw (run network_load_test --timeline)")
    fig = Figure(figsize=(max(4.5, 1.6 * len(recs) + 2), 3.6), layout="constrained")
    ax = fig.subplots()
    stats, positions, labels, empty = [], [], [], []
    for i, rec in enumerate(recs, start=1):
        r = rec["recovery"]
        labels.append(text_safe.label(f"{catalog.short_name(rec['test'])}\n{rec['table']}\n"
                                      f"{r['recovered']}/{r['bursts']} recovered"))
        if r["recovered"] and r.get("median_s") is not None:
            ms = {k: 1e3 * (r.get(k) if r.get(k) is not None else r["median_s"])
                  for k in ("median_s", "p25_s", "p75_s", "min_s", "max_s")}
            if not all(drawable(v) for v in ms.values()):
                empty.append(i)
                continue
            stats.append({"med": ms["median_s"], "q1": ms["p25_s"], "q3": ms["p75_s"],
                          "whislo": ms["min_s"], "whishi": ms["max_s"]})
            positions.append(i)
        else:
            empty.append(i)
    if stats:
        ax.bxp(stats, positions=positions, showfliers=False, widths=0.5)
        # A marker and the value, so that a median of 0 (recovered within the
        # first bin) is seen, not a box flat on the axis.
        ax.plot(positions, [s["med"] for s in stats], "o", color="tab:red", ms=5)
        for x, s in zip(positions, stats):
            ax.annotate(f"median {s['med']:.3g} ms", (x, s["med"]), xytext=(8, 4), textcoords="offset points",
                        fontsize="small")
    ax.set_xticks(range(1, len(recs) + 1), labels, fontsize="small")
    ax.set_xlim(0.4, len(recs) + 0.6)
    tops = [s["whishi"] for s in stats] + [v for v in [1e3 * recs[0]["bins"]["width_s"]] if drawable(v)]
    ax.set_ylim(bottom=0, top=max(tops + [1.0]) * 1.3)
    for i in empty:
        ax.text(i, ax.get_ylim()[1] / 2, "none\nrecovered", ha="center", va="center", fontsize="small")
    ax.set_ylabel("recovery time (ms)")
    ax.set_title("Recovery after each burst\n(to within 10% of the isolated Avg)", fontsize="medium")
    return fig


# -- report section --------------------------------------------------------

def _cell(x, decimals: int = 1) -> Markup:
    return fmt('<td class="num">{}</td>', number_text.fixed(x, decimals, "–"))


def section(doc: dict, figs, repetition: int = results.FIRST) -> Markup:
    recs = records(doc, repetition)
    rows = join(fmt('<tr><td class="name">{}</td><td>{}</td>{}{}{}{}{}<td class="num">{}/{}</td>{}</tr>',
                    catalog.display_name(r["test"]), r["table"], _cell(r.get("isolated_avg")),
                    _cell(r["during_bursts"]["avg"]), _cell(r["during_bursts"]["p99"]),
                    _cell(r["between_bursts"]["avg"]), _cell(r["between_bursts"]["p99"]),
                    r["recovery"]["recovered"], r["recovery"]["bursts"],
                    _cell(None if r["recovery"].get("median_s") is None else 1e3 * r["recovery"]["median_s"], 2))
                for r in recs)
    table = fmt('<table class="gpcnet" id="table-timeline"><caption>Canaries during and between bursts'
                "</caption><tr><th>Test</th><th>Table</th><th>Isolated Avg</th><th>During Avg</th>"
                "<th>During 99%</th><th>Between Avg</th><th>Between 99%</th><th>Recovered</th>"
                "<th>Median recovery (ms)</th></tr>{}</table>", rows)
    burst = doc["config"].get("burst") or {}
    shape = (f"ON {burst['on_s'] * 1e3:g} ms, OFF {burst['off_s'] * 1e3:g} ms, intensity {burst['intensity']:g}"
             if burst.get("on_s") is not None else "no ON/OFF schedule (steady congestors)")
    return (table
            + figs.embed(timeline_figure(doc, repetition), "timeline",
                         f"Canary value per time bin (merged over all canary ranks) with the congestors' ON "
                         f"periods shaded ({shape}) and the isolated Avg dashed; one panel per loaded test.")
            + figs.embed(recovery_figure(doc, repetition), "recovery",
                         "Recovery time after the bursts of each loaded test: the box spans the quartiles "
                         "with the median, whiskers at the shortest and longest, over the bursts that "
                         "recovered before the next began (docs/method.md#recovery-time); the resolution "
                         "is one bin."))
