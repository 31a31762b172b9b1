"""The study reports (co-run figures of Zhang et al. and the scale sweep)
open in headless Chromium with every figure drawn: no console message,
each <figure> one SVG with shapes, a screenshot that is not blank."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from matplotlib import image

from conftest import ARTIFACTS
from gpcnet.cli import main
from test_browser import _Figures, console_messages, run_chromium

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "studies"))
import test_study_figures as docs  # noqa: E402  (the synthetic study documents)


@pytest.mark.parametrize("name, make, figures", [("corun", docs.corun_doc, 3), ("scale", docs.scale_doc, 2)])
def test_study_report_renders_in_chromium(tmp_path, name, make, figures):
    src = tmp_path / f"{name}.json"
    src.write_text(json.dumps(make()))
    report = tmp_path / f"study-{name}.html"
    assert main(["report", str(src), "-o", str(report)]) == 0
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / f"report-study-{name}.png"
    shot.unlink(missing_ok=True)
    proc = run_chromium(tmp_path, report.as_uri(), "--dump-dom", f"--screenshot={shot}",
                        "--window-size=1280,3000", "--hide-scrollbars")
    shutil.copy(report, ARTIFACTS / report.name)
    assert console_messages(proc.stderr) == []
    parsed = _Figures()
    parsed.feed(proc.stdout)
    assert len(parsed.figures) == figures
    for fig in parsed.figures:
        assert fig["svg"] == 1 and fig["shapes"] > 10, fig
    assert image.imread(shot)[..., :3].std() > 0.05   # not a blank page
