"""`gpcnet study ... --resume`: the study JSON on disk is data, never a
source of what to run.

The resuming command builds its whole config exactly as a fresh study
would; the stored config is only compared with it, field by field (every
field of either side, not a list of the ones that matter, so that a field
added later cannot be forgotten), and the first difference is refused
naming `config.<field>`. The study then runs with the command line's config
and node list only. A study JSON can be handed over, or edited by whoever
can write its directory: a program path, an argument list or a new field
planted in it must not run anything (docs/security.md, guarantee 2).
"""

from __future__ import annotations

import json
from pathlib import Path

from gpcnet.text import text_safe
from gpcnet.infra.errors import GpcnetError
from gpcnet.study import document

# Compared first, in this order: the fields a user changes most often, so
# that the message names the difference they made.
FIRST = ("study", "app_command", "n", "settings", "rotations", "ppn", "patterns", "launcher", "baseline")
# Written by the runner itself after every run (from the runs), never taken
# from the command line; recomputed on the next save.
DERIVED = ("time_measure",)
_ABSENT = object()


def _same(a, b) -> bool:
    """JSON equality: 2 and 2.0 are the same number, true is not 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def _comparable(config: dict) -> dict:
    cfg = {k: v for k, v in config.items() if k not in DERIVED}
    cfg.setdefault("baseline", document.baseline(config))  # older documents have none (document.baseline)
    return cfg


def _show(value) -> str:
    if value is _ABSENT:
        return "none"
    return text_safe.shorten(repr(value), 77)


def first_difference(stored: dict, config: dict):
    """The first field in which the stored config and the command line's
    differ, as (field, stored value, command line's value), or None."""
    # The command line's config as it would be stored (tuples become lists).
    old, new = _comparable(stored), _comparable(json.loads(json.dumps(config)))
    keys = [k for k in FIRST if k in old or k in new]
    keys += sorted((old.keys() | new.keys()) - set(FIRST))
    for key in keys:
        a, b = old.get(key, _ABSENT), new.get(key, _ABSENT)
        if a is _ABSENT or b is _ABSENT or not _same(a, b):
            return key, a, b
    return None


def resumed(path: Path, config: dict, nodes: list) -> dict:
    """The study in `path` to continue with the command line's `config` and
    `nodes`: its runs are kept, everything that runs is the command line's.
    GpcnetError naming the first field that differs."""
    old = document.load(path)
    diff = first_difference(old["config"], config)
    if diff is not None:
        key, a, b = diff
        raise GpcnetError(f"{path}: config.{key}: --resume with a different {key} "
                          f"({_show(a)} there, {_show(b)} now); the same command line continues a study")
    if not _same(old["nodes"], nodes):
        raise GpcnetError(f"{path}: nodes: --resume with a different node list")
    # The stored runs are records (which ids are done); the config and the
    # node list that run are the command line's objects, not the file's.
    return dict(old, config=config, nodes=nodes)
