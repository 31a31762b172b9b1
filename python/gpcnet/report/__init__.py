"""HTML reports: one run (run.py, with the sweep and repeat sections of
sweep.py) and one application study (study.py), all through the shared
layer in html.py."""

from __future__ import annotations


def render(doc: dict, source_name: str) -> str:
    """The report of a results document."""
    from gpcnet.report import run
    return run.render(doc, source_name)


def render_study(study: dict) -> str:
    """The report of a study document."""
    from gpcnet.report import study as study_page
    return study_page.render(study)
