"""The documented co-run study on the testbed (docs/studies.md, the block
marked id=tb-corun), run as written in a fresh copy as test_examples.py
runs every block, yields what the page says it does: a stall/flit ratio in
every congested run (settings III and IV) and the report's Fig. 5 with its
fit. Slow (minutes) and root: it runs with GPCNET_DOCS_SLOW=1 only, and
waits for (then skips on) a testbed someone else has up."""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

import test_examples as te

from gpcnet.study import document, summary

# With pytest-xdist (--dist loadgroup), in the worker of the other testbed blocks.
pytestmark = pytest.mark.xdist_group("testbed")

BLOCK = next(b for b in te.BLOCKS if b.options.get("id") == "tb-corun")


def test_the_documented_testbed_study_has_a_ratio_in_every_congested_run():
    te.runnable(BLOCK)
    with te.testbed_share.slot():
        te.testbed_share.claim()
        run_the_block()


def run_the_block():
    base = Path(tempfile.mkdtemp(prefix="gpcnet-docs-", dir="/var/tmp"))   # the testbed's hosts share /var/tmp
    try:
        home = base / "home"
        home.mkdir()
        where = te.prepare(BLOCK, base)
        te.run_and_check(BLOCK, te.command(BLOCK), where, te.user_env(home))
        doc = document.load(where / "results" / "tb" / "tb.json")
        congested = [r for r in doc["runs"] if r["setting"] in ("III", "IV")]
        assert len(congested) == 8 and all(r["status"] == "ok" for r in congested)
        without = [(r["id"], r["counters"]["metric"]["reason"]) for r in congested
                   if r["counters"]["metric"]["stall_ratio"] is None]
        assert not without, f"congested runs without a stall/flit ratio: {without}"
        s = summary.summarise(doc)
        assert {"III", "IV"} <= {p["setting"] for p in s["per_setting"]} and s.get("fit"), s["per_setting"]
        page = (where / "results" / "tb" / "tb.html").read_text()
        assert 'id="fig-metric"' in page and "linear fit through the" in page
    finally:
        shutil.rmtree(base, ignore_errors=True)
