"""safe_write: nothing written through a planted link, nothing replaced without force."""

from __future__ import annotations

import os
import secrets

import pytest

from gpcnet.infra import safe_write
from gpcnet.infra.errors import GpcnetError


@pytest.fixture(params=["unnamed", "named"])
def way(request, monkeypatch):
    """How the temporary is made: with no name until whole (Linux
    O_TMPFILE), or named (where that cannot be done)."""
    if request.param == "named":
        monkeypatch.setattr(safe_write, "_write_unnamed", lambda *args: False)
    elif not hasattr(os, "O_TMPFILE"):
        pytest.skip("no unnamed temporary files here (O_TMPFILE)")
    return request.param


def race(monkeypatch, way, action):
    """Run `action()` once the temporary exists and before it is put in place."""
    name = "_fresh_temp" if way == "named" else "_link_in"
    real = getattr(safe_write, name)

    def racing(*args):
        if way == "named":
            got = real(*args)
            action()
            return got
        action()
        return real(*args)
    monkeypatch.setattr(safe_write, name, racing)


@pytest.fixture
def victim(tmp_path):
    v = tmp_path / "victim"
    v.write_text("precious\n")
    return v


def test_writes_new_file_and_creates_parents(tmp_path):
    target = tmp_path / "a" / "b" / "out.json"
    safe_write.write_text(target, "{}\n")
    assert target.read_text() == "{}\n"
    assert [p.name for p in target.parent.iterdir()] == ["out.json"]  # no temporary left


def test_existing_file_needs_force(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("old")
    with pytest.raises(GpcnetError, match=r"out\.json: already exists; use --force"):
        safe_write.write_text(target, "new")
    assert target.read_text() == "old"
    safe_write.write_text(target, "new", force=True)
    assert target.read_text() == "new"


@pytest.mark.parametrize("force", [False, True])
def test_link_at_target_is_refused(tmp_path, victim, force):
    target = tmp_path / "out.json"
    target.symlink_to(victim)
    with pytest.raises(GpcnetError, match="symbolic link"):
        safe_write.write_text(target, "evil", force=force)
    assert victim.read_text() == "precious\n"
    assert target.is_symlink()


@pytest.mark.parametrize("force", [False, True])
def test_dangling_link_at_target_is_refused(tmp_path, force):
    target = tmp_path / "out.json"
    target.symlink_to(tmp_path / "would-be-created")
    with pytest.raises(GpcnetError, match="symbolic link"):
        safe_write.write_text(target, "evil", force=force)
    assert not (tmp_path / "would-be-created").exists()


def test_links_at_temporary_names_are_never_followed(tmp_path, victim, monkeypatch, way):
    # Plant links at the first temporary names the writer will pick.
    tokens = iter(["0" * 16, "1" * 16, "2" * 16])
    monkeypatch.setattr(secrets, "token_hex", lambda n: next(tokens))
    for t in ("0" * 16, "1" * 16):
        (tmp_path / f".out.json.{t}.tmp").symlink_to(victim)
    (tmp_path / "out.json").write_text("old")  # replaced: the unnamed file takes a temporary name too
    safe_write.write_text(tmp_path / "out.json", "fresh", force=True)
    assert victim.read_text() == "precious\n"
    assert (tmp_path / "out.json").read_text() == "fresh"
    assert not (tmp_path / "out.json").is_symlink()


def test_gives_up_cleanly_when_every_temporary_name_is_taken(tmp_path, victim, monkeypatch, way):
    monkeypatch.setattr(secrets, "token_hex", lambda n: "f" * 16)
    (tmp_path / f".out.json.{'f' * 16}.tmp").symlink_to(victim)
    with pytest.raises(GpcnetError, match="no free temporary name"):
        safe_write.write_text(tmp_path / "out.json", "x", force=True)
    assert victim.read_text() == "precious\n"


def test_directory_at_target_is_refused(tmp_path):
    (tmp_path / "out.json").mkdir()
    with pytest.raises(GpcnetError, match="not a regular file"):
        safe_write.write_text(tmp_path / "out.json", "x", force=True)


def test_file_appearing_after_the_check_is_not_replaced(tmp_path, monkeypatch, way):
    target = tmp_path / "out.json"
    race(monkeypatch, way, lambda: target.write_text("theirs"))  # another writer creates the name
    with pytest.raises(GpcnetError, match="already exists"):
        safe_write.write_text(target, "ours")
    assert target.read_text() == "theirs"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_link_appearing_after_the_check_is_not_followed(tmp_path, victim, monkeypatch, way):
    target = tmp_path / "out.json"
    race(monkeypatch, way, lambda: target.symlink_to(victim))
    with pytest.raises(GpcnetError, match="symbolic link"):
        safe_write.write_text(target, "ours", force=True)
    assert victim.read_text() == "precious\n"


def test_open_new_streams(tmp_path, victim):
    out = tmp_path / "d" / "app.out"
    with safe_write.open_new(out, "wb") as f:
        f.write(b"line\n")
    assert out.read_bytes() == b"line\n"
    with pytest.raises(GpcnetError, match="already exists; use --force"):
        with safe_write.open_new(out):
            pass
    with safe_write.open_new(out, force=True) as f:
        f.write("again\n")
    assert out.read_text() == "again\n"
    link = tmp_path / "d" / "link.out"
    link.symlink_to(victim)
    for force in (False, True):
        with pytest.raises(GpcnetError, match="symbolic link"):
            with safe_write.open_new(link, force=force):
                pass
    assert victim.read_text() == "precious\n"


def test_open_new_hands_a_real_fd_to_children(tmp_path):
    out = tmp_path / "child.out"
    with safe_write.open_new(out, "wb") as f:
        os.write(f.fileno(), b"from fd\n")
    assert out.read_bytes() == b"from fd\n"


def test_unwritable_directory_is_one_line(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root writes anywhere")
    d = tmp_path / "ro"
    d.mkdir()
    d.chmod(0o500)
    with pytest.raises(GpcnetError, match="cannot write"):
        safe_write.write_text(d / "x", "y")
