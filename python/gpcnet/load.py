"""Read a results JSON file and check it against schema gpcnet-results v1.

Every problem becomes a GpcnetError whose message names the file and the
first few problems, so the CLI can print one line instead of a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path

from jsonschema.exceptions import relevance

from gpcnet.errors import GpcnetError
from gpcnet.schema import SCHEMA_NAME, SCHEMA_VERSION, validator

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
    errors = sorted(validator().iter_errors(doc), key=relevance)
    problems = []
    for error in errors:
        # anyOf/oneOf failures say little themselves; their best sub-error
        # says what is actually wrong.
        while error.context:
            error = min(error.context, key=relevance)
        problems.append(f"{_json_path(error.absolute_path)}: {error.message}")
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
            problems.append(f"{where}.histogram.bins[{i}]: lower {lower} is not below upper {upper}")
        if previous_upper is not None and lower < previous_upper:
            problems.append(f"{where}.histogram.bins[{i}]: bins are not in increasing order")
        previous_upper = upper
        total += count
    if row.get("samples") is not None and total != row["samples"]:
        problems.append(f"{where}.histogram: counts sum to {total} but samples is {row['samples']}")
    if hist.get("unit") != row.get("unit"):
        problems.append(f"{where}.histogram.unit {hist.get('unit')!r} differs from the row's unit {row.get('unit')!r}")
    return problems


def _semantic_problems(doc: dict) -> list[str]:
    """Rules the schema language cannot express (sums, order, shapes)."""
    problems = []
    seen = set()
    for t, table in enumerate(doc["tables"]):
        # --repeat: each repetition has its own tables, told apart by number.
        key = (table["id"], table.get("repetition", 1))
        if key in seen:
            problems.append(f"$.tables[{t}]: table id {table['id']!r} appears twice")
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


def _reject_constant(name: str):
    # Python's json accepts NaN/Infinity, which are not JSON; the schema
    # says a missing value is null, so a NaN means a writer bug.
    raise ValueError(f"non-standard JSON constant {name} (missing values must be null)")


def _finite_float(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"number {text[:40]} is out of range (overflows a double)")
    return value


# Far above anything a run writes (a results JSON is kilobytes to a few MB,
# a 10,000-run study tens of MB); a larger file cannot be ours.
MAX_JSON_BYTES = 256 * 2**20


def read_text(path, what: str, max_bytes: int = MAX_JSON_BYTES) -> str:
    """A whole UTF-8 text file, or one GpcnetError line naming it. At most
    max_bytes are read, so an endless file (/dev/zero) or a huge one is
    refused in bounded time and memory."""
    path = Path(path)
    chunks, size = [], 0
    try:
        with open(path, "rb") as f:
            while size <= max_bytes:
                chunk = f.read(min(2**20, max_bytes + 1 - size))
                if not chunk:
                    break
                if b"\0" in chunk:  # binary: said at once, even for an endless /dev/zero
                    line = sum(c.count(b"\n") for c in chunks) + chunk[:chunk.index(b"\0")].count(b"\n") + 1
                    raise GpcnetError(f"{path}:{line}: a NUL byte, so not a {what} file")
                chunks.append(chunk)
                size += len(chunk)
    except FileNotFoundError:
        raise GpcnetError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise GpcnetError(f"{path}: is a directory, not a {what} file") from None
    except OSError as e:
        raise GpcnetError(f"{path}: cannot read: {e.strerror}") from None
    if size > max_bytes:
        limit = f"{max_bytes // 2**20} MiB" if max_bytes >= 2**20 else f"{max_bytes} bytes"
        raise GpcnetError(f"{path}: larger than {limit}, so not a {what} file")
    data = b"".join(chunks)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise GpcnetError(f"{path}: not UTF-8 text (line {line}), so not a {what} file") from None


def read_json(path, what: str, max_bytes: int = MAX_JSON_BYTES):
    """Read and parse a JSON file; every problem is one GpcnetError line
    naming the file. Cost is linear in the size, which is bounded (see
    read_text). NaN, Infinity and numbers that overflow a double are refused."""
    path = Path(path)
    text = read_text(path, what, max_bytes)
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    except json.JSONDecodeError as e:
        raise GpcnetError(f"{path}: malformed JSON at line {e.lineno} column {e.colno}: {e.msg}") from None
    except RecursionError:
        raise GpcnetError(f"{path}: malformed JSON: nested too deeply for a {what} file") from None
    except ValueError as e:  # NaN/Infinity, overflow, an integer of thousands of digits
        raise GpcnetError(f"{path}: malformed JSON: {str(e)[:200]}") from None


def check_header(doc, where: str) -> None:
    """Say clearly when a file is not ours or is from another schema version."""
    if not isinstance(doc, dict):
        raise GpcnetError(f"{where}: not a GPCNeT results document (top level is a JSON {type(doc).__name__}, not an object)")
    if doc.get("schema") != SCHEMA_NAME:
        raise GpcnetError(f"{where}: not a GPCNeT results document (schema is {doc.get('schema')!r}, expected {SCHEMA_NAME!r})")
    version = doc.get("schema_version")
    if version != SCHEMA_VERSION:
        hint = " (a newer gpcnet may read it)" if isinstance(version, int) and version > SCHEMA_VERSION else ""
        raise GpcnetError(f"{where}: schema_version {version!r} is not supported; this gpcnet reads version {SCHEMA_VERSION}{hint}")


# A log-linear histogram of any real run has a few thousand bins; checking
# millions would take minutes, so such a file is refused before the schema.
MAX_HISTOGRAM_BINS = 100_000


def _check_sizes(doc: dict, where: str) -> None:
    tables = doc.get("tables")
    for t, table in enumerate(tables if isinstance(tables, list) else []):
        rows = table.get("rows") if isinstance(table, dict) else None
        for r, row in enumerate(rows if isinstance(rows, list) else []):
            hist = row.get("histogram") if isinstance(row, dict) else None
            bins = hist.get("bins") if isinstance(hist, dict) else None
            if isinstance(bins, list) and len(bins) > MAX_HISTOGRAM_BINS:
                raise GpcnetError(f"{where}: $.tables[{t}].rows[{r}].histogram.bins: {len(bins)} bins, "
                                  f"more than any run writes (limit {MAX_HISTOGRAM_BINS})")


def check(doc, where: str) -> None:
    """Every check of load() on a document already parsed."""
    check_header(doc, where)
    _check_sizes(doc, where)
    validate(doc, where)


def load(path) -> dict:
    """Read, parse and validate one results file."""
    doc = read_json(path, "results JSON")
    check(doc, str(path))
    return doc
