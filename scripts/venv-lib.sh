# The test command's own Python (scripts/test.sh, scripts/test-reliability.sh):
# a virtual environment beside the build, <checkout>/build-venv (ignored by
# git), with the gpcnet tool of this checkout installed editable and its
# test extra. The tests never install into the user's Python: an editable
# install there, made from a scratch clone that was then removed, left the
# user's `gpcnet` failing with "No module named 'gpcnet'", and one made from
# a second checkout silently swapped which code it ran (issue 55). Source
# it, then:
#
#   test_venv_ready REPO   make or reuse REPO/build-venv; 0 when it is usable
#   test_venv_current REPO 0 when REPO/build-venv is usable as it is (installs nothing)
#   test_venv_use REPO     put its bin first on PATH (python3, gpcnet, pytest)
#
# Reused between runs: a stamp in the venv records its own path and
# python/pyproject.toml's hash, and while both match and the venv's gpcnet
# is this checkout's, nothing is installed. A changed pyproject.toml installs
# the package again (pip adds what is new); a moved checkout (pip's scripts
# name the venv's old path) or a venv whose Python is gone is made afresh.
#
# Which Python it is made from: the first python3 on PATH. That is the
# Python the user chose and the one the suite ran with before it had a
# venv, so the same Python version is tested; on a fresh Debian 12 it is
# /usr/bin/python3 (scripts/setup.sh installs it), whose venv module comes
# in Debian's python3-venv (its ensurepip), installed here through
# scripts/apt-lib.sh when it is missing. Where the first python3 cannot
# make one and is not Debian's (a Python built without ensurepip), Debian's
# /usr/bin/python3 is tried next. Only root and sudo users can install
# python3-venv; anyone else gets a line saying what to install.
#
# Root runs this in checkouts that others may write to: build-venv must be
# a directory of the caller's own, never a link. Two runs in one checkout
# take turns (a lock on the directory).

test_venv_lib_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Debian's Python (a variable, so that a test can stand in for it).
test_venv_debian_python=/usr/bin/python3

test_venv_say() { echo "test venv: $*" >&2; }

test_venv_stamp() { # repo: what the stamp of a current venv says
    local sum
    sum=$(sha256sum "$1/python/pyproject.toml" 2>/dev/null) || return 1
    printf 'venv %s\npyproject %s\n' "$1/build-venv" "${sum%% *}"
}

test_venv_dir_ok() { # dir: 0 when it is ours to write into (or absent)
    if [ -L "$1" ]; then
        test_venv_say "$1 is a symbolic link; remove it (the test venv is never written through a link)"
        return 1
    fi
    [ -e "$1" ] || return 0
    if [ ! -d "$1" ] || [ "$(stat -c %u "$1")" != "$(id -u)" ]; then
        test_venv_say "$1 is not a directory of user $(id -un); remove it, and the next run makes it afresh"
        return 1
    fi
}

test_venv_imports_repo() { # repo: the venv's gpcnet is this checkout's, and its command runs
    local venv="$1/build-venv" where
    [ -x "$venv/bin/gpcnet" ] || return 1
    # -I: not PYTHONPATH nor the user's site-packages, only the venv's own; -B: no .pyc left.
    where=$("$venv/bin/python3" -I -B -c 'import os, gpcnet; print(os.path.realpath(gpcnet.__file__))' \
        </dev/null 2>/dev/null) || return 1
    [ "$where" = "$(realpath "$1/python/gpcnet/__init__.py")" ]
}

test_venv_current() { # repo
    local venv="$1/build-venv" want
    want=$(test_venv_stamp "$1") || return 1
    [ ! -L "$venv" ] && [ -d "$venv" ] && [ "$(cat "$venv/gpcnet-test-venv.stamp" 2>/dev/null)" = "$want" ] &&
        test_venv_imports_repo "$1"
}

test_venv_make() { # python, venv dir: a venv with a working pip, or 1 (its output on stderr)
    local out
    out=$("$1" -m venv --clear "$2" </dev/null 2>&1) && "$2/bin/python3" -m pip --version >/dev/null 2>&1 && return 0
    test_venv_say "$1 -m venv failed: $(tail -3 <<<"$out")"
    return 1
}

test_venv_create() { # venv dir: made from the first python3 on PATH, else Debian's
    local py debian="$test_venv_debian_python" tried=""
    for py in "$(command -v python3 || true)" "$debian"; do
        [ -n "$py" ] && [ -x "$py" ] || continue
        py=$(realpath "$py")
        [ "$py" != "$tried" ] || continue
        tried="$py"
        # Debian's Python makes venvs only with python3-venv (its ensurepip).
        if [ "$py" = "$(realpath "$debian" 2>/dev/null)" ] && ! "$py" -c 'import ensurepip, venv' >/dev/null 2>&1; then
            (APT_WHO=test-venv; . "$test_venv_lib_dir/apt-lib.sh"; apt_install python3-venv) ||
                test_venv_say "installing python3-venv failed"
        fi
        test_venv_make "$py" "$1" && return 0
    done
    test_venv_say "could not make $1 (python3 -m venv): install Debian's python3-venv, or put a Python that has venv first on PATH"
    return 1
}

test_venv_install() { # repo (the lock held)
    local venv="$1/build-venv" stamp="$1/build-venv/gpcnet-test-venv.stamp" want
    want=$(test_venv_stamp "$1") || { test_venv_say "$1/python/pyproject.toml missing"; return 1; }
    # A venv of another path (a moved checkout) or whose Python is gone is made afresh.
    if ! grep -qxF "${want%%$'\n'*}" "$stamp" 2>/dev/null ||
       ! "$venv/bin/python3" -m pip --version >/dev/null 2>&1; then
        test_venv_say "making $venv"
        test_venv_create "$venv" || return 1
    fi
    rm -f "$stamp"
    test_venv_say "installing the gpcnet tool of $1 (editable) with its test extra into $venv"
    # PIP_USER=0: a pip configured for --user installs would refuse a venv.
    PIP_USER=0 PIP_ROOT_USER_ACTION=ignore "$venv/bin/python3" -m pip install --quiet -e "$1/python[test]" </dev/null ||
        { test_venv_say "pip install -e '$1/python[test]' into $venv failed"; return 1; }
    test_venv_imports_repo "$1" ||
        { test_venv_say "after the install, $venv/bin/python3 does not import gpcnet from $1/python"; return 1; }
    # The stamp last: an interrupted install is redone by the next run.
    printf '%s\n' "$want" >"$stamp.new" && mv -f "$stamp.new" "$stamp"
}

test_venv_ready() { # repo
    local repo="$1" venv="$1/build-venv" fd rc
    test_venv_dir_ok "$venv" || return 1
    mkdir -p "$venv" && test_venv_dir_ok "$venv" || return 1
    exec {fd}<"$venv"
    flock -w 900 "$fd" || { test_venv_say "$venv is busy (another test run holds it)"; exec {fd}<&-; return 1; }
    if test_venv_current "$repo"; then
        test_venv_say "reusing $venv (nothing installed)"
        rc=0
    else
        test_venv_install "$repo"; rc=$?
    fi
    exec {fd}<&-
    return $rc
}

test_venv_use() { # repo
    PATH="$1/build-venv/bin:$PATH"
    export PATH
}
