"""Every file a command writes: missing directories are made, an existing
file is replaced only with --force, a planted link is never followed, and
the check comes before the seconds of rendering."""

import os

import pytest

from conftest import fixture
import output_commands

RUN = fixture("load_run.json")
TEXT = fixture("ours_load_default.txt")

COMMANDS = output_commands.commands(RUN, TEXT)
SUFFIX = output_commands.SUFFIX


@pytest.mark.parametrize("command", list(COMMANDS))
def test_missing_directories_are_created(cli, tmp_path, command):
    out = tmp_path / "a" / "b" / SUFFIX[command]
    code, _, err = cli(*COMMANDS[command](out))
    assert code == 0, err
    assert out.stat().st_size > 0
    assert sorted(p.name for p in out.parent.iterdir()) == [out.name], "no temporary left"


@pytest.mark.parametrize("command", list(COMMANDS))
def test_existing_file_needs_force(cli, tmp_path, command):
    out = tmp_path / SUFFIX[command]
    out.write_text("keep")
    code, stdout, err = cli(*COMMANDS[command](out))
    assert code == 2 and stdout == "" and err.count("\n") == 1
    assert "already exists; use --force" in err and out.read_text() == "keep"
    code, _, err = cli(*COMMANDS[command](out), "--force")
    assert code == 0, err
    assert out.read_text() != "keep"


@pytest.mark.parametrize("command", list(COMMANDS))
def test_planted_link_is_never_followed(cli, tmp_path, command):
    victim = tmp_path / "victim"
    victim.write_text("keep")
    out = tmp_path / SUFFIX[command]
    out.symlink_to(victim)
    for force in ((), ("--force",)):
        code, _, err = cli(*COMMANDS[command](out), *force)
        assert code == 2 and "symbolic link" in err
    assert victim.read_text() == "keep" and out.is_symlink()


@pytest.mark.parametrize("command", list(COMMANDS))
def test_directory_that_cannot_be_made_names_the_cause(cli, tmp_path, command):
    (tmp_path / "file").write_text("")
    code, _, err = cli(*COMMANDS[command](tmp_path / "file" / "sub" / SUFFIX[command]))
    assert code == 2 and err.count("\n") == 1 and "Not a directory" in err


def test_plot_refuses_before_drawing(cli, tmp_path, monkeypatch):
    """An output that cannot be kept is refused before the figure is drawn."""
    from gpcnet.plots import figures
    monkeypatch.setattr(figures, "ci_figure", lambda *a: pytest.fail("drew the figure"))
    out = tmp_path / "ci.svg"
    out.write_text("keep")
    code, _, err = cli("plot", RUN, "--kind", "ci", "-o", out)
    assert code == 2 and "already exists" in err


def test_device_is_written_into(cli):
    code, _, err = cli("table", RUN, "-o", os.devnull)
    assert code == 0 and err == "" and os.path.exists(os.devnull)


def test_link_to_a_device_is_refused_too(cli, tmp_path):
    """A link at an ordinary name is refused even when it names /dev/null;
    only names under /dev itself are streams (/dev/stdout: tests/security/
    test_special_outputs.py)."""
    out = tmp_path / "t.md"
    out.symlink_to(os.devnull)
    code, _, err = cli("table", RUN, "-o", out)
    assert code == 2 and "symbolic link" in err


def test_fifo_is_refused(cli, tmp_path):
    """A named pipe outside /dev may have been planted: refused, not written
    into, even with a reader waiting (issue 39)."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        code, _, err = cli("table", RUN, "--format", "csv", "-o", fifo, "--force")
        assert code == 2 and "is a named pipe, not a regular file" in err, err
        assert os.read(reader, 1 << 16) == b""
    finally:
        os.close(reader)
