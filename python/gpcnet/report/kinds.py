"""Which kind of document a JSON file is, decided in one place.

A study JSON (written by `gpcnet study`) says so: "kind": "gpcnet_study".
A results JSON (written by network_test / network_load_test, whose format
does not change) is recognised by the required fields of its schema, not
by looking for a substring. Everything else is neither.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from gpcnet.results_json import load
from gpcnet.results_json.schema import schema
from gpcnet.study import document as study_document

STUDY_KIND = study_document.KIND  # the "kind" field of a study JSON

STUDY = "study"
RESULTS = "results"


def kind_of(doc) -> Optional[str]:
    """STUDY, RESULTS or None for a parsed JSON document."""
    if not isinstance(doc, dict):
        return None
    if doc.get("kind") == STUDY_KIND:
        return STUDY
    if set(schema()["required"]) <= doc.keys():
        return RESULTS
    return None


def read(path) -> tuple:
    """(kind, document) of a results or study JSON file, read once and
    checked against its schema. A file of neither kind is checked as a
    results document, whose messages say best what is wrong with it."""
    doc = load.read_json(path, "results JSON", load.MAX_RESULTS_BYTES)
    if kind_of(doc) == STUDY:
        study_document.validate(doc, str(Path(path)))
        return STUDY, doc
    load.check(doc, str(Path(path)))
    return RESULTS, doc
