"""Open the HTML reports in headless Chromium: no console messages, every
figure present in the rendered DOM, and a screenshot that shows them.

Chromium is driven only through its command line (--dump-dom,
--screenshot, console messages logged to stderr). Skipped when Chromium is
absent, unless CI is set: then a missing browser is a failure.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from html.parser import HTMLParser

import numpy as np
import pytest
from matplotlib import image

from conftest import ARTIFACTS, in_ci

# The report has no scripts, so any console message at all is unexpected;
# Chromium logs them as "...:INFO:CONSOLE:<line>] "message", source: ...".
CONSOLE = re.compile(r":CONSOLE[(:]\d+[)]?\]\s*(.*)")


def _chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path:
        return path
    if in_ci():
        pytest.fail("CI is set but chromium is not installed; run scripts/setup-python.sh")
    pytest.skip("chromium is not installed (scripts/setup-python.sh installs it) and CI is not set")


def run_chromium(tmp_path, url: str, *extra: str) -> subprocess.CompletedProcess:
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    cmd = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
           "--enable-logging=stderr", "--v=0", *extra, url]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=90)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc


def console_messages(stderr: str) -> list:
    return [m.group(1) for m in map(CONSOLE.search, stderr.splitlines()) if m]


class _Figures(HTMLParser):
    """Per <figure class="plot">: how many <svg> and drawing elements it holds."""

    def __init__(self):
        super().__init__()
        self.figures = []
        self._depth = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "figure" and "plot" in (attrs.get("class") or ""):
            self.figures.append({"id": attrs.get("id"), "svg": 0, "shapes": 0})
            self._depth = 1
        elif self._depth:
            if tag == "svg":
                self.figures[-1]["svg"] += 1
            elif tag in ("path", "use", "rect", "polygon"):
                self.figures[-1]["shapes"] += 1

    def handle_endtag(self, tag):
        if tag == "figure" and self._depth:
            self._depth = 0


def test_console_messages_are_detected(tmp_path):
    """The check below is only worth something if it can fail."""
    page = tmp_path / "bad.html"
    page.write_text('<!DOCTYPE html><html><body><script>console.error("boom")</script></body></html>')
    proc = run_chromium(tmp_path, page.as_uri(), "--dump-dom")
    assert any("boom" in m for m in console_messages(proc.stderr))


@pytest.mark.parametrize("name, figures", [
    ("load_verbose_matrix", 5),
    ("network_run", 8),
    ("parsed_ref_load_default", 1),
    ("real_network_load_test_verbose", 4),
    # 3 histograms, the sweep (Figures 4-5), CI, impact matrix, repeat spread.
    ("real_sweep_repeat", 7),
])
def test_report_renders_in_chromium(tmp_path, reports, name, figures):
    report = reports[name]
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / f"report-{name}.png"
    shot.unlink(missing_ok=True)
    # One launch gives the rendered DOM, the console log and a screenshot.
    proc = run_chromium(tmp_path, report.as_uri(), "--dump-dom", f"--screenshot={shot}",
                        "--window-size=1280,4000", "--hide-scrollbars")
    shutil.copy(report, ARTIFACTS / f"report-{name}.html")

    assert console_messages(proc.stderr) == []
    parsed = _Figures()
    parsed.feed(proc.stdout)
    assert len(parsed.figures) == figures
    for fig in parsed.figures:
        assert fig["svg"] == 1 and fig["shapes"] > 10, fig

    pixels = image.imread(shot)[..., :3]
    assert pixels.std() > 0.05  # not a blank page
    # matplotlib's default blue (#1f77b4) is in every figure of ours.
    blue = np.abs(pixels - np.array([0x1f, 0x77, 0xb4]) / 255).max(axis=-1) < 0.08
    assert blue.sum() > 200
