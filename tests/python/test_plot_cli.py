"""gpcnet plot, --help/--version, and one-line errors without tracebacks."""

import os
import subprocess
import sys

import pytest

from conftest import fixture
from gpcnet import __version__


@pytest.mark.parametrize("kind, ext, source", [
    ("hist", "png", "load_run.json"),
    ("ci", "svg", "load_run.json"),
    ("matrix", "pdf", "load_verbose_matrix.json"),
    ("hist", "svg", "network_run.json"),  # network_test: isolated only
])
def test_plot_formats(cli, tmp_path, kind, ext, source):
    out = tmp_path / f"fig.{ext}"
    code, stdout, err = cli("plot", fixture(source), "--kind", kind, "-o", out)
    assert code == 0, err
    head = out.read_bytes()[:8]
    assert {"png": head.startswith(b"\x89PNG"), "pdf": head.startswith(b"%PDF"),
            "svg": b"<svg" in out.read_bytes()[:2000]}[ext]


def test_plot_one_test(cli, tmp_path):
    out = tmp_path / "lat.svg"
    assert cli("plot", fixture("load_run.json"), "--kind", "hist", "--test", "rr_two_sided_lat", "-o", out)[0] == 0
    code, _, err = cli("plot", fixture("load_run.json"), "--kind", "hist", "--test", "nope", "-o", out)
    assert code == 2 and "no test 'nope'" in err


@pytest.mark.parametrize("kind, source, expected", [
    ("ci", "network_run.json", "no Congestion Impact"),
    ("matrix", "load_run.json", "no impact_matrix"),
])
def test_plot_what_is_not_there(cli, tmp_path, kind, source, expected):
    code, _, err = cli("plot", fixture(source), "--kind", kind, "-o", tmp_path / "x.png")
    assert code == 2 and expected in err


def test_plot_hist_of_parsed_text(cli, tmp_path):
    parsed = tmp_path / "p.json"
    cli("parse", fixture("ref_load_default.txt"), "-o", parsed)
    code, _, err = cli("plot", parsed, "--kind", "hist", "-o", tmp_path / "x.png")
    assert code == 2 and "no histograms" in err and "parsed from text output" in err


def test_plot_unknown_format(cli, tmp_path):
    code, _, err = cli("plot", fixture("load_run.json"), "--kind", "ci", "-o", tmp_path / "x.gif")
    assert code == 2 and "unsupported figure format 'gif'" in err


@pytest.mark.parametrize("command", ["report", "compare", "table", "parse", "plot"])
def test_help_for_each_command(cli, command):
    with pytest.raises(SystemExit) as info:
        cli(command, "--help")
    assert info.value.code == 0


def test_version(cli, capsys):
    with pytest.raises(SystemExit):
        cli("--version")
    assert capsys.readouterr().out.strip() == f"gpcnet {__version__}"


def test_console_script_errors_are_one_line_without_traceback(tmp_path):
    """Through a real process, as a user sees it."""
    env = dict(os.environ)
    env.pop("GPCNET_DEBUG", None)
    bad = tmp_path / "v2.json"
    bad.write_text('{"schema": "gpcnet-results", "schema_version": 2}')
    proc = subprocess.run([sys.executable, "-m", "gpcnet", "report", str(bad), "-o", str(tmp_path / "r.html")],
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert str(bad) in proc.stderr and "schema_version 2 is not supported" in proc.stderr


def test_internal_errors_are_reported_not_dumped(cli, monkeypatch):
    monkeypatch.delenv("GPCNET_DEBUG", raising=False)
    import gpcnet.report
    monkeypatch.setattr(gpcnet.report, "render", lambda *a: 1 / 0)
    code, _, err = cli("report", fixture("network_run.json"), "-o", os.devnull)
    assert code == 2 and "internal error: ZeroDivisionError" in err and err.count("\n") == 1
