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

from gpcnet.errors import GpcnetError
from gpcnet.load import read_json

KIND = "gpcnet_study"
SCHEMA_VERSION = 1


@lru_cache(maxsize=None)
def validator() -> Draft202012Validator:
    text = resources.files("gpcnet").joinpath("data/study.schema.json").read_text("utf-8")
    return Draft202012Validator(json.loads(text))


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
    if "baseline" in cfg and cfg["baseline"] not in cfg["settings"]:
        raise GpcnetError(f"{where}: invalid study: $.config.baseline: {cfg['baseline']!r} is not one of its "
                          f"settings ({', '.join(cfg['settings'])}); nothing can be normalised to it")


def baseline(config: dict) -> str:
    """The setting every time is normalised to; older documents have no
    "baseline" and used setting I (co-run) or the bully-free runs (a
    report of one without them says that nothing is normalised)."""
    return config.get("baseline") or ("I" if config["study"] == "corun" else "none")


def load(path) -> dict:
    doc = read_json(path, "study JSON")
    validate(doc, str(path))
    return doc
