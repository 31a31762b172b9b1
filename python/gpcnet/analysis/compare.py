"""Side-by-side comparison of runs, and the regression gate for CI jobs.

Every metric of the first run is the baseline; later runs are shown with
their ratio to it. "Worse" respects each metric's direction: latency up,
bandwidth down, Congestion Impact up.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from gpcnet.infra.errors import GpcnetError
from gpcnet.results_json import results
from gpcnet.text import number_text, text_safe

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
                # Names cut as `gpcnet nodes` cuts them: the table pads every
                # line to the longest label (one 2 MB name: 404 MB of output).
                m = Metric((table_id, row["test"], stat), f"{phase} {text_safe.name(row['name'])} {stat_label}",
                           text_safe.name(row["unit"]), row["better"])
                out[m] = row[stat]
    for entry in results.impacts(doc, repetition):
        for stat, stat_label in _STATS:
            # CI >= 1 means harm, so a larger CI is always worse.
            m = Metric(("impact", entry["test"], stat), f"CI {text_safe.name(entry['name'])} {stat_label}",
                       "x", "lower")
            out[m] = results.ci(entry, stat)
    return out


def worse_percent(metric: Metric, base: Optional[float], value: Optional[float]) -> Optional[float]:
    """How much worse `value` is than `base`, in percent (negative = better)."""
    if not (_usable(base) and _usable(value)) or base <= 0:
        return None
    quotient = number_text.ratio(value, base)
    if quotient is None:  # overflowed (1.7e308 / 2.2): infinitely worse or better
        quotient = math.inf
    change = (quotient - 1.0) * 100.0
    return change if metric.better == "lower" else -change


_CONTEXT = (("program", lambda d: d["program"]),
            ("nodes", lambda d: d["environment"]["nodes"]),
            ("ranks", lambda d: d["environment"]["ranks"]),
            ("PPort", lambda d: results.pport(d)[0]),
            ("non-default settings", lambda d: d["config"].get("non_default")))


def _shown(value) -> str:
    """A setting from a file in a note: escaped, and short."""
    if isinstance(value, list):
        return text_safe.terminal(text_safe.shorten(", ".join(map(str, value))))
    if isinstance(value, str):
        return text_safe.terminal(text_safe.shorten(value))
    return number_text.general(value, 6) if isinstance(value, float) else text_safe.quote(value)


def context_notes(labelled_docs: list) -> list:
    """Differences in setup that make the numbers less comparable."""
    notes = []
    base_label, base = labelled_docs[0]
    for name, get in _CONTEXT:
        for label, doc in labelled_docs[1:]:
            if get(doc) != get(base):
                notes.append(f"note: {name} differs: {base_label}: {_shown(get(base))}, {label}: {_shown(get(doc))}")
    return notes


def run_labels(paths: list) -> list:
    """Short names for runs: the file name without extension, or, for runs
    whose file names repeat, the shortest part of their paths that tells
    them apart: o1/network_load_test.json and o2/network_load_test.json
    are "o1" and "o2"."""
    stems = [Path(p).stem for p in paths]
    labels = list(stems)
    for stem in dict.fromkeys(stems):
        group = [i for i, s in enumerate(stems) if s == stem]
        if len(group) == 1:
            continue
        names = _distinguish([paths[i] for i in group])
        # A directory name can equal another run's file name: qualify.
        if any(n in stems for n in names):
            names = [f"{n}/{stem}" for n in names]
        for i, name in zip(group, names):
            labels[i] = name
    # Printed in tables and REGRESSION lines: a file name may hold control
    # characters or bytes that are not UTF-8.
    return [text_safe.path(label) for label in labels]


def _distinguish(paths: list) -> list:
    # Directories compared in absolute form, so that "x.json" and
    # "../b/x.json" are told apart by what they name.
    dirs = [Path(os.path.abspath(p)).parent.parts for p in paths]
    common = len(os.path.commonprefix(dirs))
    rest = [d[common:] for d in dirs]
    # The first directory where the paths part: o1/x.json, o2/x.json and
    # runs/o1/out/x.json, runs/o2/out/x.json -> o1, o2.
    if all(rest):
        first = [r[0] for r in rest]
        if len(set(first)) == len(first):
            return first
        joined = ["/".join(r) for r in rest]
        if len(set(joined)) == len(joined):
            return joined
    # One path is inside another's directory: the shortest unique tails.
    for k in range(1, max(len(d) for d in dirs) + 1):
        tails = ["/".join(d[-k:]) for d in dirs]
        if len(set(tails)) == len(tails):
            return tails
    # The same file given more than once.
    return [f"{Path(paths[0]).stem}#{n}" for n in range(1, len(paths) + 1)]


def _usable(value) -> bool:
    # A finite double; an integer too large for one (4000 digits) is not.
    return number_text.as_float(value) is not None


# What each program measures, by the first part of a metric's key:
# network_test has no loaded phase and no Congestion Impact.
MEASURES = {"network_test": {"isolated"}, "network_load_test": {"isolated", "loaded", "impact"}}
_WHAT = {"loaded": "the loaded phase", "impact": "Congestion Impact"}


def measures(program, metric: Metric) -> bool:
    """Whether `program` can measure `metric` at all (an unknown program:
    anything)."""
    return metric.key[0] in MEASURES.get(program, {metric.key[0]})


@dataclass
class Gate:
    """The gate's verdict on one run: its regression lines, how many of
    the baseline's metrics it judged, and the metrics it left out."""
    lines: list
    judged: int
    left_out: list


def _gate(label: str, baseline: dict, run: dict, order: list, limit: float, programs: tuple) -> Gate:
    """The regression lines of one run. A metric the gate cannot judge
    (a baseline value that is missing, zero or not finite, or a run that
    lost a value the baseline has) fails it: such a baseline must not
    switch regression detection off. When the programs differ, a metric
    the baseline lacks is not judged (nothing to judge it against), and
    one of the baseline's that the run's program does not measure at all
    (network_test has no loaded phase) is left out, and said so; every
    other baseline metric is judged. A gate that judged nothing fails."""
    out, judged, left_out = [], 0, []
    base_program, run_program = programs
    for m in order:
        if base_program != run_program:
            if m not in baseline:
                continue
            if m not in run and not measures(run_program, m):
                left_out.append(m)
                continue
        base, value = baseline.get(m), run.get(m)
        if base is None and value is None:
            continue  # neither run has this value (e.g. parsed text): nothing to judge
        judged += 1
        if not _usable(value):
            out.append(f"REGRESSION {label}: {m.label}: {_fmt(base)} -> {_fmt(value)} {m.unit} "
                       f"(no usable value in {label}; the baseline has one)")
        elif not _usable(base) or base <= 0:
            out.append(f"REGRESSION {label}: {m.label}: {_fmt(base)} -> {_fmt(value)} {m.unit} "
                       f"(baseline value {_fmt(base)} cannot be compared against; fix or replace the baseline)")
        else:
            worse = worse_percent(m, base, value)
            if worse is not None and worse > limit:
                out.append(f"REGRESSION {label}: {m.label}: {_fmt(base)} -> {_fmt(value)} {m.unit} "
                           f"({number_text.percent(worse)} worse, limit {limit:g}%)")
    if not judged:
        out.append(f"REGRESSION {label}: no metric judged: no metric has a value in both the baseline and "
                   f"{label} (a gate that compares nothing fails; compare runs of the same tests)")
    return Gate(out, judged, left_out)


def left_out_note(label: str, program, gate: Gate) -> str | None:
    """The line saying what the gate left out of a run, and why."""
    if not gate.left_out:
        return None
    what = " and ".join(_WHAT.get(k, k) for k in dict.fromkeys(m.key[0] for m in gate.left_out))
    return (f"note: {len(gate.left_out)} metrics of the baseline left out of the gate for {label}: "
            f"{text_safe.name(program)} does not measure {what}")


# A ratio column is headed "run/baseline" while that stays this short, so
# that a two-run comparison fits in 80 columns; else "ratio", explained
# under the table.
_RATIO_HEAD_MAX = 11


def _fmt(value: Optional[float]) -> str:
    return number_text.general(value)


def _ratio_text(ratio: float) -> str:
    # Three decimals while short; an extreme ratio (1.7e308 / 2.2) in
    # scientific notation, never 300 digits.
    return f"{ratio:.3f}" if abs(ratio) < 1e6 else f"{ratio:.3g}"


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
        ratio_head = f"{label}/{labels[0]}"
        head += [label, ratio_head if len(ratio_head) <= _RATIO_HEAD_MAX else "ratio"]
    body = []
    for m in order:
        base = per_run[0].get(m)
        cells = [m.label, m.unit, _fmt(base)]
        for run in per_run[1:]:
            value = run.get(m)
            ratio = number_text.ratio(value, base)
            cells += [_fmt(value), "-" if ratio is None else _ratio_text(ratio)]
        body.append(cells)

    regressions, gate_notes = [], []
    if fail_if_worse is not None:
        if not (math.isfinite(fail_if_worse) and fail_if_worse >= 0):
            raise GpcnetError(f"--fail-if-worse {fail_if_worse}: expected a percentage of 0 or more")
        base_program = labelled_docs[0][1].get("program")
        for (label, doc), run in zip(labelled_docs[1:], per_run[1:]):
            gate = _gate(label, per_run[0], run, order, fail_if_worse, (base_program, doc.get("program")))
            regressions += gate.lines
            gate_notes.append(left_out_note(label, doc.get("program"), gate))

    widths = [max(len(row[i]) for row in [head] + body) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip()
             for row in [head] + body]
    lines.insert(1, "  ".join("-" * w for w in widths))
    notes = [results.repetition_note(label, doc, repetition) for label, doc in labelled_docs]
    legend = []
    if "ratio" in head[3:]:
        legend = [f"ratio = the value to its left / the value of {labels[0]} (the baseline)"]
    notes = legend + [n for n in notes if n] + context_notes(labelled_docs) + [n for n in gate_notes if n]
    text = "\n".join(lines + [""] + notes).rstrip() + "\n"
    return text, regressions
