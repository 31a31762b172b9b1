"""The JSON Schema of the results document (docs/results-json.md), as data.

The schema file ships inside the package so that the core team's
integration tests and this tool check documents against the same contract.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from jsonschema import Draft202012Validator

SCHEMA_NAME = "gpcnet-results"
SCHEMA_VERSION = 1


@lru_cache(maxsize=None)
def schema() -> dict:
    text = resources.files("gpcnet").joinpath("data/results.schema.json").read_text("utf-8")
    return json.loads(text)


@lru_cache(maxsize=None)
def validator() -> Draft202012Validator:
    return Draft202012Validator(schema())
