"""gpcnet parse reads hostile text in time linear in its size: no pattern
can backtrack over a long run of spaces. Each case is a 200,000-character
line that made the old patterns quadratic (minutes); the test asserts what
the parser says about it, in a subprocess with a timeout far above what a
linear parse needs, so it fails only when parsing is no longer linear."""

import subprocess
import sys

import pytest

from conftest import fixture

N = 400_000  # twice the 200,000 of the report: the old patterns took minutes
HEAD = "NetworkLoad Tests v1.3\n  Test with 4 MPI ranks (4 nodes)\n"
BAR = "+" + "-" * 40 + "+\n"
NO_TABLE = "no 'Isolated Network Tests' table found"

CASES = {
    "bare line": ("a" + " " * N + "!\n", "not GPCNeT text output"),
    "settings line": (HEAD + "  Settings\n  a" + " " * N + "!\n", NO_TABLE),
    "settings line with =": (HEAD + "  Settings\n  a" + " " * N + "= x" + " " * N + "!\n", NO_TABLE),
    "settings commas": (HEAD + "  Settings\n  a = " + ", b = " * (N // 5) + "\n", NO_TABLE),
    "seed": (HEAD + "  Settings\n  seed = 1 " + "(" * N + "\n", NO_TABLE),
    "header spaces": ("Network Tests v1.3" + " " * N + "!\n", "not GPCNeT text output"),
    "blank lines": (HEAD + "\n" * N + "x\n", NO_TABLE),
    "verbose title": (HEAD + BAR + "| Network Tests running with Congestion Tests (" + " " * N + "x |\n" + BAR,
                      NO_TABLE),
    "indented study marker": (" " * N + "repeat = 3\n", "not GPCNeT text output"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_hostile_text_is_answered_in_linear_time(tmp_path, name):
    text, expected = CASES[name]
    path = tmp_path / "out.txt"
    path.write_text(text)
    proc = subprocess.run([sys.executable, "-m", "gpcnet", "parse", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and expected in proc.stderr


def test_settings_line_is_still_read_as_before():
    from gpcnet.parse_text.settings import setting_line
    assert setting_line("  PPN = 1, NICs per node = 2, PPort = 0.5") == {"ppn": "1", "nics_per_node": "2",
                                                                        "pport": "0.5"}
    assert setting_line("  congestors = a2a:1, p2p_incast:2") == {"congestors": "a2a:1, p2p_incast:2"}
    assert setting_line("  seed = 7 (from --seed)   ") == {"seed": "7 (from --seed)"}
    assert setting_line("  x = a = b") == {"x": "a = b"}
    assert setting_line("no indent = 1") == {} and setting_line("  1abc = 2") == {}
    assert setting_line("  a" + " " * N + "!") == {}


def test_parsed_fixture_is_unchanged_by_the_split(cli):
    code, out, _ = cli("parse", fixture("ours_load_default.txt"))
    assert code == 0 and '"source": "text"' in out


def test_endless_input_is_refused_not_read_forever():
    proc = subprocess.run([sys.executable, "-m", "gpcnet", "parse", "/dev/zero"],
                          capture_output=True, text=True, timeout=120)
    # A device is refused before a byte is read (only a regular file is read by name).
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "not a regular file" in proc.stderr


def test_a_directory_is_named_as_such(cli, tmp_path):
    code, _, err = cli("parse", tmp_path)
    assert code == 2 and "is a directory" in err and err.count("\n") == 1
