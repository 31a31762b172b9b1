"""Node lists of the co-run settings (Zhang et al.; docs/studies.md).

From a list of M >= 3N nodes, rotated by r * (M // R) for rotation r of R
(r = 0 .. R-1): R <= M rotations start at R different nodes; R > M would
make M // R = 0 and put every rotation at offset 0, so it is refused.

- I   continuous: application on the first N nodes; nothing else runs.
- II  spaced: application on every other node of the first 2N.
- III continuous + congestor on spaced nodes: application as in I, congestor
      on every other node of the next 2N (intermediate congestion: the two
      share switches and links between the application's nodes, not NICs).
- IV  spaced + congestor interleaved: application as in II, congestor on the
      nodes in between (endpoint congestion).
"""

from __future__ import annotations

from collections import Counter

from gpcnet.infra.errors import GpcnetError

SETTINGS = ("I", "II", "III", "IV")
DESCRIPTION = {
    "I": "continuous, isolated",
    "II": "spaced, isolated",
    "III": "continuous + congestor on spaced nodes (intermediate congestion)",
    "IV": "spaced + congestor interleaved (endpoint congestion)",
}
CONGESTED = {"I": False, "II": False, "III": True, "IV": True}
# CI_app pairs: the congested setting and its isolated twin (same placement
# of the application).
PAIRS = (("II", "IV"), ("I", "III"))


def choice_list(option: str, noun: str, text: str, choices, names: list) -> list:
    """`names` (the comma-separated items of `text`, as given) checked
    against `choices`: not empty, each known, none repeated."""
    known = ", ".join(choices)
    if not names:
        raise GpcnetError(f"{option}: empty list (choose from {known})")
    for name in names:
        if name not in choices:
            raise GpcnetError(f"{option}: unknown {noun} {name!r} (choose from {known})")
    if len(set(names)) != len(names):
        raise GpcnetError(f"{option}: a {noun} is repeated in {text!r}")
    return names


def parse_settings(text: str) -> list:
    names = [s.strip().upper() for s in text.split(",") if s.strip()]
    return choice_list("--settings", "setting", text, SETTINGS, names)


def check_sizes(nodes: list, n: int, rotations: int) -> None:
    if len(set(nodes)) != len(nodes):
        dup = sorted(x for x, k in Counter(nodes).items() if k > 1)
        raise GpcnetError(f"node list names a node twice: {', '.join(dup[:5])}")
    if n < 1:
        raise GpcnetError(f"N must be at least 1 (got {n})")
    if rotations < 1:
        raise GpcnetError(f"--rotations must be at least 1 (got {rotations})")
    if 3 * n > len(nodes):
        raise GpcnetError(f"N = {n} needs a list of at least 3N = {3 * n} nodes; "
                          f"the list has {len(nodes)} (largest N: {len(nodes) // 3})")
    m = len(nodes)
    if rotations > m:
        raise GpcnetError(f"--rotations {rotations} asks for {rotations} placements; a list of {m} nodes allows "
                          f"{m} distinct ones (rotation r starts at node r x floor(M/R) = r x floor({m}/{rotations})"
                          f" = 0: every rotation the same); give --rotations {m} or fewer, or a longer list")


def check_baseline(baseline: str, settings: list) -> str:
    """The setting every time is normalised to: one of the settings run."""
    name = baseline.strip().upper()
    if name not in SETTINGS:
        raise GpcnetError(f"--baseline: unknown setting {baseline!r} (choose from I, II, III, IV)")
    if name not in settings:
        raise GpcnetError(f"--baseline {name} is not among --settings {','.join(settings)}: every time is "
                          f"normalised to the median of the baseline setting; add {name} to --settings "
                          f"or give --baseline one of {','.join(settings)}")
    return name


def rotation_offset(m: int, rotation: int, rotations: int) -> int:
    """Rotation r starts r x floor(m / rotations) nodes further on: one
    tenth of the list each time for 10 rotations. Distinct for every r
    when rotations <= m (check_sizes refuses more)."""
    return (rotation * (m // rotations)) % m if m else 0


def rotated(nodes: list, rotation: int, rotations: int) -> list:
    off = rotation_offset(len(nodes), rotation, rotations)
    return nodes[off:] + nodes[:off]


def placement(nodes: list, n: int, setting: str, rotation: int = 0, rotations: int = 10) -> dict:
    """{"app": [...], "congestor": [...], "offset": k} for one run."""
    check_sizes(nodes, n, rotations)
    if setting not in SETTINGS:
        raise GpcnetError(f"unknown setting {setting!r} (choose from I, II, III, IV)")
    r = rotated(nodes, rotation, rotations)
    continuous, spaced = r[:n], r[0:2 * n:2]
    app = continuous if setting in ("I", "III") else spaced
    congestor = {"I": [], "II": [], "III": r[n:3 * n:2], "IV": r[1:2 * n:2]}[setting]
    return {"app": app, "congestor": congestor,
            "offset": rotation_offset(len(nodes), rotation, rotations)}
