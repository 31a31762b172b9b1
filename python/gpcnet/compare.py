"""Side-by-side comparison of runs, and the regression gate for CI jobs.

Every metric of the first run is the baseline; later runs are shown with
their ratio to it. "Worse" respects each metric's direction: latency up,
bandwidth down, Congestion Impact up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from gpcnet import results

_PHASES = (("isolated", "Isolated"), ("loaded", "Loaded"))
_STATS = (("avg", "Avg"), ("p99", "99%"))


@dataclass(frozen=True)
class Metric:
    key: tuple
    label: str
    unit: str
    better: str  # "lower" or "higher"


def metrics(doc: dict, repetition: int = results.FIRST) -> dict:
    """Metric -> value for every canary value and CI of one repetition of a document."""
    out = {}
    for table_id, phase in _PHASES:
        t = results.table(doc, table_id, repetition)
        for row in (t["rows"] if t else []):
            for stat, stat_label in _STATS:
                m = Metric((table_id, row["test"], stat), f"{phase} {row['name']} {stat_label}",
                           row["unit"], row["better"])
                out[m] = row[stat]
    for entry in results.impacts(doc, repetition):
        for stat, stat_label in _STATS:
            # CI >= 1 means harm, so a larger CI is always worse.
            m = Metric(("impact", entry["test"], stat), f"CI {entry['name']} {stat_label}", "x", "lower")
            out[m] = results.ci(entry, stat)
    return out


def worse_percent(metric: Metric, base: Optional[float], value: Optional[float]) -> Optional[float]:
    """How much worse `value` is than `base`, in percent (negative = better)."""
    if base is None or value is None or base <= 0:
        return None
    change = (value / base - 1.0) * 100.0
    return change if metric.better == "lower" else -change


_CONTEXT = (("program", lambda d: d["program"]),
            ("nodes", lambda d: d["environment"]["nodes"]),
            ("ranks", lambda d: d["environment"]["ranks"]),
            ("PPort", lambda d: results.pport(d)[0]),
            ("non-default settings", lambda d: d["config"].get("non_default")))


def context_notes(labelled_docs: list) -> list:
    """Differences in setup that make the numbers less comparable."""
    notes = []
    base_label, base = labelled_docs[0]
    for name, get in _CONTEXT:
        for label, doc in labelled_docs[1:]:
            if get(doc) != get(base):
                notes.append(f"note: {name} differs: {base_label}: {get(base)}, {label}: {get(doc)}")
    return notes


def _fmt(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.4g}"


def compare(labelled_docs: list, fail_if_worse: Optional[float] = None,
            repetition: int = results.FIRST) -> tuple:
    """Return (report text, list of regression lines).

    Documents with several repetitions are compared on one of them
    (repetition 1 unless asked), and a note says so.
    """
    for label, doc in labelled_docs:
        results.check_repetition(doc, repetition, label)
    per_run = [metrics(doc, repetition) for _, doc in labelled_docs]
    order = list(dict.fromkeys(m for run in per_run for m in run))
    labels = [label for label, _ in labelled_docs]

    head = ["Metric", "Unit", labels[0]]
    for label in labels[1:]:
        head += [label, f"{label}/{labels[0]}"]
    body = []
    for m in order:
        base = per_run[0].get(m)
        cells = [m.label, m.unit, _fmt(base)]
        for run in per_run[1:]:
            value = run.get(m)
            ratio = None if base in (None, 0) or value is None else value / base
            cells += [_fmt(value), "-" if ratio is None else f"{ratio:.3f}"]
        body.append(cells)

    regressions = []
    if fail_if_worse is not None:
        for label, run in zip(labels[1:], per_run[1:]):
            for m in order:
                base, value = per_run[0].get(m), run.get(m)
                worse = worse_percent(m, base, value)
                if worse is not None and worse > fail_if_worse:
                    regressions.append(f"REGRESSION {label}: {m.label}: {_fmt(base)} -> {_fmt(value)} {m.unit} "
                                       f"({worse:.1f}% worse, limit {fail_if_worse:g}%)")

    widths = [max(len(row[i]) for row in [head] + body) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip()
             for row in [head] + body]
    lines.insert(1, "  ".join("-" * w for w in widths))
    notes = [results.repetition_note(label, doc, repetition) for label, doc in labelled_docs]
    notes = [n for n in notes if n] + context_notes(labelled_docs)
    text = "\n".join(lines + [""] + notes).rstrip() + "\n"
    return text, regressions
