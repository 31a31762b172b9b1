"""Reading a study JSON (gpcnet study's output) safely: bounded size, no
NaN or overflowing numbers, and checked against data/study.schema.json
before anything uses it, so a bad or hostile file is one line naming the
field, never a traceback or markup in a report."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from jsonschema import Draft202012Validator
from jsonschema.exceptions import relevance

from gpcnet.infra.errors import GpcnetError
from gpcnet.results_json.load import read_json
from gpcnet.study import sources

KIND = "gpcnet_study"
SCHEMA_VERSION = 1


@lru_cache(maxsize=None)
def schema() -> dict:
    """data/study.schema.json, with the enum of a run's counters.source made
    from the counter sources' registry (gpcnet.study.sources): a source
    added there is one the schema takes, no list kept twice."""
    doc = json.loads(resources.files("gpcnet").joinpath("data/study.schema.json").read_text("utf-8"))
    doc["$defs"]["run"]["properties"]["counters"]["properties"]["source"]["enum"] = list(sources.names())
    return doc


@lru_cache(maxsize=None)
def validator() -> Draft202012Validator:
    return Draft202012Validator(schema())


def _where(parts) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts)


def validate(doc, where: str) -> None:
    if not isinstance(doc, dict) or doc.get("kind") != KIND:
        raise GpcnetError(f"{where}: not a gpcnet study (no \"kind\": \"{KIND}\")")
    if doc.get("schema_version") != SCHEMA_VERSION:
        raise GpcnetError(f"{where}: study schema_version {str(doc.get('schema_version'))[:20]!r} is not "
                          f"supported; this gpcnet reads version {SCHEMA_VERSION}")
    error = min(validator().iter_errors(doc), key=relevance, default=None)
    if error is not None:
        while error.context:
            error = min(error.context, key=relevance)
        msg = error.message if len(error.message) <= 160 else error.message[:160] + "..."
        raise GpcnetError(f"{where}: invalid study: {_where(error.absolute_path)}: {msg}")
    cfg = doc["config"]
    for field in ("settings", "patterns"):
        twice = _first_repeat(cfg.get(field) or [])
        if twice is not None:
            raise GpcnetError(f"{where}: invalid study: $.config.{field}: {twice!r} is listed twice; a study "
                              f"names each of its {field} once (every run of it is one of that {field[:-1]}'s)")
    if "baseline" in cfg and cfg["baseline"] not in cfg["settings"]:
        raise GpcnetError(f"{where}: invalid study: $.config.baseline: {cfg['baseline']!r} is not one of its "
                          f"settings ({', '.join(cfg['settings'])}); nothing can be normalised to it")


def _first_repeat(names: list):
    """The first name of `names` seen before, or None; one pass. (Not the
    schema's uniqueItems: on a list mixing types jsonschema compares every
    pair, and a hostile file may hold millions of items.)"""
    seen = set()
    for name in names:
        if name in seen:
            return name
        seen.add(name)
    return None


def baseline(config: dict) -> str:
    """The setting every time is normalised to; older documents have no
    "baseline" and used setting I (co-run) or the bully-free runs (a
    report of one without them says that nothing is normalised)."""
    return config.get("baseline") or ("I" if config["study"] == "corun" else "none")


# The schema check costs about 10 microseconds a value. A study of 16 runs
# of an hour each, sampling 10 switch ports every second, holds about 1.5
# million values; 4 million bound the check to well under a minute.
MAX_STUDY_VALUES = 4_000_000


def _count_values(doc) -> int:
    """Items of every list and object (keys included), one step each,
    stopping as soon as the budget is passed."""
    total, stack = 0, [doc]
    while stack and total <= MAX_STUDY_VALUES:
        value = stack.pop()
        total += len(value)
        items = value.values() if isinstance(value, dict) else value
        stack.extend(item for item in items if type(item) in (list, dict))
    return total


def load(path) -> dict:
    doc = read_json(path, "study JSON")
    if type(doc) in (list, dict) and _count_values(doc) > MAX_STUDY_VALUES:
        raise GpcnetError(f"{path}: more than {MAX_STUDY_VALUES} values, more than any study holds; "
                          "not checked")
    validate(doc, str(path))
    return doc
