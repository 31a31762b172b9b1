"""The one HTML layer every gpcnet report goes through: escaping, the
style sheet, inline SVG figures and the page around them.

Escaping cannot be forgotten: a fragment is HTML only when it is a
``Markup`` made here. ``fmt`` takes a literal template and escapes each
argument that is not already HTML; the page template (Jinja2 with
autoescape) escapes any plain string it is given, so a fragment built by
hand with an f-string shows up as text, never as markup. The test
tests/python/test_html_layer.py checks that no report module builds
markup any other way.
"""

from __future__ import annotations

import io
import re
from typing import Iterable

import jinja2
import matplotlib
from markupsafe import Markup, escape

from gpcnet.text.text_safe import escape_char

__all__ = ["Markup", "escape", "fmt", "join", "svg", "page", "Figures"]

CSS = Markup("""
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 78em; color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; margin-top: 2em; }
h3 { font-size: 1.05em; }
table { border-collapse: collapse; margin: 0.6em 0; }
th, td { border: 1px solid #999; padding: 0.2em 0.6em; }
table.gpcnet { font-family: ui-monospace, monospace; font-size: 0.9em; }
table.gpcnet caption { font-weight: bold; padding: 0.3em; }
table.gpcnet td.num { text-align: right; }
table.gpcnet td.name { text-align: right; white-space: nowrap; }
table.summary th { text-align: left; background: #f3f3f3; font-weight: normal; }
.warning { background: #fff3cd; border: 1px solid #e0c060; padding: 0.5em 1em; }
.note { color: #555; font-size: 0.9em; }
figure.plot { margin: 1em 0; }
figure.plot svg { max-width: 100%; height: auto; }
.figrow { display: flex; flex-wrap: wrap; gap: 0 1.5em; }
.figrow figure.plot { max-width: 30em; }
table.gpcnet td.unit { text-align: right; }
figcaption { font-size: 0.9em; color: #444; }
footer { margin-top: 3em; font-size: 0.8em; color: #777; }
""")

_ENV = jinja2.Environment(autoescape=True, keep_trailing_newline=True, undefined=jinja2.StrictUndefined)

_PAGE = _ENV.from_string("""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{ title }}</title>
<style>{{ css }}</style>
</head>
<body>
{{ body }}
</body>
</html>
""")


def fmt(template: str, *args, **kwargs) -> Markup:
    """``template`` (a literal written in the code) with every argument
    escaped unless it is already Markup; format specs work as in str.format."""
    return Markup(template).format(*args, **kwargs)


def join(parts: Iterable, sep: str = "") -> Markup:
    """Concatenate fragments; plain strings among them are escaped."""
    return Markup(sep).join(parts)


def svg(fig, salt: str) -> Markup:
    """A matplotlib figure as SVG markup to inline in the page.

    ``salt`` makes the ids matplotlib generates (clip paths) unique per
    figure and stable between runs, since several figures share one page.
    """
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": salt}):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    text = buf.getvalue()
    return Markup(text[text.index("<svg"):])


class Figures:
    """Embeds a page's figures, numbered so their SVG ids never collide."""

    def __init__(self):
        self.count = 0

    def embed(self, fig, fig_id: str, caption: str) -> Markup:
        self.count += 1
        return fmt('<figure class="plot" id="fig-{}">{}<figcaption>{}</figcaption></figure>',
                   fig_id, svg(fig, f"gpcnet-{self.count}-{fig_id}"), caption)


# What a page shows as an escape, as the terminal does (text_safe): a lone
# surrogate ("\ud800": valid JSON, but no character, not encodable as
# UTF-8), control characters (C0 but tab, newline and carriage return,
# which HTML takes as white space; DEL; C1: ESC from a study JSON would
# reach whoever copies the page into a terminal, and XML forbids most of
# them in the inline SVG), and the invisible format characters that
# reorder or hide text (bidi overrides and isolates, zero-width ones, the
# line and paragraph separators, the BOM). Nothing of gpcnet's own markup
# is among them, so the whole page is escaped at once, after everything
# is in it.
_HIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069"
                     "\ufeff\ud800-\udfff]")


def page(title: str, body) -> str:
    """The whole document: one style sheet, no scripts, no external
    resources; a character that would act or hide rather than show (see
    _HIDDEN) is shown as its escape (\\x1b, \\u202e, \\ud800)."""
    text = _PAGE.render(title=title, css=CSS, body=body)
    return _HIDDEN.sub(lambda m: escape_char(m.group()), text)
