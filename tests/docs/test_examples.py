"""Every code block of README.md and docs/*.md carries a mark saying what it
is (tests/docs/examples.py), and every block that can run on this machine
runs exactly as written, as a new user would type it:

- in a fresh copy of the repository (the files git knows, as they are in
  the working tree, committed into a new git repository), so no example
  depends on what another one left behind;
- with HOME a fresh directory and without the OMPI_* settings of the test
  harness, so a block that needs them must say so itself;
- with `bash -e`: every command of the block must succeed (a `console`
  block, typed at a prompt, only its last line);
- and after it `git status --porcelain` in the copy is empty: what the
  examples write is inside .gitignore or outside the repository.

Run as root, every block not marked root runs a second time as a throw-away
unprivileged user (test_example_runs_as_a_normal_user), with the gpcnet tool
in a Python of its own (tests/docs/user_tool.py: Debian's Python 3, the
dependencies cached in /var/cache/gpcnet-tests after the first run).

GPCNET_DOCS_SLOW=1 also runs the blocks marked slow (minutes each).
"""
from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import examples  # noqa: E402
import user_tool  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import testbed_share  # noqa: E402
from throwaway_user import throwaway_user  # noqa: E402
from examples import CLASSES, REPO, RUNNABLE  # noqa: E402

BLOCKS = examples.all_blocks()
BUILD = Path(os.environ.get("GPCNET_BUILD_DIR", REPO / "build")).resolve()
FIXTURES = REPO / "tests/python/fixtures"
GIT = ["git", "-c", "user.name=docs", "-c", "user.email=docs@example.org"]
SLOW = os.environ.get("GPCNET_DOCS_SLOW") == "1"
BLOCK_TIMEOUT = 900 if SLOW else 300
SHELLS = ("bash", "sh", "console", "")


def test_every_block_is_marked():
    unmarked = [b.name for b in BLOCKS if b.cls is None]
    assert not unmarked, ("code blocks without an <!-- example: CLASS --> mark "
                          f"(see tests/docs/examples.py): {unmarked}")
    wrong = [f"{b.name}: {b.cls}" for b in BLOCKS if b.cls not in CLASSES]
    assert not wrong, f"unknown example classes (known: {CLASSES}): {wrong}"


def test_no_indented_code_blocks():
    found = [line for path in examples.documents() for line in examples.indented_code(path)]
    assert not found, f"indented code blocks cannot carry a mark; fence them: {found}"


def test_cluster_blocks_name_their_runnable_form():
    ids = {(b.doc, b.options.get("id")): b for b in BLOCKS if b.options.get("id")}
    bad = []
    for b in BLOCKS:
        if b.cls != "cluster":
            continue
        here = b.options.get("here")
        if here == "none":
            continue
        target = ids.get((b.doc, here))
        if target is None or target.cls not in RUNNABLE:
            bad.append(f"{b.name}: here={here!r}")
    assert not bad, f"cluster blocks must name a runnable block of their document: {bad}"


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.lang in ("bash", "sh", "console")],
                         ids=lambda b: b.name)
def test_shell_blocks_parse_and_name_existing_files(block):
    p = subprocess.run(["bash", "-n"], input=examples.script(block), capture_output=True, text=True)
    assert p.returncode == 0, f"{block.name}: bash -n: {p.stderr}"
    missing = [path for path in re.findall(r"(?<![\w./-])((?:scripts|bench|platforms|apps|packaging)"
                                            r"/[\w./-]+)", examples.script(block))
               if not (REPO / path).exists()]
    assert not missing, f"{block.name} names files the repository does not have: {missing}"


def fresh_copy(dest: Path) -> Path:
    """The repository's files as a new clone would have them, with the
    working tree's content: tracked and new (not ignored) files."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=REPO, capture_output=True, check=True).stdout
    for name in filter(None, listed.decode().split("\0")):
        src = REPO / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name, follow_symlinks=False)
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "fresh copy"]):
        subprocess.run(GIT + cmd, cwd=dest, check=True, capture_output=True)
    return dest


def user_env(home: Path) -> dict:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMPI_", "PMIX_", "MPIR_CVAR", "GPCNET_", "PYTEST_"))
           or k.startswith("GPCNET_PYTEST_") or k == "GPCNET_TESTBED_OWNER"}
    env.update(HOME=str(home), TMPDIR=str(home))
    return env


def runnable(block):
    if block.cls == "slow" and not SLOW:
        pytest.skip("marked slow: runs with GPCNET_DOCS_SLOW=1")
    if "root" in block.options and os.geteuid() != 0:
        pytest.skip("needs root (marked root)")


def prepare(block, tmp_path: Path, copy_build: bool = False) -> Path:
    """The directory the block runs in, with what its mark says is there
    first. copy_build: the build's programs copied, not linked (for a user
    who may not reach the build directory)."""
    if "scratch" in block.options:
        where = tmp_path / "work"
        where.mkdir()
    else:
        where = fresh_copy(tmp_path / "repo")
    if "build" in block.options:
        (where / "build").mkdir()
        for name in ("network_test", "network_load_test", "network_congestor"):
            if copy_build:
                shutil.copy2(BUILD / name, where / "build" / name)
            else:
                (where / "build" / name).symlink_to(BUILD / name)
    if block.options.get("given"):
        for item in block.options["given"].split(","):
            name, _, stem = item.partition(":")
            (where / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(FIXTURES / f"{stem or 'real/network_load_test'}.json", where / name)
        if "scratch" not in block.options:  # part of the starting state, not of what it writes
            subprocess.run(["git", "add", "-f", "."], cwd=where, check=True)
            subprocess.run(GIT + ["commit", "-q", "-m", "given"], cwd=where, check=True)
    return where


def command(block) -> list:
    text = examples.script(block)
    if block.cls == "python":
        return ["python3", "-c", text]
    if block.lang == "console":  # typed at a prompt: a failing line does not end it
        return ["bash", "-c", text]
    return ["bash", "-e", "-o", "pipefail", "-c", text]


def run_and_check(block, cmd: list, where: Path, env: dict, git=GIT):
    """Run the block's command; check its exit, what a console block shows,
    and that it left nothing git does not ignore."""
    text = examples.script(block)
    proc = subprocess.Popen(cmd, cwd=where, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=BLOCK_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        pytest.fail(f"{block.name} ran over {BLOCK_TIMEOUT} s:\n{out[-6000:]}")
    finally:
        # The testbed is one per machine: never leave ours up for the next
        # block, never remove anyone else's.
        if "gpcnet testbed up" in text:
            testbed_share.down()
    assert proc.returncode == 0, f"{block.name} failed ({proc.returncode}):\n{out[-6000:]}"
    shown = examples.shown_output(block) if block.lang == "console" else []
    missing = examples.in_order(shown, out)
    assert not missing, (f"{block.name} did not print what the document shows; "
                         f"missing, in order: {missing}\nprinted:\n{out[-6000:]}")
    if "scratch" in block.options:
        return
    status = subprocess.run([*git, "status", "--porcelain", "--untracked-files=all"], cwd=where,
                            capture_output=True, text=True, check=True).stdout
    assert status == "", f"{block.name} left files git does not ignore:\n{status}"


# Blocks that bring a testbed up through a bench/ script rather than
# `gpcnet testbed up`.
TESTBED_SCRIPTS = re.compile(r"bench/(ecmp_patterns|testbed_up_down)\.py")


def uses_testbed(block) -> bool:
    text = examples.script(block)
    return "gpcnet testbed" in text or bool(TESTBED_SCRIPTS.search(text))


def grouped(block, group=None):
    """The block as a test parameter, with the pytest-xdist group it should
    share a worker with (`--dist loadgroup`): the normal user's Python and
    account are made once per worker, and the testbed's blocks, one at a
    time anyway (testbed_share.slot()), leave the other worker free."""
    if uses_testbed(block):
        group = "testbed"
    return pytest.param(block, id=block.name,
                        marks=[pytest.mark.xdist_group(group)] if group else [])


@pytest.mark.parametrize("block", [grouped(b) for b in BLOCKS if b.cls in RUNNABLE])
def test_example_runs_as_written(block, tmp_path):
    runnable(block)
    # The testbed's hosts have a /tmp of their own and `gpcnet testbed run`
    # wants the job's directory on the file system they share
    # (docs/testbed.md): such a block runs from /var/tmp.
    shared = "gpcnet testbed" in examples.script(block)
    # One testbed per machine: a block that brings one up holds the
    # machine's testbed slot until it is down again (tests/testbed_share.py).
    with testbed_share.slot() if uses_testbed(block) else contextlib.nullcontext():
        if "gpcnet testbed up" in examples.script(block):
            testbed_share.claim()   # someone else's testbed: wait (bounded), then skip
        base = Path(tempfile.mkdtemp(prefix="gpcnet-docs-", dir="/var/tmp")) if shared else tmp_path
        try:
            home = base / "home"
            home.mkdir()
            where = prepare(block, base)
            cmd = command(block)
            if block.cls == "python":
                cmd[0] = sys.executable
            run_and_check(block, cmd, where, user_env(home))
        finally:
            if shared:
                shutil.rmtree(base, ignore_errors=True)


# --- The same blocks typed by a user who is not root ------------------------

@pytest.fixture(scope="module")
def normal_user():
    """The user, and the bin directory of its Python with the gpcnet tool
    of this tree (first on its PATH)."""
    if os.geteuid() != 0:
        pytest.skip("tests not run as root: test_example_runs_as_written already ran "
                    "every block as a normal user")
    why = user_tool.missing()
    if why:
        pytest.fail(f"no Python for the normal user: {why}")
    with throwaway_user("gpcnet-d") as user, user_tool.user_tool(REPO) as tool_bin:
        yield user, tool_bin


def _owned_in_tmp(uid: int) -> list:
    """The entries directly under /tmp owned by uid."""
    out = subprocess.run(["find", "/tmp", "-mindepth", "1", "-maxdepth", "1", "-uid", str(uid)],
                         capture_output=True, text=True, timeout=120).stdout
    return out.split()


@pytest.mark.parametrize("block", [grouped(b, "normal-user") for b in BLOCKS
                                   if b.cls in RUNNABLE and "root" not in b.options])
def test_example_runs_as_a_normal_user(block, normal_user):
    """Every block not marked root, typed by an unprivileged user in a copy
    the user owns (the OMPI root settings a block exports are then unused),
    with `python3` and `gpcnet` from the user's own Python (user_tool)."""
    runnable(block)
    normal_user, tool_bin = normal_user
    base = Path(tempfile.mkdtemp(prefix="gpcnet-docs-user-"))
    try:
        home = base / "home"
        home.mkdir()
        where = prepare(block, base, copy_build=True)
        for path in [base, *base.rglob("*")]:
            os.chown(path, normal_user.pw_uid, normal_user.pw_gid, follow_symlinks=False)
        env = {"PATH": f"{tool_bin}:/usr/local/bin:/usr/bin:/bin",
               "HOME": str(home), "TMPDIR": str(home), "LANG": "C.UTF-8", "USER": normal_user.pw_name}
        as_user = ["runuser", "-u", normal_user.pw_name, "--", "env", "-i",
                   *(f"{k}={v}" for k, v in env.items())]
        git = ["runuser", "-u", normal_user.pw_name, "--", "env", f"HOME={home}", *GIT]
        # What /tmp already held of this uid is not the block's: a killed
        # earlier run's user may have had the same (reused) uid.
        before = set(_owned_in_tmp(normal_user.pw_uid))
        run_and_check(block, as_user + command(block), where, env=None, git=git)
        # Nothing the user wrote is left outside its own directory.
        strays = [p for p in _owned_in_tmp(normal_user.pw_uid) if Path(p) != base and p not in before]
        assert not strays, f"{block.name} left files of its user in /tmp: {strays}"
    finally:
        subprocess.run(["pkill", "-KILL", "-u", normal_user.pw_name], capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


# --- The harness itself --------------------------------------------------------

def test_xdist_loadgroup_groups(tmp_path):
    """The docs stage runs with `--dist loadgroup` so that the testbed's
    blocks and the normal user's runs each share one worker; a pytest and
    pytest-xdist pair where the group mark is silently ignored (pytest 9.2,
    pytest-xdist issue 1386) must be seen, not just slow the stage down."""
    (tmp_path / "test_grouping.py").write_text(
        "import pytest\n"
        "@pytest.mark.parametrize('i', [pytest.param(i, marks=[pytest.mark.xdist_group('g')]\n"
        "                                             if i % 2 else []) for i in range(8)])\n"
        "def test_one(i):\n"
        "    pass\n")
    p = subprocess.run([sys.executable, "-m", "pytest", "-v", "-n", "2", "--dist", "loadgroup",
                        "-p", "no:cacheprovider", "test_grouping.py"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    grouped = re.findall(r"\[(gw\d+)\].*PASSED \S*test_one\[(\d+)\]@g", p.stdout)
    assert sorted(int(i) for _, i in grouped) == [1, 3, 5, 7], (
        "pytest-xdist's --dist loadgroup did not mark the grouped tests (no '@g' suffix): "
        f"this pytest and pytest-xdist do not group\n{p.stdout[-3000:]}")
    assert len({w for w, _ in grouped}) == 1, f"one group ran on several workers:\n{p.stdout[-3000:]}"
