#!/usr/bin/env bash
# Install what the gpcnet Python tool and its tests need: headless Chromium
# (the HTML report test opens the report in it) and the package itself in
# editable mode with its test extra. Safe to run again; never asks anything.
# It installs into the first python3 on PATH: what a user runs it for.
# --quick: the package and its test extra only: no Chromium, no venv
# module, no testbed.
# --no-tool: all but the package (Chromium, Debian's venv module, the
# testbed): what `scripts/test.sh` needs beside its own venv, which it
# puts first on PATH before (scripts/venv-lib.sh), so that the testbed's
# Python package goes there; the user's Python is left alone.
set -euo pipefail
quick=0
tool=1
case "${1:-}" in
    "") ;;
    --quick) quick=1 ;;
    --no-tool) tool=0 ;;
    *) echo "setup-python.sh: unknown argument '$1' (--quick, --no-tool, or nothing)" >&2; exit 2 ;;
esac

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export DEBIAN_FRONTEND=noninteractive

# Root on a fresh container has no sudo; everyone else needs it for apt.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

apt_updated=0
apt_install() {
    if [ "$apt_updated" -eq 0 ]; then
        as_root apt-get update -q </dev/null
        apt_updated=1
    fi
    as_root apt-get install -y -q --no-install-recommends "$@" </dev/null
}

if [ "$quick" -eq 0 ] && ! command -v chromium >/dev/null 2>&1; then
    echo "setup-python: installing chromium"
    # Fonts so that the HTML text renders in screenshots.
    apt_install chromium fonts-dejavu-core
fi

if ! command -v python3 >/dev/null 2>&1; then
    apt_install python3
fi
# tests/docs gives its throw-away unprivileged user the tool in a venv of
# Debian's Python (the one running the tests may be private to root).
if [ "$quick" -eq 0 ] && ! /usr/bin/python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    echo "setup-python: installing python3-venv"
    apt_install python3 python3-venv
fi
if [ "$tool" -eq 0 ]; then
    bash "$repo/scripts/setup-testbed.sh"
    echo "setup-python: done (the gpcnet tool not installed: --no-tool)"
    exit 0
fi
if ! python3 -m pip --version >/dev/null 2>&1; then
    echo "setup-python: installing pip"
    apt_install python3-pip
fi

# Debian 12's system Python is "externally managed" (PEP 668): pip refuses
# to install into it unless told to. Other Pythons (venv, pyenv) accept the
# plain command, so only fall back when pip says so.
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! python3 -m pip install --quiet -e "$repo/python[test]" </dev/null 2>"$log"; then
    if grep -q externally-managed-environment "$log"; then
        python3 -m pip install --quiet --break-system-packages \
            -e "$repo/python[test]" </dev/null
    else
        cat "$log" >&2
        exit 1
    fi
fi
# The testbed (`gpcnet testbed`): Slurm, munge, namespaces tools, pyroute2.
[ "$quick" -eq 1 ] || bash "$repo/scripts/setup-testbed.sh"

echo "setup-python: done ($(python3 -m gpcnet --version 2>/dev/null || echo 'gpcnet not importable'))"
