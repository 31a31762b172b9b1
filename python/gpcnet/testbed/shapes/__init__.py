"""The testbed's shapes, one module each, behind one interface
(gpcnet.testbed.shapes.base.Shape).

Adding a shape is a module here defining SHAPE (a Shape) and one line in
the registry below: planning (gpcnet.testbed.topology.build), creation
(netns), drawing, counters, `status` and the study's fabric tiles all
read the description the module gives, never the shape's name.
"""

from __future__ import annotations

import importlib

from gpcnet.infra.errors import GpcnetError

# The registry: --topology NAME -> the module (in this package) describing it.
SHAPES = {
    "star": "star",
    "fat-tree": "fat_tree",
    "rail": "rail",
    "fat-tree3": "fat_tree3",
}


def names() -> tuple:
    return tuple(SHAPES)


def get(kind: str):
    """The Shape of --topology `kind`. An unknown one (a state file written
    by another version, say) is refused in one line."""
    if kind not in SHAPES:
        raise GpcnetError(f"unknown topology {str(kind)[:40]!r} (known: {', '.join(SHAPES)})")
    return importlib.import_module(f"{__name__}.{SHAPES[kind]}").SHAPE
