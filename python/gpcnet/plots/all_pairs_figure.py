"""The all-pairs matrices as heat maps (network_test --all-pairs;
docs/method.md#all-pairs): senders are rows, receivers columns, the colour
the bandwidth the receiver saw or the pair's latency, dark where it is
bad (low bandwidth, high latency).

The map stays a vector drawing (pcolormesh, no embedded bitmap) of at most
MAX_CELLS x MAX_CELLS cells: a larger matrix is drawn in blocks, each the
worst of the cells it covers (the lowest bandwidth, the highest latency),
so that one slow pair still shows."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from gpcnet.analysis import all_pairs
from gpcnet.infra.errors import GpcnetError
from gpcnet.text import text_safe

MAX_CELLS = 64
MAX_TICK_NAMES = 32  # node names on the axes up to this many nodes


# key -> (title, unit, colour map, the worst of a block)
KINDS = {"bandwidth_mib_s": ("All-pairs bandwidth", "MiB/s", "viridis", np.nanmin),
         "latency_usec": ("All-pairs latency (8 B)", "usec", "viridis_r", np.nanmax)}


def blocks(values: np.ndarray, most: int = MAX_CELLS, worst=np.nanmin) -> tuple:
    """(values in at most most x most blocks, nodes per block): each block
    the worst of its known cells (NaN when it has none)."""
    n = values.shape[0]
    step = max(1, -(-n // most))
    if step == 1:
        return values, 1
    size = -(-n // step)
    out = np.full((size, size), np.nan)
    for bi in range(size):
        for bj in range(size):
            cells = values[bi * step:(bi + 1) * step, bj * step:(bj + 1) * step]
            if np.any(~np.isnan(cells)):
                out[bi, bj] = worst(cells)
    return out, step


def figure(doc: dict, key: str = "bandwidth_mib_s") -> Figure:
    title, unit, cmap, worst = KINDS[key]
    values = all_pairs.matrix(doc, key)
    if values is None:
        raise GpcnetError("no all-pairs matrix in this document (above its node cap only the "
                          "per-node means are kept)")
    shown, step = blocks(values, worst=worst)
    fig = Figure(figsize=(6.4, 5.4), layout="constrained")
    ax = fig.subplots()
    image = ax.pcolormesh(np.ma.masked_invalid(shown), cmap=cmap, edgecolors="none")
    ax.invert_yaxis()
    ax.set_aspect("equal")
    labels = all_pairs.names(doc)
    if step == 1 and len(labels) <= MAX_TICK_NAMES:
        ticks = np.arange(len(labels)) + 0.5
        ax.set_xticks(ticks)
        ax.set_xticklabels([text_safe.label(x) for x in labels], rotation=90, fontsize=6)
        ax.set_yticks(ticks)
        ax.set_yticklabels([text_safe.label(x) for x in labels], fontsize=6)
    else:
        ax.set_xlabel(f"receiver (blocks of {step} nodes, in node order)" if step > 1 else "receiver (node index)")
        ax.set_ylabel("sender")
    ax.set_title(f"{title}, sender (row) to receiver (column)", fontsize=9)
    bar = fig.colorbar(image, ax=ax, shrink=0.8, label=unit)
    bar.solids.set_rasterized(False)  # keep the SVG free of embedded bitmaps
    return fig
