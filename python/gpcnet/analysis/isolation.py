"""The isolation figure of traffic classes: from two runs of the same seed,
one with canaries and congestors in one class (the shared run) and one
with the canaries in a class of their own, how much of the Congestion
Impact the class gave back.

Per canary and statistic (Avg, 99%), with I1 the shared run's Congestion
Impact and I2 the own-class run's (each the mean over the run's
repetitions):

    given back = (I1 - I2) / (I1 - 1)

1 (100%) is full isolation (the own class reads 1X, no impact), 0 is none
(the class changed nothing), below 0 the own class did worse, above 1 it
read under 1X. With I1 <= 1 there is no impact to give back and the share
is undefined (shown as "-").

The two runs must have placed the roles alike (the same canary and
congestor nodes): the figure compares one placement in two classes, and
runs of different placements are refused. The class each run's ranks
were in is read from the launch variables its JSON recorded
(roles.launch_variables: GPCNET_TRAFFIC_CLASS on the testbed, UCX_IB_SL
and the like on a fabric) and printed under the figure.

Significance is the one the bully study's Table I uses: Welch's two-sided
t-test on the two runs' per-repetition Congestion Impacts, marked at
alpha = 0.05 (*) and 0.01 (**). It needs at least two repetitions in each
run (network_load_test --repeat N); with fewer it is "n/a".
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Optional

from gpcnet.infra.errors import GpcnetError
from gpcnet.results_json import results
from gpcnet.text import number_text, text_safe

STATS = (("avg", "Avg"), ("p99", "99%"))


@dataclass(frozen=True)
class Row:
    test: str
    name: str
    stat: str            # "avg" or "p99"
    shared: Optional[float]   # I1: mean CI with every role in one class
    own: Optional[float]      # I2: mean CI with the canaries in their own class
    given_back: Optional[float]  # (I1 - I2) / (I1 - 1), a fraction
    p_value: Optional[float]
    significant_at: Optional[float]
    repetitions: tuple   # (repetitions in the shared run, in the own-class run)


def given_back(shared: Optional[float], own: Optional[float]) -> Optional[float]:
    """(I1 - I2) / (I1 - 1); None when either is missing or not finite, or
    when I1 <= 1 (no impact to give back)."""
    if shared is None or own is None or not (math.isfinite(shared) and math.isfinite(own)):
        return None
    if shared <= 1.0:
        return None
    return (shared - own) / (shared - 1.0)


def _per_repetition(doc: dict, test: str, stat: str) -> list:
    values = []
    for rep in results.repetitions(doc):
        v = results.ci(results.impact(doc, test, rep), stat)
        if number_text.as_float(v) is not None:
            values.append(float(v))
    return values


# Both documents were checked against results.schema.json when read
# (gpcnet.results_json.load): the members below have the types it gives.

def _nodes(doc: dict, role: str) -> list:
    return sorted((doc.get("placement") or {}).get(role) or [])


def _shown(nodes: list) -> str:
    if not nodes:
        return "none recorded"
    return ",".join(text_safe.name(n) for n in nodes[:8]) + (",..." if len(nodes) > 8 else "")


def check_same_placement(shared_doc: dict, own_doc: dict) -> None:
    """GpcnetError when the two runs put canaries or congestors on
    different nodes: their impacts are then not one placement's."""
    for role, what in (("canary_nodes", "canary"), ("congestor_nodes", "congestor")):
        a, b = _nodes(shared_doc, role), _nodes(own_doc, role)
        if a != b:
            raise GpcnetError(f"--isolation: the two runs have different {what} nodes ({_shown(a)} in the first, "
                              f"{_shown(b)} in the second); run both with the same --seed, hosts and launch, "
                              "changing only the canaries' class")


def _count(n: int, unit: str) -> str:
    return f"{n} {unit}{'' if n == 1 else 's'}"


def class_variables(doc: dict) -> str:
    """The launch variables a run's ranks saw, per role ("canaries:
    GPCNET_TRAFFIC_CLASS=1 (2 nodes)"), or for roles drawn after start-up
    for the whole job ("all: GPCNET_TRAFFIC_CLASS=1 (2 nodes), 0 (8
    nodes)"); "none recorded" when no rank had one."""
    variables = (doc.get("roles") or {}).get("launch_variables", {})
    parts = []
    for role in ("canaries", "congestors", "all"):
        texts = []
        for name, entry in sorted(variables.get(role, {}).items()):
            shown = [f"{text_safe.name(v['value'])} ({_count(v['nodes'], 'node')})" for v in entry["values"]]
            if entry["unset_ranks"]:
                shown.append(f"unset ({_count(entry['unset_ranks'], 'rank')})")
            texts.append(f"{text_safe.name(name)}=" + ", ".join(shown))
        if texts:
            parts.append(f"{role}: " + "; ".join(texts))
    return " | ".join(parts) if parts else "none recorded"


def rows(shared_doc: dict, own_doc: dict) -> list:
    """The isolation figure of every canary both runs measured."""
    # deferred: scipy loads only when the figure is asked for
    from gpcnet.analysis.welch import significance, welch_p
    for label, doc in (("first", shared_doc), ("second", own_doc)):
        if not results.is_load_test(doc):
            raise GpcnetError(f"--isolation: the {label} run is {text_safe.name(doc.get('program'))}, which has "
                              "no Congestion Impact (give two network_load_test runs)")
    check_same_placement(shared_doc, own_doc)
    names = {}
    for rep in results.repetitions(shared_doc):
        for e in results.impacts(shared_doc, rep):
            names.setdefault(e["test"], e["name"])
    out = []
    for test, name in names.items():
        for stat, _ in STATS:
            a, b = _per_repetition(shared_doc, test, stat), _per_repetition(own_doc, test, stat)
            if not b:
                continue
            i1 = statistics.fmean(a) if a else None
            i2 = statistics.fmean(b)
            p = welch_p(a, b)
            out.append(Row(test, name, stat, i1, i2, given_back(i1, i2), p, significance(p), (len(a), len(b))))
    if not out:
        raise GpcnetError("--isolation: the two runs have no canary with a Congestion Impact in common "
                          "(compare two runs of the same tests)")
    return out


def mark(row: Row) -> str:
    """Stars as the bully study's Table I prints them."""
    return {0.01: "**", 0.05: "*"}.get(row.significant_at, "")


def p_text(row: Row) -> str:
    if row.p_value is None:
        return "n/a"
    return f"{row.p_value:.3g}{mark(row)}"


def share_text(value: Optional[float]) -> str:
    return "-" if value is None else number_text.percent(100.0 * value).lstrip("+")


def ci_text(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.3f}X"


def text(figure: list, labels: tuple, docs: tuple = ()) -> str:
    """The isolation figure as a text table, with its definition under it
    and, given the two runs' documents, the class variables each run's
    ranks saw."""
    head = ["Canary", "Stat", f"CI {labels[0]}", f"CI {labels[1]}", "given back", "p (Welch)"]
    body = [[text_safe.name(r.name), dict(STATS)[r.stat], ci_text(r.shared), ci_text(r.own),
             share_text(r.given_back), p_text(r)] for r in figure]
    widths = [max(len(row[i]) for row in [head] + body) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip()
             for row in [head] + body]
    lines.insert(1, "  ".join("-" * w for w in widths))
    reps = {r.repetitions for r in figure}
    notes = [f"Isolation by traffic class: {labels[0]} = every role in one class (I1), "
             f"{labels[1]} = canaries in their own class (I2)",
             "given back = (I1 - I2) / (I1 - 1): 100% = the own class reads 1X, 0% = the class changed nothing; "
             "'-' where I1 <= 1 (no impact to give back)",
             "p: Welch's two-sided t-test on the per-repetition CIs; * p < 0.05, ** p < 0.01"]
    if any(min(n) < 2 for n in reps):
        notes.append("p n/a: needs 2 or more repetitions in each run (network_load_test --repeat N)")
    for label, doc in zip(labels, docs):
        notes.append(f"class variables in {label}: {class_variables(doc)}")
    return "\n".join(["Isolation by traffic class", ""] + lines + [""] + notes) + "\n"
