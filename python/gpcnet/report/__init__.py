"""HTML reports: one run (run.py, with the sweep and repeat sections of
sweep.py) and one application study (study_page.py), all through the shared
layer in html.py."""

from __future__ import annotations


def render(doc: dict, source_name: str, isolation_section=None) -> str:
    """The report of a results document (with the traffic classes'
    isolation figure when given)."""
    # deferred, as the page modules below: importing gpcnet.report.kinds or
    # .html must not load matplotlib's figures of every page
    from gpcnet.report import run
    with _drawing():
        return run.render(doc, source_name, isolation_section)


def render_study(study: dict) -> str:
    """The report of a study document."""
    # deferred: see render
    from gpcnet.report import study_page
    with _drawing():
        return study_page.render(study)


def _drawing():
    """Figures are built and drawn with matplotlib's LaTeX off (labels from
    files are made literal for its own mathtext) and no warnings on
    stderr: figures.literal_text."""
    # deferred: matplotlib loads only when a page is drawn
    from gpcnet.plots.figures import literal_text
    return literal_text()
