"""Read a results JSON file and check it against schema gpcnet-results v1.

Every problem becomes a GpcnetError whose message names the file and the
first few problems, so the CLI can print one line instead of a traceback.
"""

from __future__ import annotations

from jsonschema.exceptions import relevance

from gpcnet.infra.errors import GpcnetError
from gpcnet.results_json import bulk_lists, results_limits
from gpcnet.text import text_safe
# Reading is shared by every JSON and text reader; they import it from here.
from gpcnet.infra.reading import MAX_JSON_BYTES, MAX_RESULTS_BYTES, read_json, read_text  # noqa: F401
from gpcnet.results_json.schema import SCHEMA_NAME, SCHEMA_VERSION, validator

# Enough to fix the first things wrong without flooding a terminal.
_MAX_PROBLEMS = 3


class InvalidResults(GpcnetError):
    """The document does not match the schema; `problems` lists them all."""

    def __init__(self, problems: list[str], where: str = "document"):
        self.problems = problems
        more = f" (and {len(problems) - _MAX_PROBLEMS} more)" if len(problems) > _MAX_PROBLEMS else ""
        super().__init__(f"{where}: invalid results: " + "; ".join(problems[:_MAX_PROBLEMS]) + more)


def _json_path(parts) -> str:
    out = "$"
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def _schema_problems(doc) -> list[str]:
    # The long lists (bins, probe rounds, timeline points) are checked
    # item by item quickly; jsonschema sees the rest (bulk_lists.py).
    thin, problems = bulk_lists.thinned(doc)
    for error in sorted(validator().iter_errors(thin), key=relevance):
        # anyOf/oneOf failures say little themselves; their best sub-error
        # says what is actually wrong.
        while error.context:
            error = min(error.context, key=relevance)
        problems.append(f"{_json_path(error.absolute_path)}: {text_safe.shorten(error.message)}")
    return sorted(dict.fromkeys(problems))


def _histogram_problems(where: str, row: dict) -> list[str]:
    hist = row.get("histogram")
    if not isinstance(hist, dict) or not isinstance(hist.get("bins"), list):
        return []
    problems = []
    previous_upper = None
    total = 0
    for i, (lower, upper, count) in enumerate(hist["bins"]):
        if not lower < upper:
            problems.append(f"{where}.histogram.bins[{i}]: lower {text_safe.quote(lower)} is not below "
                            f"upper {text_safe.quote(upper)}")
        if previous_upper is not None and lower < previous_upper:
            problems.append(f"{where}.histogram.bins[{i}]: bins are not in increasing order")
        previous_upper = upper
        total += count
    if row.get("samples") is not None and total != row["samples"]:
        problems.append(f"{where}.histogram: counts sum to {text_safe.quote(total)} but samples is "
                        f"{text_safe.quote(row['samples'])}")
    if hist.get("unit") != row.get("unit"):
        problems.append(f"{where}.histogram.unit {text_safe.quote(hist.get('unit'))} differs from the row's "
                        f"unit {text_safe.quote(row.get('unit'))}")
    return problems


def _semantic_problems(doc: dict) -> list[str]:
    """Rules the schema language cannot express (sums, order, shapes)."""
    problems = []
    seen = set()
    for t, table in enumerate(doc["tables"]):
        # --repeat: each repetition has its own tables, told apart by number.
        key = (table["id"], table.get("repetition", 1))
        if key in seen:
            problems.append(f"$.tables[{t}]: table id {text_safe.quote(table['id'])} appears twice")
        seen.add(key)
        for r, row in enumerate(table["rows"]):
            problems += _histogram_problems(f"$.tables[{t}].rows[{r}]", row)

    placement = doc.get("placement")
    colocated = (doc.get("config") or {}).get("placement") == "colocated"
    if isinstance(placement, dict) and not colocated and None not in (
            placement.get("all_nodes"), placement.get("congestor_nodes"), placement.get("canary_nodes")):
        split = placement["congestor_nodes"] + placement["canary_nodes"]
        if sorted(split) != sorted(placement["all_nodes"]):
            problems.append("$.placement: congestor_nodes and canary_nodes together are not all_nodes")

    matrix = doc.get("impact_matrix")
    if isinstance(matrix, dict):
        shape = (len(matrix["congestor_sets"]), len(matrix["tests"]))
        for key in ("avg", "p99"):
            if len(matrix[key]) != shape[0] or any(len(row) != shape[1] for row in matrix[key]):
                problems.append(f"$.impact_matrix.{key}: expected {shape[0]} rows of {shape[1]} values")
    return problems


def validate(doc, where: str = "document") -> None:
    """Raise InvalidResults unless `doc` is a valid gpcnet-results v1 document.

    Checks the schema first and the cross-field rules only on a document
    whose shape is right, so that the rules can trust the types.
    """
    problems = _schema_problems(doc)
    if not problems:
        problems = _semantic_problems(doc)
    if problems:
        raise InvalidResults(problems, where)


def check_header(doc, where: str) -> None:
    """Say clearly when a file is not ours or is from another schema version."""
    if not isinstance(doc, dict):
        raise GpcnetError(f"{where}: not a GPCNeT results document (top level is a JSON {type(doc).__name__}, not an object)")
    if doc.get("schema") != SCHEMA_NAME:
        raise GpcnetError(f"{where}: not a GPCNeT results document (schema is {text_safe.quote(doc.get('schema'))}, "
                          f"expected {SCHEMA_NAME!r})")
    version = doc.get("schema_version")
    if version != SCHEMA_VERSION:
        hint = " (a newer gpcnet may read it)" if isinstance(version, int) and version > SCHEMA_VERSION else ""
        raise GpcnetError(f"{where}: schema_version {text_safe.quote(version)} is not supported; this gpcnet "
                          f"reads version {SCHEMA_VERSION}{hint}")


def check(doc, where: str) -> None:
    """Every check of load() on a document already parsed."""
    check_header(doc, where)
    results_limits.check(doc, where)
    validate(doc, where)


def load(path) -> dict:
    """Read, parse and validate one results file."""
    doc = read_json(path, "results JSON", MAX_RESULTS_BYTES)
    check(doc, str(path))
    return doc
